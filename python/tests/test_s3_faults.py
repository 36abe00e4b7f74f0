"""Writes on S3 under network faults: Spark's S3A talks to the S3 test server through the fault
proxy (s3_fault_proxy.py), which loses the answer of a stored PUT, answers 503 SlowDown before
storing, or holds the answer past S3A's timeout; pylance, reading the server directly, judges.

For every kind of write, with each fault on its manifest PUT (and on the other files it writes):
- the call succeeds, or fails with LANCE_COMMIT_STATE_UNKNOWN or a class that says nothing was
  committed (a conflict or an I/O error);
- the table then holds exactly the rows the outcome says: the change once after a success, the
  old rows after a definite failure, one of the two after an unknown state; never a batch twice;
- every version the table lists opens and reads in full in pylance (no version names a file that
  is gone), indices included.
The last test has three applications append at once with a tenth of manifest answers lost.

S3A settings: Hadoop enforces at least 15 s for its request and socket timeouts, so the held
answer trips the shorter upload timeout (fs.s3a.connection.part.upload.timeout, which bounds
each PUT); retries are kept few and quick so that a fault costs seconds.
"""

from __future__ import annotations

import dataclasses
import threading
import uuid
from collections import Counter

import lance
import pyarrow as pa
import pytest
from pyarrow import fs as pafs

from commands import COMMAND_TIMEOUT_S, Commands
from conftest import s3_conf
from s3_fault_proxy import DATA, DELAY, DELETION, INDEX, LOSE, MANIFEST, SLOW_DOWN, TRANSACTION, FaultProxy

UNKNOWN = "LANCE_COMMIT_STATE_UNKNOWN"
NOTHING_COMMITTED = {"LANCE_COMMIT_CONFLICT", "LANCE_IO_ERROR"}
UPLOAD_TIMEOUT_S = 2
HOLD_S = UPLOAD_TIMEOUT_S + 1
FAULT_SETTINGS = {
    "fs.s3a.connection.part.upload.timeout": f"{UPLOAD_TIMEOUT_S}s",
    "fs.s3a.connection.request.timeout": "15s",
    "fs.s3a.connection.timeout": "15s",
    "fs.s3a.attempts.maximum": "2",
    "fs.s3a.retry.limit": "3",
    "fs.s3a.retry.interval": "100ms",
    "fs.s3a.retry.throttle.limit": "3",
    "fs.s3a.retry.throttle.interval": "100ms",
    # Data files past 5 MiB (the least S3 allows) go up in parts: the large append's.
    "fs.s3a.multipart.size": "5M",
    "fs.s3a.multipart.threshold": "5M",
}
def _conf(s3_server, proxy: FaultProxy, jars: str) -> dict:
    conf = s3_conf(dataclasses.replace(s3_server, endpoint=proxy.endpoint), jars)
    conf.update({f"spark.hadoop.{k}": v for k, v in FAULT_SETTINGS.items()})
    return conf


@pytest.fixture(scope="module")
def proxy(s3_server):
    with FaultProxy.started(s3_server.endpoint) as p:
        yield p


@pytest.fixture(scope="module")
def commands(s3_server, s3_jars, proxy, tmp_path_factory):
    c = Commands(_conf(s3_server, proxy, s3_jars), tmp_path_factory.mktemp("faults") / "spark.log").ready()
    yield c
    c.close()


# ---- the judge --------------------------------------------------------------------------

COLUMNS = ["id", "batch", "v"]
SCHEMA = pa.schema([("id", pa.int64()), ("batch", pa.int32()), ("v", pa.int64())])
BASE = [(i, 0, i) for i in range(20)]  # two fragments of 10
BATCH = [(100 + i, 1, i) for i in range(10)]
BATCH_SQL = "SELECT CAST(100 + id AS BIGINT) AS id, 1 AS batch, CAST(id AS BIGINT) AS v FROM range(10)"
# About 10 MB in one data file (one partition): a multipart upload. v scatters, so that it does
# not compress away.
LARGE_ROWS = 1_000_000
SCATTER = (2654435761, 2305843009213693951)
LARGE_SQL = (f"SELECT CAST(1000 + id AS BIGINT) AS id, 3 AS batch, CAST(id * {SCATTER[0]} % {SCATTER[1]} AS BIGINT) AS v "
             f"FROM range(0, {LARGE_ROWS}, 1, 1)")


