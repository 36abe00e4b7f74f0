"""One Spark application that runs one SQL statement on a Lance table again and again, for the
kill tests: `sql_proc.py <table uri> <times> <statement>`. The table is named `t` (CREATE TABLE
... LOCATION); prints `ready`, then `done <n>` after each statement commits.
"""

from __future__ import annotations

import sys

from sessions import make_session


def main(uri: str, times: int, statement: str) -> None:
    spark = make_session("local[1]", "lance-sql-statements")
    spark.sparkContext.setLogLevel("ERROR")
    spark.sql(f"CREATE TABLE t USING lance LOCATION '{uri}'")
    print("ready", flush=True)
    for n in range(1, times + 1):
        spark.sql(statement)
        print(f"done {n}", flush=True)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
