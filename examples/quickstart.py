"""spark-lance quickstart: a Lance table created, appended to, read, time-travelled, changed
in SQL, tagged and compacted, all from PySpark, with its history at the end.

Run with `make demo`: it builds the pip package (the connector jar inside), installs it into a
virtualenv of its own and runs this file there. Everything happens on this machine: a local
Spark, the table in a temporary folder.
"""

from __future__ import annotations

import os
import sys
import tempfile

import pyspark_lance


def main() -> None:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    with tempfile.TemporaryDirectory(prefix="spark-lance-demo-") as tmp:
        uri = os.path.join(tmp, "people.lance")
        spark = pyspark_lance.session(app_name="spark-lance quickstart", master="local[2]", conf={
            "spark.driver.host": "127.0.0.1",
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.warehouse.dir": os.path.join(tmp, "warehouse"),  # managed tables would go here
        })
        spark.sparkContext.setLogLevel("ERROR")
        print(f"spark-lance {pyspark_lance.__version__} on Spark {spark.version}")
        try:
            # Version 1: a new table. Version 2: an append.
            people = spark.createDataFrame(
                [(1, "ada", 92.5), (2, "grace", 88.0), (3, "edsger", None)], "id long, name string, score double")
            people.write.format("lance").save(uri)
            more = spark.createDataFrame([(4, "barbara", 95.0), (5, "donald", 79.5)], "id long, name string, score double")
            more.write.format("lance").mode("append").save(uri)

            df = spark.read.format("lance").load(uri)
            print("Latest version:")
            df.orderBy("id").show()
            print("Names with a score above 90:", [r.name for r in df.where("score > 90").orderBy("id").collect()])
            print("Version 1 (time travel):")
            spark.read.format("lance").option("version", 1).load(uri).orderBy("id").show()

            # The table by name (pyspark_lance set the session catalog): row-level changes
            # commit deletion files and new fragments, each a new version.
            spark.sql(f"CREATE TABLE people USING lance LOCATION '{uri}'")
            spark.sql("CALL lance.system.create_tag(table => 'people', tag => 'release_1')")
            spark.sql("UPDATE people SET score = 90.0 WHERE name = 'edsger'")
            spark.sql("DELETE FROM people WHERE score < 80")
            print("After UPDATE and DELETE:")
            spark.table("people").orderBy("id").show()

            # Compaction rewrites the small fragments the writes left into one.
            spark.sql("CALL lance.system.compact(table => 'people')").show()
            print("The tagged version still reads as it was:")
            spark.read.format("lance").option("tag", "release_1").load(uri).orderBy("id").show()
            spark.sql("SELECT version, operation, rows, rows_added, rows_removed, tags FROM people.history").show()
            spark.sql("DROP TABLE people")  # an external table: its data stays
        finally:
            spark.stop()


if __name__ == "__main__":
    main()
