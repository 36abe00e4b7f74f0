"""spark-lance quickstart: pylance writes a small Lance dataset, Spark reads it and appends to
it, pylance reads Spark's append; then the same table by name in SQL: UPDATE, DELETE, its
history.

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
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.warehouse.dir", os.path.join(tmp, "warehouse"))  # managed tables would go here
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

            # Spark appends (version 3); pylance reads what Spark committed.
            more = spark.createDataFrame([(6, "frances", 97.0)], "id long, name string, score double")
            more.write.format("lance").mode("append").save(uri)
            ds = lance.dataset(uri)
            print(f"pylance after Spark's append: version {ds.version}, {ds.count_rows()} rows, "
                  f"last commit: {type(ds.get_transactions(1)[0].operation).__name__}")

            # A new table from a query; errorifexists (the default) refuses to replace it.
            top = os.path.join(tmp, "top.lance")
            spark.read.format("lance").load(uri).where("score > 90").write.format("lance").save(top)
            print("New table written by Spark:", lance.dataset(top).to_table().to_pydict())

            # The table by name (pyspark_lance.configure set the session catalog): row-level
            # changes commit deletion files and new fragments; pylance sees each version.
            spark.sql(f"CREATE TABLE people USING lance LOCATION '{uri}'")
            spark.sql("UPDATE people SET score = 90.0 WHERE name = 'edsger'")
            spark.sql("DELETE FROM people WHERE score < 80")
            print("After UPDATE and DELETE, pylance reads:", lance.dataset(uri).to_table().sort_by("id").to_pydict())
            spark.sql("SELECT version, operation, rows, rows_added, rows_removed FROM people.history").show()
            spark.sql("DROP TABLE people")  # an external table: its data stays
        finally:
            spark.stop()


if __name__ == "__main__":
    main()
