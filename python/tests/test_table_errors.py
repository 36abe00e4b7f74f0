"""Bad input to the table API, in classic PySpark and over Spark Connect: each case raises a
pyspark_lance.errors class (or TypeError/ValueError before any SQL) whose message names the
problem, never a Java stack trace, and changes nothing (pylance reads the table back)."""

from __future__ import annotations

import lance
import pytest

from pyspark_lance import LanceTable
from pyspark_lance.errors import LanceError, LanceInvalidArgumentError, LanceNotFoundError


def _clean(error: BaseException, *words: str) -> str:
    text = str(error)
    assert "\tat " not in text and "JVM stacktrace" not in text, text
    assert len(text) < 1500, text
    for word in words:
        assert word in text, text
    return text


@pytest.fixture
def table_path(any_spark, tmp_path):
    path = tmp_path / "t.lance"
    any_spark.createDataFrame([(1, "a"), (2, "b")], "id BIGINT, name STRING").write.format("lance").save(str(path))
    return path


def test_paths_that_hold_no_lance_table(any_spark, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    parquet = tmp_path / "parquet"
    any_spark.createDataFrame([(1,)], "id BIGINT").write.parquet(str(parquet))
    for path in [empty, parquet, tmp_path / "missing"]:
        with pytest.raises(LanceNotFoundError) as error:
            LanceTable.for_path(any_spark, str(path))
        assert error.value.getCondition() == "LANCE_DATASET_NOT_FOUND"
        _clean(error.value, str(path))
    for bad in [None, "", 3]:
        with pytest.raises(LanceInvalidArgumentError) as error:
            LanceTable.for_path(any_spark, bad)
        _clean(error.value, "uri")
    with pytest.raises(LanceError) as error:
        LanceTable.for_name(any_spark, "default.no_such_table")
    _clean(error.value, "no_such_table")


def test_wrong_argument_types_fail_before_any_sql(any_spark, table_path):
    table = LanceTable.for_path(any_spark, str(table_path))
    cases = [
        (lambda: table.to_df(version="x"), "version"),
        (lambda: table.to_df(version=-1), "version"),
        (lambda: table.update("id = 1", set=None), "set"),
        (lambda: table.update("id = 1", set={}), "set"),
        (lambda: table.delete(5), "condition"),
        (lambda: table.merge([(1, "a")], "target.id = source.id"), "source"),
        (lambda: table.restore(version="1"), "version"),
        (lambda: table.tags.create("t", version="1"), "version"),
        (lambda: table.cleanup(older_than=5), "older_than"),
        (lambda: table.add_bases({}), "bases"),
    ]
    for call, word in cases:
        with pytest.raises((TypeError, ValueError)) as error:
            call()
        _clean(error.value, word)
    assert lance.dataset(str(table_path)).version == 1


def test_versions_refs_and_durations_that_do_not_exist(any_spark, table_path):
    table = LanceTable.for_path(any_spark, str(table_path))
    cases = [
        (lambda: table.to_df(version=99), LanceNotFoundError, "99"),
        (lambda: table.to_df(tag="nope"), LanceNotFoundError, "nope"),
        (lambda: table.to_df(branch="nope"), LanceError, "nope"),
        (lambda: table.restore(99), LanceNotFoundError, "99"),
        (lambda: table.restore(tag="nope"), LanceNotFoundError, "nope"),
        (lambda: table.tags.create("t", version=99), LanceNotFoundError, "99"),
        (lambda: table.tags.delete("nope"), LanceNotFoundError, "nope"),
        (lambda: table.branches.create("b", version=99), LanceNotFoundError, "99"),
        (lambda: table.branches.delete("nope"), LanceError, "nope"),
        (lambda: table.cleanup(older_than="yesterday-ish"), LanceInvalidArgumentError, "older_than"),
        (lambda: table.cleanup(older_than="-3 days"), LanceInvalidArgumentError, "older_than"),
    ]
    for call, cls, word in cases:
        with pytest.raises(cls) as error:
            call()
        _clean(error.value, word)
    ds = lance.dataset(str(table_path))
    assert ds.version == 1 and ds.tags.list() == {} and ds.branches.list() == {}
    assert sorted(ds.to_table().to_pydict()["id"]) == [1, 2]
