"""DELETE, UPDATE and MERGE INTO from Spark SQL: pylance reads exactly the expected rows after
each statement, on tables pylance wrote (deletion files included) and on ours; a DELETE that
statistics decide runs no Spark job; a DELETE racing another process's appends loses nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import lance
import pyarrow as pa
import pytest

WRITER = Path(__file__).with_name("writer_proc.py")


def _rows(uri: str, columns=None) -> list[dict]:
    return lance.dataset(uri).to_table(columns=columns).sort_by("id").to_pylist()


@pytest.fixture()
def pylance_table(spark, tmp_path):
    """ids 0..29 in 3 fragments of 10, written by pylance, with rows 0-2 deleted by pylance."""
    uri = str(tmp_path / "t.lance")
    ids = pa.array(range(30), pa.int64())
    lance.write_dataset(pa.table({"id": ids, "name": pa.array([f"n{i}" for i in range(30)])}), uri, max_rows_per_file=10)
    lance.dataset(uri).delete("id < 3")
    spark.sql(f"CREATE TABLE t USING lance LOCATION '{uri}'")
    yield uri
    spark.sql("DROP TABLE IF EXISTS t")


def test_delete_update_merge_on_a_pylance_table(spark, pylance_table):
    uri = pylance_table
    spark.sql("DELETE FROM t WHERE id IN (5, 15, 16)")
    expected = {i: f"n{i}" for i in range(3, 30) if i not in (5, 15, 16)}
    assert {r["id"]: r["name"] for r in _rows(uri)} == expected
    ds = lance.dataset(uri)
    assert type(ds.get_transactions(1)[0].operation).__name__ == "Delete"
    # pylance deletes more in a fragment whose deletion file we wrote.
    ds.delete("id = 6")
    del expected[6]
    spark.sql("UPDATE t SET name = concat(name, '!') WHERE id >= 9 AND id <= 11")
    for i in (9, 10, 11):
        expected[i] += "!"
    assert {r["id"]: r["name"] for r in _rows(uri)} == expected
    assert type(lance.dataset(uri).get_transactions(1)[0].operation).__name__ == "Update"
    spark.createDataFrame([(10, "m10"), (40, "m40")], "id long, name string").createOrReplaceTempView("src")
    spark.sql("""MERGE INTO t USING src ON t.id = src.id
                 WHEN MATCHED THEN UPDATE SET name = src.name WHEN NOT MATCHED THEN INSERT *""")
    expected[10] = "m10"
    expected[40] = "m40"
    assert {r["id"]: r["name"] for r in _rows(uri)} == expected
    assert sorted(r.id for r in spark.sql("SELECT id FROM t").collect()) == sorted(expected)
    assert lance.dataset(uri).count_rows() == len(expected)


def test_a_delete_statistics_decide_runs_no_job(spark, tmp_path):
    uri = str(tmp_path / "z.lance")
    lance.write_dataset(pa.table({"id": pa.array(range(1000), pa.int64())}), uri, max_rows_per_file=250)
    lance.dataset(uri).create_scalar_index("id", "ZONEMAP")
    spark.sql(f"CREATE TABLE z USING lance LOCATION '{uri}'")
    try:
        sc = spark.sparkContext
        sc.setJobGroup("metadata-delete", "a DELETE answered from statistics")
        spark.sql("DELETE FROM z WHERE id < 500")
        assert sc.statusTracker().getJobIdsForGroup("metadata-delete") == []
        sc.setJobGroup("row-level-delete", "a DELETE that reads rows")
        spark.sql("DELETE FROM z WHERE id = 777")
        assert sc.statusTracker().getJobIdsForGroup("row-level-delete") != []
        sc.setLocalProperty("spark.jobGroup.id", None)
        ds = lance.dataset(uri)
        assert ds.to_table().column("id").to_pylist() == [i for i in range(500, 1000) if i != 777]
        deletes = [t.operation for t in ds.get_transactions(2)]
        assert [type(o).__name__ for o in deletes] == ["Delete", "Delete"]
        assert sorted(deletes[1].deleted_fragment_ids) == [0, 1] and deletes[1].updated_fragments == []
    finally:
        spark.sql("DROP TABLE IF EXISTS z")


def test_deletes_racing_another_process_appends_lose_nothing(spark, tmp_path):
    """A writer process appends 8 times while this session deletes the even i of writer 0 three times."""
    uri = str(tmp_path / "race.lance")
    spark.range(50).selectExpr("0 AS writer", "-1 AS seq", "id AS i").write.format("lance").save(uri)
    spark.sql(f"CREATE TABLE race USING lance LOCATION '{uri}'")
    env = {"PYTHONPATH": ":".join(sys.path)}
    writer = subprocess.Popen([sys.executable, str(WRITER), uri, "1", "8", "50"], stdout=subprocess.PIPE, text=True,
                              stderr=subprocess.DEVNULL, env={**__import__("os").environ, **env})
    try:
        assert writer.stdout.readline().strip() == "ready"
        for _ in range(3):
            spark.sql("DELETE FROM race WHERE writer = 0 AND i % 2 = 0")
            spark.sql(f"INSERT INTO race SELECT 0, 100, id FROM range(10)")
        assert writer.wait(600) == 0
    finally:
        writer.kill()
        spark.sql("DROP TABLE IF EXISTS race")
    t = lance.dataset(uri).to_table()
    rows = list(zip(t.column("writer").to_pylist(), t.column("seq").to_pylist(), t.column("i").to_pylist()))
    assert sorted(r for r in rows if r[0] == 1) == sorted((1, s, i) for s in range(8) for i in range(50))
    mine = [r for r in rows if r[0] == 0]
    # The first two inserts' even rows were deleted by the following DELETE; the last insert's stay.
    assert sorted(r for r in mine if r[1] == -1) == [(0, -1, i) for i in range(1, 50, 2)]
    assert len([r for r in mine if r[1] == 100]) == 5 + 5 + 10


def test_spark_and_pylance_deleting_rows_of_one_fragment_at_once_both_land(spark, tmp_path):
    """Spark deletes the ids = 0 mod 4 and pylance the ids = 1 mod 4 of one fragment, 10 statements
    each, at the same time: each side rebases its deletion file over the other's."""
    import threading

    uri = str(tmp_path / "both.lance")
    lance.write_dataset(pa.table({"id": pa.array(range(1000), pa.int64())}), uri)
    spark.sql(f"CREATE TABLE both_sides USING lance LOCATION '{uri}'")
    errors: list[BaseException] = []

    def pylance_deletes() -> None:
        try:
            for k in range(10):
                lance.dataset(uri).delete(f"id >= {k * 100} AND id < {k * 100 + 100} AND id % 4 = 1")
        except BaseException as e:  # noqa: BLE001 - reported by the assertion below
            errors.append(e)

    t = threading.Thread(target=pylance_deletes)
    t.start()
    try:
        for k in range(10):
            spark.sql(f"DELETE FROM both_sides WHERE id >= {k * 100} AND id < {k * 100 + 100} AND id % 4 = 0")
    finally:
        t.join()
        spark.sql("DROP TABLE IF EXISTS both_sides")
    assert not errors, errors
    ds = lance.dataset(uri)
    assert sorted(ds.to_table().column("id").to_pylist()) == [i for i in range(1000) if i % 4 in (2, 3)]
    ops = [type(x.operation).__name__ for x in ds.get_transactions(20)]
    assert ops == ["Delete"] * 20


