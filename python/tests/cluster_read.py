"""Reads golden datasets on a local cluster, whose executors are JVMs of their own.

Run by test_cluster.py in a separate process (a Python process holds one SparkContext):
    cluster_read.py <golden folder> <output folder>
Writes <name>.arrow per query for the test to compare with pylance, executors.txt with
the number of executor JVMs that registered, and error.txt with the condition and SQLSTATE
PySpark shows for a damaged data file read in an executor JVM.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pyarrow as pa
from pyspark.errors import AnalysisException

from sessions import make_session


def main(golden: Path, out: Path) -> None:
    spark = make_session("local-cluster[2,1,1024]", "pyspark-lance-cluster-test")
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
        damaged = out / "damaged"
        shutil.copytree(golden / "basic_types" / "dataset", damaged)
        data = sorted((damaged / "data").iterdir())[0]
        data.write_bytes(data.read_bytes()[: data.stat().st_size // 2])
        try:
            spark.read.format("lance").load(str(damaged)).collect()
            (out / "error.txt").write_text("no error")
        except AnalysisException as e:
            (out / "error.txt").write_text(f"{e.getCondition()} {e.getSqlState()}")
    finally:
        spark.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
