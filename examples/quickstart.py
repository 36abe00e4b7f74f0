"""spark-lance quickstart: write a small Lance dataset with pylance, read it with Spark.

Run with `make demo` (it builds the connector jar and sets up the virtualenv first).
Everything happens on this machine: a local Spark, data in a temporary folder.
"""

from __future__ import annotations

import os
import sys
import tempfile

import lance
import pyarrow as pa
from pyspark.sql import SparkSession

import pyspark_lance


def main() -> None:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    with tempfile.TemporaryDirectory(prefix="spark-lance-demo-") as tmp:
        uri = os.path.join(tmp, "people.lance")

        # Version 1, then an append: version 2.
        lance.write_dataset(pa.table({
            "id": pa.array([1, 2, 3], pa.int64()),
            "name": ["ada", "grace", "edsger"],
            "score": [92.5, 88.0, None],
        }), uri)
        lance.write_dataset(pa.table({
            "id": pa.array([4, 5], pa.int64()),
            "name": ["barbara", "donald"],
            "score": [95.0, 79.5],
        }), uri, mode="append")

        builder = (
            SparkSession.builder.master("local[2]")
            .appName("spark-lance quickstart")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.ui.enabled", "false")
        )
        spark = pyspark_lance.configure(builder).getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        try:
            df = spark.read.format("lance").load(uri)
            print("Latest version:")
            df.show()
            print("Rows:", df.count())
            print("Names with a score above 90:",
                  [r.name for r in df.where("score > 90").select("name").collect()])
            print("Version 1 (time travel):")
            spark.read.format("lance").option("version", 1).load(uri).show()
        finally:
            spark.stop()


if __name__ == "__main__":
    main()