def test_updated_rows_keep_their_stable_row_ids(spark, tmp_path):
    uri = str(tmp_path / "stable.lance")
    lance.write_dataset(pa.table({"id": pa.array(range(20), pa.int64()), "v": pa.array([0] * 20, pa.int64())}), uri,
                        max_rows_per_file=10, enable_stable_row_ids=True)
    before = lance.dataset(uri).to_table(with_row_id=True)
    ids_before = dict(zip(before.column("id").to_pylist(), before.column("_rowid").to_pylist()))
    spark.sql(f"CREATE TABLE stable USING lance LOCATION '{uri}'")
    try:
        spark.sql("UPDATE stable SET v = id * 10 WHERE id % 3 = 0")  # version 2
        spark.createDataFrame([(4, 44), (100, 1000)], "id long, v long").createOrReplaceTempView("s")
        spark.sql("MERGE INTO stable USING s ON stable.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    finally:
        spark.sql("DROP TABLE IF EXISTS stable")
    ds = lance.dataset(uri)
    assert ds.version == 3
    after = ds.to_table(columns=["id", "v", "_row_created_at_version", "_row_last_updated_at_version"], with_row_id=True)
    rows = {i: (v, r) for i, v, r in zip(after.column("id").to_pylist(), after.column("v").to_pylist(),
                                          after.column("_rowid").to_pylist())}
    assert {i: v for i, (v, _) in rows.items()} == {
        **{i: (i * 10 if i % 3 == 0 else 0) for i in range(20)}, 4: 44, 100: 1000}
    assert all(rows[i][1] == ids_before[i] for i in range(20)), "every old row kept its row id"
    assert rows[100][1] not in ids_before.values()
    assert len({r for _, r in rows.values()}) == 21
    # Row versions as Lance records them: an updated row keeps the version that created it and was
    # last updated by the statement's version; an inserted row was created by it.
    versions = {i: (c, u) for i, c, u in zip(after.column("id").to_pylist(), after.column("_row_created_at_version").to_pylist(),
                                             after.column("_row_last_updated_at_version").to_pylist())}
    assert versions == {**{i: (1, 2 if i % 3 == 0 else 1) for i in range(20)}, 4: (1, 3), 100: (3, 3)}

    def changed(begin, end):
        delta = lance.dataset(uri, version=end).delta(begin_version=begin, end_version=end)
        return [sorted(t.column("id").to_pylist()) if t.num_rows else []
                for t in (delta.get_inserted_rows().read_all(), delta.get_updated_rows().read_all())]
    assert changed(1, 2) == [[], [i for i in range(20) if i % 3 == 0]]
    assert changed(2, 3) == [[100], [4]]


def test_concurrent_merges_into_a_primary_key_table_insert_no_key_twice(tmp_path):
    """Three Spark applications (two full MERGEs, one insert-only) and pylance's merge-insert all
    insert overlapping new keys into a table with an unenforced primary key at the same moment:
    each key is inserted once (a loser of a race retries its MERGE; pylance retries its own), and
    every Spark commit recorded its inserted keys for pylance to check."""
    import os

    uri = str(tmp_path / "pk.lance")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False, metadata={"lance-schema:unenforced-primary-key": "true"}),
                        pa.field("who", pa.string())])
    lance.write_dataset(pa.table({"id": pa.array([0], pa.int64()), "who": pa.array(["seed"])}, schema=schema), uri)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, str(Path(__file__).with_name("merge_proc.py")), uri, str(first), "40", f"w{i}"] +
                              (["insert-only"] if i == 1 else []),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
             for i, first in enumerate((1, 21, 31))]
    try:
        for p in procs:
            assert p.stdout.readline().strip() == "ready"
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        theirs = pa.table({"id": pa.array(range(51, 81), pa.int64()), "who": pa.array(["pylance"] * 30)}, schema=schema)
        lance.dataset(uri).merge_insert("id").when_not_matched_insert_all().execute(theirs)
        outputs = [p.communicate(timeout=600)[0] for p in procs]
        assert all(p.returncode == 0 for p in procs), outputs
    finally:
        for p in procs:
            p.kill()
    ds = lance.dataset(uri)
    ids = ds.to_table().column("id").to_pylist()
    assert sorted(ids) == list(range(0, 81)), "every key once"
    assert all(type(t.operation).__name__ == "Update" for t in ds.get_transactions(ds.version - 1)), "merge-inserts, no plain append"


