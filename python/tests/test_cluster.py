"""Executors in JVMs of their own (Spark's local-cluster mode) read what pylance reads, and write
what pylance reads back: the plan, tasks, options and commit messages travel serialized, as on
a real cluster."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import lance
import pyarrow as pa
import pytest

from cluster_read import WRITES
from compare import assert_same
from conftest import dataset_info


@pytest.fixture(scope="module")
def cluster_run(golden, tmp_path_factory) -> Path:
    """One local-cluster application for the module (starting its JVMs is most of its time)."""
    out = tmp_path_factory.mktemp("cluster")
    script = Path(__file__).with_name("cluster_read.py")
    subprocess.run([sys.executable, str(script), str(golden), str(out)], check=True, timeout=900)
    return out


def test_local_cluster_reads_equal_pylance(golden, cluster_run):
    tmp_path = cluster_run
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


def expected_rows(first: int, end: int) -> pa.Table:
    ids = list(range(first, end))
    return pa.table({"id": pa.array(ids, pa.int64()), "s": [f"r{i}" for i in ids], "x": [i / 2 for i in ids]})


def test_local_cluster_writes_what_pylance_reads(cluster_run):
    out = cluster_run
    assert (out / "write_executors.txt").read_text() == "2"  # both executor JVMs wrote
    uri = str(out / "written.lance")
    # What each version must hold: appends add to the previous version, an overwrite replaces it.
    expected, files = [], 0
    for mode, first, end, partitions in WRITES:
        rows = expected_rows(first, end)
        expected.append(rows if mode == "overwrite" or not expected else pa.concat_tables([expected[-1], rows]))
        files += partitions
    assert [v["version"] for v in lance.dataset(uri).versions()] == [1, 2, 3]
    for version, want in enumerate(expected, start=1):
        ds = lance.dataset(uri, version=version)
        assert_same(ds.to_table().sort_by("id"), want, f"written.lance v{version}")
    # One fragment (one data file) per written partition; the overwrite keeps older versions' files.
    assert [len(lance.dataset(uri, version=v).get_fragments()) for v in (1, 2, 3)] == [4, 8, 3]
    assert len(list((out / "written.lance" / "data").iterdir())) == files