def _table(rows) -> pa.Table:
    return pa.table({c: [r[k] for r in rows] for k, c in enumerate(COLUMNS)}, schema=SCHEMA)


def _rows(uri: str, opts: dict, version: int | None = None) -> Counter | None:
    try:
        ds = lance.dataset(uri, version=version, storage_options=opts)
    except ValueError as e:
        if "was not found" in str(e):
            return None  # no table
        raise
    t = ds.to_table(columns=COLUMNS)
    return Counter(zip(*(t.column(c).to_pylist() for c in COLUMNS)))


def _every_version_whole(uri: str, s3_server) -> None:
    """pylance opens every version the table lists, reads all of it and finds each index's files."""
    opts = s3_server.pylance_options()
    try:
        versions = [v["version"] for v in lance.dataset(uri, storage_options=opts).versions()]
    except ValueError as e:
        if "was not found" in str(e):
            return  # no table: nothing names anything
        raise
    fs = pafs.S3FileSystem(access_key=s3_server.access_key, secret_key=s3_server.secret_key, region=s3_server.region,
                           scheme="http", endpoint_override=s3_server.endpoint.removeprefix("http://"))
    root = uri.removeprefix("s3://")
    for v in versions:
        ds = lance.dataset(uri, version=v, storage_options=opts)
        try:
            ds.to_table()
        except Exception as e:
            raise AssertionError(f"version {v} of {uri} does not read: {e}") from e
        for index in ds.describe_indices():
            for segment in index.segments:
                files = fs.get_file_info(pafs.FileSelector(f"{root}/_indices/{segment.uuid}", allow_not_found=True))
                assert files, f"version {v} names index {index.name} ({segment.uuid}), whose files are gone"


def _diff(found: Counter | None, expected: Counter | None) -> str:
    """What `found` has more and less than `expected`, a few rows of each."""
    if found is None or expected is None:
        return f"{'no table' if found is None else f'{sum(found.values())} rows'} where " \
               f"{'no table' if expected is None else f'{sum(expected.values())} rows'} were expected"
    more, less = found - expected, expected - found
    return (f"{sum(more.values())} rows too many (e.g. {sorted(more.items())[:4]}), "
            f"{sum(less.values())} missing (e.g. {sorted(less.items())[:4]})")


def _judge(outcome: dict, uri: str, s3_server, before: Counter | None, after: Counter | None) -> Counter | None:
    """The outcome is allowed and the table holds what it says; returns the rows found."""
    found = _rows(uri, s3_server.pylance_options())
    if outcome["ok"]:
        assert found == after, f"the write succeeded, but the table has {_diff(found, after)}"
    elif outcome["condition"] == UNKNOWN:
        assert found in (before, after), f"commit state unknown; against the new state: {_diff(found, after)}"
    else:
        assert outcome["condition"] in NOTHING_COMMITTED, f"a failure of a class not allowed: {outcome}"
        assert found == before, f"the write failed ({outcome['condition']}), yet the table has {_diff(found, before)}"
    _every_version_whole(uri, s3_server)
    return found


# ---- the writes -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Write:
    """How to set a table up (`base`: pylance writes BASE; `zonemap`: and a ZONEMAP on id;
    `catalog`: Spark registers it as a table), the write, and the rows before and after."""
    run: object  # (commands, uri, table name) -> outcome
    base: bool = True
    zonemap: bool = False
    catalog: bool = False
    after: object = None  # rows before -> rows after


def _merge_after(rows):
    out = [(i, b, -1 if i % 5 == 0 else v) for i, b, v in rows]
    return out + [(i, 2, -1) for i in (20, 25, 30, 35)]


