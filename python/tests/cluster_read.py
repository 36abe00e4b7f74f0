"""Reads golden datasets and writes a table on a local cluster, whose executors are JVMs of
their own.

Run by test_cluster.py in a separate process (a Python process holds one SparkContext):
    cluster_read.py <golden folder> <output folder>
Writes <name>.arrow per query for the test to compare with pylance, executors.txt with
the number of executor JVMs that registered, error.txt with the condition and SQLSTATE
PySpark shows for a damaged data file read in an executor JVM, and written.lance: WRITES
saved in turn (mode, first id, end id, partitions), with write_executors.txt the number of
executors that ran tasks of those writes.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pyarrow as pa
from pyspark.errors import AnalysisException

from sessions import make_session

# Rows (id, "r<id>", id / 2) of ids [first, end) in this many partitions, saved in this mode.
WRITES = [("append", 0, 3000, 4), ("append", 3000, 5000, 4), ("overwrite", 10000, 12000, 3)]


def completed_tasks(sc) -> dict[str, int]:
    """Tasks completed so far per executor (the driver left out)."""
    summaries = sc._jsc.sc().statusStore().executorList(True)  # noqa: SLF001
    each = (summaries.apply(i) for i in range(summaries.size()))
    return {e.id(): e.completedTasks() for e in each if e.id() != "driver"}


def write(spark, out: Path) -> None:
    """Saves WRITES into written.lance; counts the executors whose tasks wrote."""
    before = completed_tasks(spark.sparkContext)
    for mode, first, end, partitions in WRITES:
        df = spark.range(first, end, 1, partitions).selectExpr("id", "concat('r', id) AS s", "id / 2 AS x")
        df.write.format("lance").mode(mode).save(str(out / "written.lance"))
    after = completed_tasks(spark.sparkContext)
    (out / "write_executors.txt").write_text(str(sum(1 for e, n in after.items() if n > before.get(e, 0))))


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
        write(spark, out)
    finally:
        spark.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
