"""The Python table API (pyspark_lance.LanceTable), each test in classic PySpark and over Spark
Connect, with pylance reading back what it did value by value."""

from __future__ import annotations

import datetime as dt

import lance
import pytest

from pyspark_lance import LanceTable
from pyspark_lance.errors import (LanceAlreadyExistsError, LanceConflictError, LanceError,
                                  LanceInvalidArgumentError, LanceNotFoundError)


def _write(spark, path, rows, mode="error"):
    spark.createDataFrame(rows, "id BIGINT, name STRING").write.format("lance").mode(mode).save(str(path))


def _ids(df):
    return sorted((r["id"], r["name"]) for r in df.collect())


def _lance_rows(ds):
    t = ds.to_table().to_pydict()
    return sorted(zip(t["id"], t["name"]))


# A folder name holding a quote, a backtick, a backslash and spaces: it must reach the table literally.
AWKWARD = "it's a `path` \\ x"


def test_time_travel_history_and_refs(any_spark, tmp_path):
    path = tmp_path / AWKWARD / "t.lance"
    _write(any_spark, path, [(1, "a"), (2, "b")])
    _write(any_spark, path, [(3, "c")], mode="append")
    table = LanceTable.for_path(any_spark, str(path))
    ds = lance.dataset(str(path))
    assert table.version == ds.version == 2
    assert _ids(table.to_df()) == _lance_rows(ds) == [(1, "a"), (2, "b"), (3, "c")]
    assert _ids(table.to_df(version=1)) == _lance_rows(lance.dataset(str(path), version=1)) == [(1, "a"), (2, "b")]
    assert [f.name for f in table.schema.fields] == ["id", "name"]

    history = table.history().collect()
    assert [r["version"] for r in history] == [v["version"] for v in ds.versions()] == [1, 2]
    assert [r["rows"] for r in history] == [2, 3]
    # Spark's timestamps are microseconds, Lance's commit times nanoseconds: one microsecond on.
    after_v1 = history[0]["timestamp"] + dt.timedelta(microseconds=1)
    assert after_v1 < history[1]["timestamp"]
    assert _ids(table.to_df(timestamp=after_v1)) == [(1, "a"), (2, "b")]

    assert table.tags.create("v1", version=1) == 1
    assert table.tags.create("latest") == 2
    assert table.tags.list() == {"v1": 1, "latest": 2}
    assert {n: t["version"] for n, t in lance.dataset(str(path)).tags.list().items()} == {"v1": 1, "latest": 2}
    assert _ids(table.to_df(tag="v1")) == _lance_rows(lance.dataset(str(path), version="v1"))
    with pytest.raises(LanceAlreadyExistsError) as taken:
        table.tags.create("v1", version=2)
    assert taken.value.getCondition() == "LANCE_REF_ALREADY_EXISTS" and "v1" in str(taken.value)
    assert "JVM stacktrace" not in str(taken.value)
    assert table.tags.create("v1", version=2, replace=True) == 2
    assert lance.dataset(str(path)).tags.list()["v1"]["version"] == 2
    table.tags.delete("latest")
    assert set(lance.dataset(str(path)).tags.list()) == {"v1"}

    assert table.branches.create("dev", version=1) == 1
    assert table.branches.list() == {"dev": {"parent_branch": None, "parent_version": 1}}
    assert set(lance.dataset(str(path)).branches.list()) == {"dev"}
    any_spark.createDataFrame([(9, "z")], "id BIGINT, name STRING").write.format("lance") \
        .option("branch", "dev").mode("append").save(str(path))
    assert _ids(table.to_df(branch="dev")) == [(1, "a"), (2, "b"), (9, "z")]
    on_dev = lance.dataset(str(path)).checkout_version(("dev", None))
    assert _lance_rows(on_dev) == [(1, "a"), (2, "b"), (9, "z")]
    assert _ids(table.to_df()) == [(1, "a"), (2, "b"), (3, "c")]  # the main line is untouched
    table.branches.delete("dev")
    assert lance.dataset(str(path)).branches.list() == {}


def test_row_changes_and_merge(any_spark, tmp_path):
    path = tmp_path / "rows.lance"
    _write(any_spark, path, [(i, f"n{i}") for i in range(6)])
    table = LanceTable.for_path(any_spark, str(path))
    table.delete("id >= 4")
    assert _lance_rows(lance.dataset(str(path))) == [(i, f"n{i}") for i in range(4)]
    table.update("id = 1", {"name": "upper(name)"})
    assert _lance_rows(lance.dataset(str(path))) == [(0, "n0"), (1, "N1"), (2, "n2"), (3, "n3")]
    source = any_spark.createDataFrame([(2, "two"), (3, "gone"), (7, "seven")], "id BIGINT, name STRING")
    (table.merge(source, "target.id = source.id")
        .whenMatchedDelete("source.name = 'gone'")
        .whenMatchedUpdate({"name": "source.name"})
        .whenNotMatchedInsertAll()
        .execute())
    ds = lance.dataset(str(path))
    assert _lance_rows(ds) == [(0, "n0"), (1, "N1"), (2, "two"), (7, "seven")]
    assert table.version == ds.version == 4
    assert [t.name for t in any_spark.catalog.listTables() if t.name.startswith("lance_merge_source")] == []
    # A condition is SQL by design; a literal inside it is the caller's. A bad one fails and changes nothing.
    with pytest.raises(Exception):
        table.delete("no_such_column = 1")
    assert lance.dataset(str(path)).version == 4


