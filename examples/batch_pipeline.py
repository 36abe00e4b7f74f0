"""A batch pipeline into a Lance table: raw CSV and JSON files in, cleaned with DataFrame code,
written as a Lance table, summed up in SQL, then corrected by a batch of updates with MERGE.

The raw files are written by the example itself (into its work folder) and are dirty on purpose:
an amount that is not a number, duplicated orders, missing values, stray spaces and mixed case.
The aggregate per country is printed before and after the update batch.

Run:  python examples/batch_pipeline.py [--workdir DIR] [--remote sc://host:port]
(with `pyspark_lance` importable: `pip install pyspark-lance`, or PYTHONPATH=python in the repository).
"""

from __future__ import annotations

import json
import os

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from _session import arguments, session, workdir
from pyspark_lance import LanceTable

CSV_ROWS = """order_id,customer,amount,country
1, alice ,10.50,de
2,bob,20.00, FR
3,carol,abc,DE
4,,5.00,de
2,bob,20.00,FR
5,dave,,FR
x7,eve,3.00,DE
"""

JSON_ROWS = [
    {"order_id": "6", "customer": "frank", "amount": "7.25", "country": "de "},
    {"order_id": "7", "customer": " grace", "amount": 12, "country": "fr"},
    {"order_id": "1", "customer": "alice", "amount": "10.50", "country": "DE"},
    {"order_id": "8", "customer": "heidi", "amount": "1e3x", "country": "FR"},
    {"order_id": None, "customer": "ivan", "amount": "4", "country": "DE"},
    {"order_id": "9", "customer": "judy", "amount": "-2", "country": "DE"},
]

# Every raw column is read as a string: the cleaning step decides what a valid value is.
RAW_SCHEMA = "order_id string, customer string, amount string, country string"


def write_inputs(folder: str) -> tuple[str, str]:
    os.makedirs(folder, exist_ok=True)
    csv_path, json_path = os.path.join(folder, "orders.csv"), os.path.join(folder, "orders.json")
    with open(csv_path, "w") as f:
        f.write(CSV_ROWS)
    with open(json_path, "w") as f:
        f.writelines(json.dumps(row) + "\n" for row in JSON_ROWS)
    return csv_path, json_path


def clean(raw: DataFrame) -> DataFrame:
    """Trimmed text, typed numbers (a value that does not parse becomes null and the row is
    dropped), a default for a missing customer, no negative amounts, one row per order."""
    typed = raw.select(
        F.expr("try_cast(trim(order_id) AS bigint)").alias("order_id"),
        F.coalesce(F.nullif(F.trim("customer"), F.lit("")), F.lit("unknown")).alias("customer"),
        F.expr("try_cast(trim(amount) AS double)").alias("amount"),
        F.upper(F.trim("country")).alias("country"),
    )
    return typed.where("order_id IS NOT NULL AND amount IS NOT NULL AND amount >= 0").dropDuplicates(["order_id"])


def print_totals(spark: SparkSession, when: str) -> None:
    rows = spark.sql("SELECT country, count(*) AS orders, round(sum(amount), 2) AS total "
                     "FROM orders GROUP BY country ORDER BY country").collect()
    for r in rows:
        print(f"{when}: {r.country} orders={r.orders} total={r.total:.2f}")


def main(spark: SparkSession, work: str) -> None:
    csv_path, json_path = write_inputs(os.path.join(work, "input"))
    raw = (spark.read.schema(RAW_SCHEMA).option("header", "true").csv(csv_path)
           .unionByName(spark.read.schema(RAW_SCHEMA).json(json_path)))
    orders = clean(raw)

    # Lance has no partitions: the table is one folder of fragments, written in one commit.
    uri = os.path.join(work, "orders.lance")
    orders.write.format("lance").mode("overwrite").save(uri)
    print(f"wrote {spark.read.format('lance').load(uri).count()} clean orders of "
          f"{raw.count()} raw rows to {uri}")

    # The table by name for SQL (an external table: dropping it keeps the data).
    spark.sql("DROP TABLE IF EXISTS orders")
    spark.sql(f"CREATE TABLE orders USING lance LOCATION '{uri}'")
    try:
        print_totals(spark, "before")

        # The update batch: a corrected amount for order 2, a late order 10. The Python table
        # API's merge builder (in delta-spark's style) commits both in one new version.
        updates = spark.createDataFrame([(2, "bob", 25.0, "FR"), (10, "kim", 40.0, "DE")],
                                        "order_id long, customer string, amount double, country string")
        (LanceTable.for_path(spark, uri).merge(updates, "target.order_id = source.order_id")
         .whenMatchedUpdate(set={"amount": "source.amount"})
         .whenNotMatchedInsertAll()
         .execute())

        # A cancellation, in SQL this time: MERGE INTO deletes the matched order.
        spark.createDataFrame([(4,)], "order_id long").createOrReplaceTempView("cancelled")
        spark.sql("MERGE INTO orders t USING cancelled c ON t.order_id = c.order_id WHEN MATCHED THEN DELETE")

        print_totals(spark, "after")
        versions = [r.version for r in spark.sql("SELECT version FROM orders.history ORDER BY version").collect()]
        print(f"versions: {versions}")
    finally:
        spark.sql("DROP TABLE IF EXISTS orders")


if __name__ == "__main__":
    args = arguments(__doc__.splitlines()[0]).parse_args()
    spark = session(args, "spark-lance batch pipeline")
    try:
        main(spark, workdir(args, "pipeline"))
    finally:
        spark.stop()
