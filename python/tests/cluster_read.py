"""Reads golden datasets on a local cluster, whose executors are JVMs of their own.

Run by test_cluster.py in a separate process (a Python process holds one SparkContext):
    cluster_read.py <golden folder> <output folder>
Writes <name>.arrow per query for the test to compare with pylance, and executors.txt with
the number of executor JVMs that registered.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pyarrow as pa
from pyspark.sql import SparkSession

import pyspark_lance


def main(golden: Path, out: Path) -> None:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = (
        SparkSession.builder.master("local-cluster[2,1,1024]")
        .appName("pyspark-lance-cluster-test")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
    )
    spark = pyspark_lance.configure(builder).getOrCreate()
    try:
        sc = spark.sparkContext
        # Wait for both executors: the driver counts itself in the memory status.
        for _ in range(120):
            if sc._jsc.sc().getExecutorMemoryStatus().size() >= 3:  # noqa: SLF001
                break
            time.sleep(0.5)
        (out / "executors.txt").write_text(str(sc._jsc.sc().getExecutorMemoryStatus().size() - 1))  # noqa: SLF001
        queries = {
            "basic_types_large": spark.read.format("lance")
            .option("splitSizeBytes", str(256 * 1024))
            .load(str(golden / "basic_types_large" / "dataset")),
            "deletions": spark.read.format("lance").load(str(golden / "deletions" / "dataset")),
            "stable_row_ids": spark.read.format("lance")
            .load(str(golden / "stable_row_ids" / "dataset"))
            .select("_rowid", "_rowaddr"),
        }
        for name, df in queries.items():
            table = df.toArrow()
            with pa.ipc.new_file(out / f"{name}.arrow", table.schema) as w:
                w.write_table(table)
        (out / "partitions.txt").write_text(str(queries["basic_types_large"].rdd.getNumPartitions()))
    finally:
        spark.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
