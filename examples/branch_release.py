"""Test on a branch, then tag the release.

A production table (`prices`) is changed without touching what its readers see: the change is
written on a branch made from the table (an append and an UPDATE), checks run on the branch
(row count, no nulls, prices positive and stock not negative), and only when they pass is the
branch's version tagged `release-<n>`, the name readers read by. The main line never moves.
A second change fails its checks and its branch is deleted instead, leaving nothing behind.

Run:  python examples/branch_release.py [--workdir DIR] [--remote sc://host:port]
"""

from __future__ import annotations

import os

from pyspark.sql import DataFrame, SparkSession

from _session import arguments, session, workdir
from pyspark_lance import LanceTable

SCHEMA = "sku long, name string, price double, stock int"


def failed_checks(df: DataFrame, expected_rows: int) -> list[str]:
    """What is wrong with a candidate version (nothing: an empty list)."""
    stats = df.selectExpr(
        "count(*) AS rows",
        "count_if(name IS NULL OR price IS NULL OR stock IS NULL) AS with_nulls",
        "count_if(price <= 0 OR stock < 0) AS broken",
    ).collect()[0]
    problems = []
    if stats.rows != expected_rows:
        problems.append(f"{stats.rows} rows, expected {expected_rows}")
    if stats.with_nulls:
        problems.append(f"{stats.with_nulls} row(s) with nulls")
    if stats.broken:
        problems.append(f"{stats.broken} row(s) with a price not above 0 or a negative stock")
    return problems


def release(spark: SparkSession, table: LanceTable, uri: str, branch: str, new_rows: list, update: str,
            expected_rows: int) -> str | None:
    """Makes `branch` from the main line, writes the change on it, checks it, and tags it as the
    next release (returned) or deletes the branch (None)."""
    start = table.branches.create(branch)
    print(f"branch {branch} created from main version {start}")
    # An append on the branch: the write option `branch` (the main line is not written).
    spark.createDataFrame(new_rows, SCHEMA).write.format("lance").mode("append").option("branch", branch).save(uri)
    # An UPDATE on the branch: the table named with the suffix `branch_<name>`.
    spark.sql(f"UPDATE default.prices.`branch_{branch}` SET {update}")

    candidate = table.to_df(branch=branch)
    problems = failed_checks(candidate, expected_rows)
    if problems:
        table.branches.delete(branch)
        print(f"checks failed on {branch}: {'; '.join(problems)}; branch deleted")
        return None
    n = 1 + sum(1 for name in table.tags.list() if name.startswith("release-"))
    tag = f"release-{n}"
    version = table.tags.create(tag, branch=branch)  # the branch's latest version
    print(f"checks passed on {branch}: tag {tag} -> {branch} version {version}")
    return tag


def main(spark: SparkSession, work: str) -> None:
    uri = os.path.join(work, "prices.lance")
    spark.createDataFrame([(1, "apple", 1.20, 50), (2, "pear", 0.90, 20), (3, "plum", 2.50, 0),
                           (4, "fig", 3.00, 7), (5, "kiwi", 0.60, 100)], SCHEMA
                          ).write.format("lance").mode("overwrite").save(uri)
    spark.sql("DROP TABLE IF EXISTS default.prices")
    spark.sql(f"CREATE TABLE default.prices USING lance LOCATION '{uri}'")
    try:
        table = LanceTable.for_name(spark, "default.prices")

        # A good change: two new products, a price rise for the first two.
        tag = release(spark, table, uri, "candidate", [(6, "mango", 2.20, 12), (7, "lime", 0.40, 80)],
                      "price = round(price * 1.1, 2) WHERE sku <= 2", expected_rows=7)
        # A bad change: a product without a price, caught by the checks.
        release(spark, table, uri, "hotfix", [(8, "quince", None, 3)], "stock = stock + 1 WHERE sku = 8",
                expected_rows=6)

        # Readers read the release by its tag; the main line is as it was.
        released = table.to_df(tag=tag)
        print(f"{tag}: {released.count()} rows, prices "
              f"{[(r.sku, r.price) for r in released.orderBy('sku').collect()]}")
        main_rows = table.to_df().count()
        print(f"main: {main_rows} rows at version {table.version}")
        print(f"tags: {table.tags.list()}")
        print(f"branches: {sorted(table.branches.list())}")
    finally:
        spark.sql("DROP TABLE IF EXISTS default.prices")


if __name__ == "__main__":
    args = arguments(__doc__.splitlines()[0]).parse_args()
    spark = session(args, "spark-lance branch release")
    try:
        main(spark, workdir(args, "release"))
    finally:
        spark.stop()
