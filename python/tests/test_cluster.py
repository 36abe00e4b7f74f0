"""Executors in JVMs of their own (Spark's local-cluster mode) read what pylance reads: the
plan, tasks and options travel to them serialized, as on a real cluster."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa

from compare import assert_same
from conftest import dataset_info


def test_local_cluster_reads_equal_pylance(golden, tmp_path):
    script = Path(__file__).with_name("cluster_read.py")
    subprocess.run([sys.executable, str(script), str(golden), str(tmp_path)], check=True, timeout=900)
    assert (tmp_path / "executors.txt").read_text() == "2"
    assert int((tmp_path / "partitions.txt").read_text()) > 2  # the splits spread over both executors
    # An error raised in an executor JVM keeps its Lance class and SQLSTATE in Python.
    assert (tmp_path / "error.txt").read_text() == "LANCE_CORRUPT_FILE XX001"

    def read(path: Path) -> pa.Table:
        return pa.ipc.open_file(path).read_all()

    for name in ["basic_types_large", "deletions"]:
        latest = dataset_info(golden, name)["latest"]
        assert_same(read(tmp_path / f"{name}.arrow"), read(golden / name / "expected" / f"v{latest}.arrow"), name)
    latest = dataset_info(golden, "stable_row_ids")["latest"]
    assert_same(
        read(tmp_path / "stable_row_ids.arrow"),
        read(golden / "stable_row_ids" / "expected" / f"rowids_v{latest}.arrow").select(["_rowid", "_rowaddr"]),
        "stable_row_ids row ids",
    )
