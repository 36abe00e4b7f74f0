"""The table API on an object store, in a Spark application of its own (the s3a jars must be on
the session's classpath from its start). Run by test_table_api_s3.py:
    table_api_s3_proc.py <s3a uri> <spark conf json>
Prints one JSON line with what each call returned.
"""

from __future__ import annotations

import datetime as dt
import json
import sys

from sessions import make_session

from pyspark_lance import LanceTable


def main(uri: str, conf: dict) -> None:
    spark = make_session("local[2]", "lance-table-api-s3", conf)
    spark.sparkContext.setLogLevel("ERROR")
    for i in range(3):
        spark.createDataFrame([(i, f"r{i}"), (10 + i, f"s{i}")], "id BIGINT, name STRING") \
            .write.format("lance").mode("append" if i else "error").save(uri)
    table = LanceTable.for_path(spark, uri)
    out = {"version": table.version, "rows": sorted([r["id"], r["name"]] for r in table.to_df().collect()),
           "history": [r["version"] for r in table.history().collect()],
           "tag": table.tags.create("first", version=1)}
    table.delete("id = 10")
    table.update("id = 11", {"name": "'eleven'"})
    compacted = table.compact()
    dry = table.cleanup(older_than=dt.timedelta(0), override=True, dry_run=True)
    out.update(tags=table.tags.list(), compacted=[compacted["fragments_removed"], compacted["fragments_added"],
                                                  compacted["version"]],
               dry=[dry["dry_run"], dry["versions_removed"]], final=sorted([r["id"], r["name"]] for r in table.to_df().collect()),
               first=sorted(r["id"] for r in table.to_df(tag="first").collect()))
    print(json.dumps(out), flush=True)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], json.loads(sys.argv[2]))