WRITES = {
    "append": Write(lambda c, uri, t: c.write(BATCH_SQL, uri, "append"), after=lambda rows: rows + BATCH),
    "txn_append": Write(lambda c, uri, t: c.write(BATCH_SQL, uri, "append", txnAppId="faults", txnVersion="1"),
                        after=lambda rows: rows + BATCH),
    "create_errorifexists": Write(lambda c, uri, t: c.write(BATCH_SQL, uri, "errorifexists"), base=False,
                                  after=lambda rows: BATCH),
    "create_ignore": Write(lambda c, uri, t: c.write(BATCH_SQL, uri, "ignore"), base=False, after=lambda rows: BATCH),
    "overwrite": Write(lambda c, uri, t: c.write(BATCH_SQL, uri, "overwrite"), after=lambda rows: BATCH),
    "delete": Write(lambda c, uri, t: c.sql(f"DELETE FROM {t} WHERE id % 3 = 0"), catalog=True,
                    after=lambda rows: [r for r in rows if r[0] % 3 != 0]),
    "update": Write(lambda c, uri, t: c.sql(f"UPDATE {t} SET v = v + 1000 WHERE id % 2 = 0"), catalog=True,
                    after=lambda rows: [(i, b, v + 1000 if i % 2 == 0 else v) for i, b, v in rows]),
    "merge": Write(lambda c, uri, t: c.sql(
        f"MERGE INTO {t} USING (SELECT CAST(id * 5 AS BIGINT) AS id, 2 AS batch, CAST(-1 AS BIGINT) AS v "
        f"FROM range(8)) s ON {t}.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *"),
        catalog=True, after=_merge_after),
    "alter_add_columns": Write(lambda c, uri, t: c.sql(f"ALTER TABLE {t} ADD COLUMNS (w INT)"), catalog=True,
                               after=lambda rows: rows),
    "large_append": Write(lambda c, uri, t: c.write(LARGE_SQL, uri, "append"),
                          after=lambda rows: rows + [(1000 + i, 3, i * SCATTER[0] % SCATTER[1]) for i in range(LARGE_ROWS)]),
    "zonemap_append": Write(lambda c, uri, t: c.write(BATCH_SQL, uri, "append"), zonemap=True,
                            after=lambda rows: rows + BATCH),
}

# (fault, what it does to the matching PUTs)
FAULTS = {
    "lost": dict(kind=LOSE),
    "slow_down": dict(kind=SLOW_DOWN),
    "held": dict(kind=DELAY, delay=HOLD_S, then=LOSE),
}

# The PUT each case spoils: every write's manifest; an append's data and transaction files, a
# DELETE's deletion files, the zone map's index files and the second (index) version's manifest,
# a large data file's parts and the completion of its upload.
CASES = [(w, f, "manifest", 0) for w in WRITES if w != "large_append" for f in FAULTS] + [
    ("append", "lost", "data", 0), ("append", "slow_down", "data", 0), ("append", "held", "data", 0),
    ("append", "lost", "transaction", 0), ("delete", "lost", "deletion", 0), ("delete", "held", "deletion", 0),
    ("zonemap_append", "lost", "index", 0), ("zonemap_append", "lost", "manifest", 1),
    ("zonemap_append", "held", "manifest", 1), ("large_append", "lost", "part", 0),
    ("large_append", "lost", "complete", 0)]
TARGETS = {"manifest": dict(match=MANIFEST), "data": dict(match=DATA), "transaction": dict(match=TRANSACTION),
           "deletion": dict(match=DELETION), "index": dict(match=INDEX),
           "part": dict(match=DATA, query=r"partNumber=.*uploadId=|uploadId=.*partNumber="),
           "complete": dict(match=DATA, method="POST", query=r"uploadId=")}


def _setup(write: Write, uri: str, name: str, commands: Commands, s3_server) -> Counter | None:
    opts = s3_server.pylance_options()
    if write.base:
        lance.write_dataset(_table(BASE), uri, max_rows_per_file=10, storage_options=opts)
        if write.zonemap:
            lance.dataset(uri, storage_options=opts).create_scalar_index("id", "ZONEMAP")
    if write.catalog:
        assert commands.sql(f"CREATE TABLE {name} USING lance LOCATION '{uri}'")["ok"]
    return _rows(uri, opts)


@pytest.mark.parametrize("kind, fault, target, skip", CASES, ids=[
    f"{w}-{f}-{t}{'-second' if s else ''}" for w, f, t, s in CASES])
