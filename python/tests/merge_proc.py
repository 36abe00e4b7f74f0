"""One Spark application that MERGEs keys into a Lance table, for the concurrent-MERGE tests.

    merge_proc.py <table uri> <first key> <keys> <name> [insert-only]
Runs `MERGE INTO t USING (keys first .. first+keys-1) ON t.id = s.id WHEN MATCHED THEN UPDATE
WHEN NOT MATCHED THEN INSERT` (only the INSERT clause with `insert-only`), and runs it again when
the commit is refused as a retryable conflict (what an application does with
LANCE_COMMIT_CONFLICT). Prints `ready`, then `merged <attempts>`.
"""

from __future__ import annotations

import sys

from sessions import make_session


def main(uri: str, first: int, keys: int, name: str, insert_only: bool) -> None:
    spark = make_session("local[1]", f"lance-merge-{name}")
    spark.sparkContext.setLogLevel("ERROR")
    spark.sql(f"CREATE TABLE t USING lance LOCATION '{uri}'")
    spark.range(first, first + keys).selectExpr("id", f"'{name}' AS who").createOrReplaceTempView("s")
    statement = ("MERGE INTO t USING s ON t.id = s.id " +
                 ("" if insert_only else "WHEN MATCHED THEN UPDATE SET * ") + "WHEN NOT MATCHED THEN INSERT *")
    print("ready", flush=True)
    sys.stdin.readline()  # the parent starts every writer's MERGE at once
    for attempt in range(1, 21):
        try:
            spark.sql(statement)
            print(f"merged {attempt}", flush=True)
            break
        except Exception as e:  # noqa: BLE001 - only the retryable conflict is retried
            if "LANCE_COMMIT_CONFLICT" not in str(e):
                raise
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], len(sys.argv) > 5 and sys.argv[5] == "insert-only")