def test_maintenance_detail_and_fragments(any_spark, tmp_path):
    path = tmp_path / "m.lance"
    for i in range(3):
        _write(any_spark, path, [(i, f"r{i}")], mode="append" if i else "error")
    table = LanceTable.for_path(any_spark, str(path))
    ds = lance.dataset(str(path))
    fragments = table.fragments().collect()
    assert [f["id"] for f in fragments] == [f.fragment_id for f in ds.get_fragments()]
    detail = table.detail()
    assert detail["version"] == 3 and detail["rows"] == ds.count_rows() == 3
    assert detail["fragments"] == len(ds.get_fragments()) == 3
    assert detail["files"] == sum(len(f.data_files()) for f in ds.get_fragments())
    assert detail["bytes"] == sum(f["bytes"] for f in fragments) > 0
    assert [f.name for f in detail["schema"].fields] == ["id", "name"]
    assert detail["indices"] == []

    result = table.compact()
    assert (result["fragments_removed"], result["fragments_added"], result["version"]) == (3, 1, 4)
    ds = lance.dataset(str(path))
    assert len(ds.get_fragments()) == 1 and _lance_rows(ds) == [(0, "r0"), (1, "r1"), (2, "r2")]

    assert table.restore(1) == 5
    assert _lance_rows(lance.dataset(str(path))) == [(0, "r0")]

    dry = table.cleanup(older_than=dt.timedelta(0), override=True, dry_run=True)
    assert dry["dry_run"] and dry["versions_removed"] == 4
    assert [v["version"] for v in lance.dataset(str(path)).versions()] == [1, 2, 3, 4, 5]

    clone = table.clone(str(tmp_path / "clone"), version=3)
    assert clone.version == 3
    assert _lance_rows(lance.dataset(str(tmp_path / "clone"))) == [(0, "r0"), (1, "r1"), (2, "r2")]

    bases = table.add_bases({"b1": str(tmp_path / "base1")})
    assert [(r["id"], r["name"]) for r in bases] == [(1, "b1")]
    seen = lance.dataset(str(path)).base_paths()
    assert {i: (b.name, b.path) for i, b in seen.items()} == {1: ("b1", str(tmp_path / "base1"))}

    # An index pylance makes shows in detail() (version 6 is add_bases', the index commits 7).
    lance.dataset(str(path)).create_scalar_index("id", "BTREE")
    ds = lance.dataset(str(path))
    [made] = ds.list_indices()
    [seen] = table.detail()["indices"]
    assert (seen["name"], seen["uuid"], seen["columns"], seen["dataset_version"], seen["fragments"]) == \
        (made["name"], made["uuid"], ["id"], 6, sorted(made["fragment_ids"]))


def test_table_by_name(any_spark, tmp_path):
    any_spark.sql("DROP TABLE IF EXISTS api_people")
    any_spark.sql("CREATE TABLE api_people (id BIGINT, name STRING) USING lance")
    any_spark.sql("INSERT INTO api_people VALUES (1, 'ann'), (2, 'bob')")
    table = LanceTable.for_name(any_spark, "default.`api_people`")
    location = any_spark.sql("DESCRIBE TABLE EXTENDED api_people").where("col_name = 'Location'").collect()[0][1]
    ds = lance.dataset(location)
    assert table.version == ds.version == 2
    table.tags.create("first", version=2)
    assert ds.tags.list()["first"]["version"] == 2
    table.update("name = 'bob'", {"name": "'robert'"})
    assert _lance_rows(lance.dataset(location)) == [(1, "ann"), (2, "robert")]
    assert _ids(table.to_df(tag="first")) == [(1, "ann"), (2, "bob")]
    assert table.detail()["rows"] == 2
    any_spark.sql("DROP TABLE api_people")


def test_bad_input_is_refused_and_never_injected(any_spark, tmp_path):
    with pytest.raises(LanceNotFoundError) as missing:
        LanceTable.for_path(any_spark, str(tmp_path / "nothing here"))
    assert missing.value.getCondition() == "LANCE_DATASET_NOT_FOUND"
    path = tmp_path / "b.lance"
    _write(any_spark, path, [(1, "a")])
    table = LanceTable.for_path(any_spark, str(path))
    with pytest.raises(LanceNotFoundError):
        table.to_df(version=99)
    with pytest.raises(LanceInvalidArgumentError):
        table.to_df(version=1, tag="x")
    with pytest.raises(LanceInvalidArgumentError):
        table.restore("1")
    # Names with quotes reach the procedures as literals: Lance's name check refuses them, nothing runs.
    for name in ["x', replace => true) --", "a`b", "it's"]:
        with pytest.raises(LanceInvalidArgumentError) as bad:
            table.tags.create(name)
        assert bad.value.getCondition() == "LANCE_INVALID_ARGUMENT"
    assert lance.dataset(str(path)).tags.list() == {}
    with pytest.raises(LanceInvalidArgumentError):
        LanceTable.for_name(any_spark, "t; DROP TABLE x")
    with pytest.raises(LanceError):
        table.branches.delete("never")
    assert lance.dataset(str(path)).version == 1
