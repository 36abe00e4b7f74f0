"""spark-lance quickstart: a Lance table created, appended to, read, time-travelled, changed
in SQL, tagged and compacted, all from PySpark, with its history at the end.

Run with `make demo`: it builds the pip package (the connector jar inside), installs it into a
virtualenv of its own and runs this file there. Everything happens on this machine: a local
Spark, the table in a temporary folder. Or run it yourself:
python examples/quickstart.py [--workdir DIR] [--remote sc://host:port] (over Spark Connect, the
server started with the connector: `python -m pyspark_lance.connect_server`).
"""

from __future__ import annotations

import os

from pyspark.sql import SparkSession

import pyspark_lance
from _session import arguments, session, workdir


def main(spark: SparkSession, work: str) -> None:
    uri = os.path.join(work, "people.lance")
    print(f"spark-lance {pyspark_lance.__version__} on Spark {spark.version}")
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


if __name__ == "__main__":
    args = arguments(__doc__.splitlines()[0]).parse_args()
    spark = session(args, "spark-lance quickstart")
    try:
        main(spark, workdir(args, "demo"))
    finally:
        spark.stop()
