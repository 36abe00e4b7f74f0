"""Reading pylance-written datasets through PySpark returns exactly what pylance returns."""

from __future__ import annotations

import shutil

import pyarrow as pa
import pytest

from compare import assert_same as _assert_same
from conftest import dataset_info


def _check_every_version(spark, golden, name: str, count: bool = False) -> None:
    """Every version of golden dataset `name` read through Spark equals pylance's reading;
    with `count`, Spark's count() of it agrees too."""
    uri = str(golden / name / "dataset")
    for version in dataset_info(golden, name)["versions"]:
        expected = pa.ipc.open_file(golden / name / "expected" / f"v{version}.arrow").read_all()
        df = spark.read.format("lance").option("version", version).load(uri)
        _assert_same(df.toArrow(), expected, f"{name} v{version}")
        if count:
            assert df.count() == expected.num_rows


@pytest.mark.parametrize("name", ["basic_types", "basic_types_large", "no_nulls", "projection_and_count", "legacy_manifest_names"])
def test_every_version_equals_pylance(spark, golden, name):
    info = dataset_info(golden, name)
    uri = str(golden / name / "dataset")
    _check_every_version(spark, golden, name)
    latest = pa.ipc.open_file(golden / name / "expected" / f"v{info['latest']}.arrow").read_all()
    _assert_same(spark.read.format("lance").load(uri).toArrow(), latest, f"{name} latest")


def test_count_and_projection(spark, golden):
    uri = str(golden / "projection_and_count" / "dataset")
    df = spark.read.format("lance").load(uri)
    assert df.count() == 10
    rows = df.select("score", "id").orderBy("id").collect()
    assert [r.id for r in rows] == list(range(10))
    assert [r.score for r in rows] == [0.5 + 10 * i for i in range(10)]
    assert df.where("id >= 7").count() == 3


def test_count_of_every_version(spark, golden):
    info = dataset_info(golden, "basic_types")
    uri = str(golden / "basic_types" / "dataset")
    for version in info["versions"]:
        n = spark.read.format("lance").option("version", version).load(uri).count()
        assert n == info["rows"][str(version)]


def test_not_a_dataset(spark, tmp_path):
    with pytest.raises(Exception, match="LANCE_DATASET_NOT_FOUND"):
        spark.read.format("lance").load(str(tmp_path / "nothing-here")).count()


def test_parquet_folder_is_named(spark, tmp_path):
    spark.range(3).write.parquet(str(tmp_path / "pq"))
    with pytest.raises(Exception, match="Parquet"):
        spark.read.format("lance").load(str(tmp_path / "pq")).count()


def test_truncated_manifest(spark, golden, tmp_path):
    src = golden / "projection_and_count" / "dataset"
    dst = tmp_path / "copy"
    shutil.copytree(src, dst)
    manifest = max((dst / "_versions").glob("*.manifest"))
    data = manifest.read_bytes()
    manifest.write_bytes(data[: len(data) // 2])
    with pytest.raises(Exception, match="LANCE_CORRUPT_FILE"):
        spark.read.format("lance").load(str(dst)).count()


def test_missing_version_lists_existing(spark, golden):
    uri = str(golden / "basic_types" / "dataset")
    with pytest.raises(Exception, match=r"LANCE_VERSION_NOT_FOUND.*1, 2, 3"):
        spark.read.format("lance").option("version", 42).load(uri).count()


def test_bad_option_is_named(spark, golden):
    uri = str(golden / "basic_types" / "dataset")
    with pytest.raises(Exception, match="LANCE_INVALID_OPTION.*batchSize"):
        spark.read.format("lance").option("batchSize", "lots").load(uri).count()


@pytest.mark.parametrize("name", ["deletions", "updates", "schema_evolution", "compaction", "stable_row_ids", "multi_base", "shallow_clone"])
def test_table_histories_equal_pylance(spark, golden, name):
    _check_every_version(spark, golden, name, count=True)


def test_tags_and_branches(spark, golden):
    uri = str(golden / "branches_tags" / "dataset")
    exp = golden / "branches_tags" / "expected"
    _assert_same(spark.read.format("lance").option("tag", "dev_snapshot").load(uri).toArrow(),
                 pa.ipc.open_file(exp / "tag_dev_snapshot.arrow").read_all(), "tag dev_snapshot")
    _assert_same(spark.read.format("lance").option("branch", "dev/feature").load(uri).toArrow(),
                 pa.ipc.open_file(exp / "branch_dev__feature_v3.arrow").read_all(), "branch dev/feature")


def test_row_ids_and_addresses(spark, golden):
    uri = str(golden / "stable_row_ids" / "dataset")
    info = dataset_info(golden, "stable_row_ids")
    v = info["latest"]
    expected = pa.ipc.open_file(golden / "stable_row_ids" / "expected" / f"rowids_v{v}.arrow").read_all()
    got = spark.read.format("lance").load(uri).select("_rowid", "_rowaddr").collect()
    assert [r._rowid for r in got] == expected.column("_rowid").to_pylist()
    assert [r._rowaddr for r in got] == expected.column("_rowaddr").to_pylist()
