"""One Spark application that runs SQL statements on a Lance table again and again, for the kill
and concurrency tests: `sql_proc.py <table uri> <times> <statement> [<statement> ...]`. The table
is named `t` (CREATE TABLE ... LOCATION); the statements run in order `times` times, and
`done <n>` is printed after each round. Extra session settings (the S3 ones) come as JSON in the
environment variable SQL_PROC_CONF. Prints `ready` once the table is registered.
"""

from __future__ import annotations

import json
import os
import sys

from sessions import make_session


def main(uri: str, times: int, statements: list[str]) -> None:
    spark = make_session("local[1]", "lance-sql-statements", json.loads(os.environ.get("SQL_PROC_CONF", "{}")))
    spark.sparkContext.setLogLevel("ERROR")
    spark.sql(f"CREATE TABLE t USING lance LOCATION '{uri}'")
    print("ready", flush=True)
    for n in range(1, times + 1):
        for statement in statements:
            spark.sql(statement)
        print(f"done {n}", flush=True)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