def test_updates_killed_at_random_points_leave_whole_versions(tmp_path):
    """An application runs UPDATE t SET v = v + 1 (every row, one commit each) and is SIGKILLed
    at a random point, four times: pylance then sees every row with the same v (no statement
    half applied), the rows all there, and v at least the number of statements reported done."""
    import os
    import random
    import signal
    import time

    uri = str(tmp_path / "k.lance")
    lance.write_dataset(pa.table({"id": pa.array(range(300), pa.int64()), "v": pa.array([0] * 300, pa.int64())}), uri,
                        max_rows_per_file=100)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    rng = random.Random(20)
    done_total = 0
    for _ in range(4):
        p = subprocess.Popen([sys.executable, str(Path(__file__).with_name("sql_proc.py")), uri, "1000", "UPDATE t SET v = v + 1"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, start_new_session=True)
        try:
            assert p.stdout.readline().strip() == "ready"
            time.sleep(rng.uniform(1.0, 6.0))
        finally:
            os.killpg(p.pid, signal.SIGKILL)
        done_total += sum(1 for line in p.stdout.read().splitlines() if line.startswith("done "))
        p.wait(60)
        t = lance.dataset(uri).to_table()
        assert sorted(t.column("id").to_pylist()) == list(range(300))
        vs = set(t.column("v").to_pylist())
        assert len(vs) == 1, f"a statement was half applied: values {sorted(vs)}"
        assert vs.pop() >= done_total
    assert done_total > 0, "no UPDATE finished before a kill: the kills were all too early"


def test_dml_on_s3_while_pylance_appends(tmp_path, s3_server, s3_jars):
    """On S3 (SeaweedFS, conditional PUT): a Spark application runs an UPDATE of the table's own
    rows four times while pylance appends four batches to the same table, then DELETE and MERGE.
    pylance, reading over S3, is the judge: every appended row there once, every original row
    updated by every UPDATE (none lost to a concurrent append), no id twice."""
    import os

    from conftest import s3_conf

    uri = f"s3://{s3_server.bucket}/dml/t.lance"
    opts = s3_server.pylance_options()
    lance.write_dataset(pa.table({"id": pa.array(range(30), pa.int64()), "v": pa.array([0] * 30, pa.int64())}), uri,
                        max_rows_per_file=10, storage_options=opts)
    lance.dataset(uri, storage_options=opts).delete("id < 3")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "SQL_PROC_CONF": json.dumps(s3_conf(s3_server, s3_jars))}
    script = str(Path(__file__).with_name("sql_proc.py"))
    log = tmp_path / "update.log"
    with open(log, "w") as err:
        p = subprocess.Popen([sys.executable, script, uri, "4", "UPDATE t SET v = v + 1 WHERE id < 1000"],
                             stdout=subprocess.PIPE, stderr=err, text=True, env=env)
    try:
        assert p.stdout.readline().strip() == "ready", log.read_text()
        for batch in range(4):
            ids = range(1000 + 10 * batch, 1010 + 10 * batch)
            lance.write_dataset(pa.table({"id": pa.array(ids, pa.int64()), "v": pa.array([0] * 10, pa.int64())}), uri,
                                mode="append", storage_options=opts)
        assert p.wait(600) == 0, log.read_text()
    finally:
        p.kill()
    t = lance.dataset(uri, storage_options=opts).to_table()
    got = dict(zip(t.column("id").to_pylist(), t.column("v").to_pylist()))
    assert len(got) == t.num_rows, "no id twice"
    assert {i: v for i, v in got.items() if i < 1000} == {i: 4 for i in range(3, 30)}
    assert sorted(i for i in got if i >= 1000) == list(range(1000, 1040))
    assert all(v == 0 for i, v in got.items() if i >= 1000)

    with open(log, "w") as err:
        p = subprocess.run([sys.executable, script, uri, "1", "DELETE FROM t WHERE id % 10 = 5",
                            "MERGE INTO t USING (SELECT id, 100 AS v FROM range(1030, 1050)) s ON t.id = s.id "
                            "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *"],
                           stdout=subprocess.PIPE, stderr=err, text=True, env=env, timeout=600)
    assert p.returncode == 0, log.read_text()
    expected = {i: v for i, v in got.items() if i % 10 != 5}
    expected.update({i: 100 for i in range(1030, 1050)})  # 1035, deleted just before, comes back inserted
    ds = lance.dataset(uri, storage_options=opts)
    t = ds.to_table()
    assert dict(zip(t.column("id").to_pylist(), t.column("v").to_pylist())) == expected
    assert t.num_rows == len(expected)
    assert [type(x.operation).__name__ for x in ds.get_transactions(2)] == ["Update", "Delete"]  # newest first
