"""Errors keep their Lance class and SQLSTATE in Python: whether raised on the driver (opening
a table, a bad option) or in a task (a damaged data file), PySpark raises an AnalysisException
whose getCondition() and getSqlState() are Lance's."""

from __future__ import annotations

import shutil

import pytest
from pyspark.errors import AnalysisException


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
    with pytest.raises(AnalysisException) as info:
        if action == "collect":
            df.collect()
        elif action == "filtered count":
            df.where("int32_col > 3").count()
        else:
            df.rdd.map(lambda r: r).collect()
    assert info.value.getCondition() == "LANCE_CORRUPT_FILE"
    assert info.value.getSqlState() == "XX001"
    assert data.name in info.value.getMessageParameters()["message"]
