"""Errors keep their Lance class and SQLSTATE in Python: whether raised on the driver (opening
a table, a bad option) or in a task (a damaged data file), PySpark raises an AnalysisException
whose getCondition() and getSqlState() are Lance's."""

from __future__ import annotations

import shutil
import uuid

import pytest
from pyspark.errors import AnalysisException

from pyspark_lance.errors import LanceStorageError, from_pyspark
from sessions import SPARK_LINE


def test_missing_dataset_keeps_its_class(spark, tmp_path):
    with pytest.raises(AnalysisException) as info:
        spark.read.format("lance").load(str(tmp_path / "nothing-here"))
    assert info.value.getCondition() == "LANCE_DATASET_NOT_FOUND"
    assert info.value.getSqlState() == "42P01"
    assert "nothing-here" in info.value.getMessageParameters()["message"]


@pytest.mark.parametrize(
    "option, value, condition, state",
    [("batchSize", "0", "LANCE_INVALID_OPTION", "22023"), ("version", "99", "LANCE_VERSION_NOT_FOUND", "42704")],
)
def test_bad_options_keep_their_class(spark, golden, option, value, condition, state):
    with pytest.raises(AnalysisException) as info:
        spark.read.format("lance").option(option, value).load(str(golden / "basic_types" / "dataset"))
    assert info.value.getCondition() == condition
    assert info.value.getSqlState() == state


@pytest.mark.parametrize("action", ["collect", "filtered count", "rdd"])
def test_damaged_data_file_read_in_a_task_keeps_its_class(spark, golden, tmp_path, action):
    table = tmp_path / "t"
    shutil.copytree(golden / "basic_types" / "dataset", table)
    data = sorted((table / "data").iterdir())[0]
    data.write_bytes(data.read_bytes()[: data.stat().st_size // 2])
    df = spark.read.format("lance").load(str(table))
    # Spark 3.5 wraps an error that failed a task in its job failure, which reaches Python without
    # a class: pyspark_lance.errors finds the Lance class it names (docs/spark-lines.md).
    with pytest.raises(AnalysisException if SPARK_LINE >= (4, 0) else Exception) as info:
        if action == "collect":
            df.collect()
        elif action == "filtered count":
            df.where("int32_col > 3").count()
        else:
            df.rdd.map(lambda r: r).collect()
    if SPARK_LINE < (4, 0):
        lance_error = from_pyspark(info.value)
        assert isinstance(lance_error, LanceStorageError) and lance_error.getCondition() == "LANCE_CORRUPT_FILE", str(info.value)
        assert data.name in str(lance_error)
        return
    assert info.value.getCondition() == "LANCE_CORRUPT_FILE"
    assert info.value.getSqlState() == "XX001"
    assert data.name in info.value.getMessageParameters()["message"]


SECRET = "pySuperSecret"


@pytest.fixture()
def lake(spark, tmp_path):
    """A LanceCatalog over an empty warehouse with one namespace `ns`: its name (Spark keeps a
    catalog once loaded, so each test gets its own) and its warehouse."""
    name = f"lake_{uuid.uuid4().hex[:8]}"
    spark.conf.set(f"spark.sql.catalog.{name}", "io.sparklance.spark.catalog.LanceCatalog")
    spark.conf.set(f"spark.sql.catalog.{name}.warehouse", str(tmp_path / "wh"))
    (tmp_path / "wh" / "ns").mkdir(parents=True)
    return name, tmp_path / "wh"


@pytest.mark.parametrize(
    "sql, condition",
    [
        ("SHOW TABLES IN {lake}.`..`", "LANCE_INVALID_NAME"),
        ("CREATE TABLE {lake}.`..`.t (a INT) USING lance", "LANCE_INVALID_NAME"),
        ("CREATE TABLE {lake}.ns.`a\u0000b` (a INT) USING lance", "LANCE_INVALID_NAME"),
        ("SELECT * FROM {lake}.ns.`a\u0000b`", "LANCE_INVALID_NAME"),
        ("CREATE NAMESPACE {lake}.`a\u0000b`", "LANCE_INVALID_NAME"),
        ("CREATE TABLE {lake}.ns.p (a INT) USING parquet", "LANCE_UNSUPPORTED_FEATURE"),
        ("CREATE NAMESPACE {lake}.props WITH DBPROPERTIES ('k' = 'v')", "LANCE_UNSUPPORTED_FEATURE"),
        ("ALTER NAMESPACE {lake}.ns SET DBPROPERTIES ('k' = 'v')", "LANCE_UNSUPPORTED_FEATURE"),
        ("SELECT * FROM {lake}.`s3a://no-such-bucket/t`", "LANCE_FILE_SYSTEM_NOT_FOUND"),
        ("CREATE TABLE {lake}.ns.t (id INT, _ROWADDR BIGINT) USING lance", "LANCE_INVALID_NAME"),
        ("CREATE TABLE {lake}.ns.t (id INT, v VARCHAR(2)) USING lance", "LANCE_UNSUPPORTED_FEATURE"),
    ],
)
def test_catalog_errors_reach_python_as_analysis_exceptions(spark, lake, sql, condition):
    name, warehouse = lake
    with pytest.raises(AnalysisException) as info:
        spark.sql(sql.format(lake=name)).collect()
    assert info.value.getCondition() == condition, str(info.value)
    assert sorted(p.name for p in warehouse.iterdir()) == ["ns"] and not any((warehouse / "ns").iterdir()), "nothing created"


def test_a_path_with_credentials_its_file_system_refuses_shows_none(spark, lake, golden):
    name = lake[0]
    uri = f"file://AKIAEXAMPLE:{SECRET}@{golden / 'basic_types' / 'dataset'}"
    for read in (lambda: spark.read.format("lance").load(uri).count(), lambda: spark.sql(f"SELECT * FROM {name}.`{uri}`").count()):
        with pytest.raises(AnalysisException) as info:
            read()
        assert info.value.getCondition() == "LANCE_INVALID_ARGUMENT"
        assert "***@" in str(info.value)
        assert SECRET not in str(info.value) and SECRET not in repr(info.value)
        assert SECRET not in "".join(str(v) for v in info.value.getMessageParameters().values())


def test_a_path_table_below_the_catalog_reads_its_history(spark, lake, tmp_path):
    name = lake[0]
    path = str(tmp_path / "t.lance")
    spark.range(2).write.format("lance").save(path)
    assert [r.version for r in spark.sql(f"SELECT version FROM {name}.`{path}`.history").collect()] == [1]
