"""One Spark application that appends to a Lance table, for the multi-process write tests.

Run by test_concurrent_writes.py, one process per writer (a Python process holds one
SparkContext):
    writer_proc.py <table uri> <writer id> <appends> <rows per append> [<spark conf json>]
Each append is one DataFrame of `rows` rows (writer, seq, i) written with mode("append");
after each commit the process prints `committed <seq>` and flushes, so that the parent knows
which appends a kill may have interrupted. The first line printed is `ready`.
"""

from __future__ import annotations

import json
import sys

from sessions import make_session


def main(uri: str, writer: int, appends: int, rows: int, conf: dict) -> None:
    spark = make_session("local[1]", f"lance-writer-{writer}", conf)
    spark.sparkContext.setLogLevel("ERROR")
    print("ready", flush=True)
    for seq in range(appends):
        df = spark.range(rows).selectExpr(f"{writer} AS writer", f"{seq} AS seq", "id AS i")
        df.write.format("lance").mode("append").save(uri)
        print(f"committed {seq}", flush=True)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
         json.loads(sys.argv[5]) if len(sys.argv) > 5 else {})