def test_a_write_under_a_fault_commits_once_or_says_so(kind, fault, target, skip, commands, proxy, s3_server):
    write = WRITES[kind]
    uri = f"s3://{s3_server.bucket}/faults/{kind}-{fault}-{target}-{uuid.uuid4().hex[:8]}"
    name = f"f_{uuid.uuid4().hex[:12]}"
    before = _setup(write, uri, name, commands, s3_server)
    proxy.clear()
    rule = proxy.fail(skip=skip, **TARGETS[target], **FAULTS[fault])
    try:
        outcome = write.run(commands, uri, name)
    finally:
        proxy.clear()
    assert rule.fired == 1, f"the fault was not injected: {rule.seen} matching PUTs, outcome {outcome}"
    after = Counter(write.after(sorted(before.elements()) if before else []))
    found = _judge(outcome, uri, s3_server, before, after)
    ds = lance.dataset(uri, storage_options=s3_server.pylance_options()) if found is not None else None
    if kind == "alter_add_columns" and (outcome["ok"] or outcome["condition"] != UNKNOWN):
        assert ("w" in ds.schema.names) == outcome["ok"], f"{outcome}, and the schema is {ds.schema.names}"
    if kind == "txn_append" and outcome["ok"]:
        # Sent again, the same transaction is known as committed: nothing is added.
        again = commands.write(BATCH_SQL, uri, "append", txnAppId="faults", txnVersion="1")
        assert again["ok"], again
        assert _rows(uri, s3_server.pylance_options()) == after
    if kind == "zonemap_append" and outcome["ok"]:
        assert [i.name for i in ds.describe_indices()] == ["id_idx"]
    if write.catalog:
        commands.sql(f"DROP TABLE IF EXISTS {name}")


def test_a_manifest_put_refused_every_time_commits_nothing(commands, proxy, s3_server):
    """503 on every try: S3A gives up, the write fails, and the table is as it was."""
    uri = f"s3://{s3_server.bucket}/faults/refused-{uuid.uuid4().hex[:8]}"
    before = _setup(WRITES["append"], uri, "", commands, s3_server)
    proxy.clear()
    rule = proxy.fail(SLOW_DOWN, MANIFEST, times=None)
    try:
        outcome = commands.write(BATCH_SQL, uri, "append")
    finally:
        proxy.clear()
    assert rule.fired >= 2 and not outcome["ok"], outcome
    assert _judge(outcome, uri, s3_server, before, Counter(BASE + BATCH)) == before


def test_three_applications_append_with_a_tenth_of_manifest_answers_lost(s3_server, s3_jars, proxy, tmp_path):
    """Each append (writer, seq) is in the table exactly once if its writer was told it
    committed; absent if the writer got a failure that says nothing was committed; absent or once
    if the writer was told the state is unknown. Never twice, and any other failure fails the test."""
    uri = f"s3://{s3_server.bucket}/faults/three-{uuid.uuid4().hex[:8]}"
    opts = s3_server.pylance_options()
    rows, appends = 10, 6
    empty = pa.table({"writer": pa.array([], pa.int32()), "seq": pa.array([], pa.int32()), "i": pa.array([], pa.int64())})
    lance.write_dataset(empty, uri, storage_options=opts)
    proxy.clear()
    writers = [Commands(_conf(s3_server, proxy, s3_jars), tmp_path / f"writer-{w}.log") for w in range(3)]
    outcomes: dict[tuple[int, int], dict] = {}
    # Drawn from the proxy's seeded generator: of the first 18 manifest PUTs (one per append, more
    # after conflicts), the 13th and the 15th lose their answers, whichever writer sends them.
    rule = proxy.fail(LOSE, MANIFEST, times=None, probability=0.1)
    try:
        for w in writers:
            w.ready()  # started together, waited for in turn
        def append(w: int) -> None:
            for seq in range(appends):
                outcomes[(w, seq)] = writers[w].write(
                    f"SELECT {w} AS writer, {seq} AS seq, id AS i FROM range({rows})", uri, "append")

        threads = [threading.Thread(target=append, args=(w,)) for w in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(COMMAND_TIMEOUT_S * appends)
    finally:
        proxy.clear()
        for w in writers:
            w.close()
    assert len(outcomes) == 3 * appends, "a writer did not finish"
    assert rule.fired >= 1, f"no manifest answer was lost in {rule.seen} manifest PUTs"
    t = lance.dataset(uri, storage_options=opts).to_table(columns=["writer", "seq"])
    found = Counter(zip(t.column("writer").to_pylist(), t.column("seq").to_pylist()))
    for key, outcome in sorted(outcomes.items()):
        n = found.get(key, 0)
        if outcome["ok"]:
            assert n == rows, f"append {key} succeeded and holds {n} rows, not {rows}"
        elif outcome["condition"] == UNKNOWN:
            assert n in (0, rows), f"append {key} (state unknown) holds {n} rows"
        else:
            assert outcome["condition"] in NOTHING_COMMITTED, f"append {key}: a failure of a class not allowed: {outcome}"
            assert n == 0, f"append {key} failed ({outcome['condition']}) and yet holds {n} rows"
    assert set(found) <= set(outcomes), f"rows of appends nobody made: {set(found) - set(outcomes)}"
    _every_version_whole(uri, s3_server)
