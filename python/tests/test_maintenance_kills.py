"""Maintenance procedures SIGKILLed at random points (compaction, cleanup): the table must read at
a committed version with nothing missing, and the procedure must run again to the end afterwards.

Each round copies one pylance-made table of many small fragments with deletions, starts a Spark
application of its own (command_proc.py), sends it the CALL and kills the application and its
JVM (SIGKILL, the whole process group) at a random moment between the call and the time an
unkilled call took. pylance then judges: the latest version is the one before or the one the
procedure commits, every version from there on opens and holds the same rows, and a new call
finishes. Files a killed call wrote and no version names may remain (cleanup's business). For
cleanup (a history of HISTORY versions), each kill is timed from the start of the deletion
phase (the first manifest gone) so that most land while files are being deleted: every version
still listed opens and reads whole (manifests go before the files only they name), the latest
holds every row, and a new call leaves exactly the files a full cleanup leaves.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from collections import Counter
from pathlib import Path

import lance
import pyarrow as pa
import pytest

from commands import Commands

ROUNDS = 6
FRAGMENTS = 40
ROWS_PER_FRAGMENT = 25


def _build(uri: str) -> None:
    for i in range(FRAGMENTS):
        ids = range(i * ROWS_PER_FRAGMENT, (i + 1) * ROWS_PER_FRAGMENT)
        batch = pa.table({"id": pa.array(ids, pa.int64()), "s": pa.array([f"value-{j}" for j in ids])})
        lance.write_dataset(batch, uri, mode="append" if i else "create")
    lance.dataset(uri).delete("id % 7 = 0")


def _rows(uri: str, version: int | None = None) -> Counter:
    table = lance.dataset(uri, version=version).to_table()
    return Counter(zip(table.column("id").to_pylist(), table.column("s").to_pylist()))


def _compact(uri: str) -> str:
    return f"CALL lance.system.compact(table => '{uri}', target_rows_per_fragment => 200)"


def _cleanup(uri: str) -> str:
    return f"CALL lance.system.cleanup(table => '{uri}', older_than => '0 seconds', override => true)"


def _timed_call(sql: str, log: Path) -> float:
    """Runs `sql` in a fresh application, not killed; returns how long the call took."""
    app = Commands({}, log).ready()
    started = time.monotonic()
    answer = app.run({"sql": sql})
    took = time.monotonic() - started
    app.close()
    assert answer["ok"], answer
    return took


def _killed_call(sql: str, log: Path, delay: float) -> None:
    """Sends `sql` to a fresh application and SIGKILLs it `delay` seconds later."""
    app = Commands({}, log).ready()
    app.send({"sql": sql})
    time.sleep(delay)
    app.kill()


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> tuple[Path, int, Counter]:
    uri = tmp_path_factory.mktemp("kills") / "base.lance"
    _build(str(uri))
    return uri, lance.dataset(str(uri)).version, _rows(str(uri))


def _judge(uri: str, before: int, expected: Counter) -> int:
    """The table reads at `before` or at the version after it, every version from `before` on
    opens and holds `expected`; returns the latest version."""
    latest = lance.dataset(uri).version
    assert latest in (before, before + 1), f"latest version {latest}, expected {before} or {before + 1}"
    for v in range(before, latest + 1):
        assert _rows(uri, v) == expected, f"version {v} does not hold the table's rows"
    return latest


def test_compaction_killed_at_random_points_leaves_a_committed_table(base, tmp_path, spark):
    source, before, expected = base
    # One call not killed: how long a call takes in a fresh application, and that it commits.
    timed = tmp_path / "timed.lance"
    shutil.copytree(source, timed)
    took = _timed_call(_compact(str(timed)), tmp_path / "timed.log")
    assert _judge(str(timed), before, expected) == before + 1
    assert len(lance.dataset(str(timed)).get_fragments()) < FRAGMENTS

    rng = random.Random(20261128)
    outcomes = Counter()
    for r in range(ROUNDS):
        uri = tmp_path / f"round-{r}.lance"
        shutil.copytree(source, uri)
        _killed_call(_compact(str(uri)), tmp_path / f"round-{r}.log", rng.uniform(0, took * 1.1))
        latest = _judge(str(uri), before, expected)
        outcomes["committed" if latest > before else "not committed"] += 1
        # The procedure runs again to the end on what the kill left.
        spark.sql(_compact(str(uri))).collect()
        assert _judge(str(uri), latest, expected) in (latest, latest + 1)
        assert _rows(str(uri)) == expected
    # The kills fell both before and after commits often enough to matter; at least some before.
    assert outcomes["not committed"] > 0, outcomes


HISTORY = 300  # versions of the cleanup table: enough that deleting its garbage takes a while


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> tuple[Path, int, Counter]:
    """A pylance-made table of HISTORY versions: small appends, a delete every 25 versions and an
    overwrite at version 100, so that a cleanup has manifests, transaction, data and deletion
    files to remove."""
    uri = str(tmp_path_factory.mktemp("kills") / "history.lance")
    for v in range(1, HISTORY + 1):
        ids = range(v * 10, v * 10 + 10)
        batch = pa.table({"id": pa.array(ids, pa.int64()), "s": pa.array([f"value-{j}" for j in ids])})
        if v == 1 or v == 100:
            lance.write_dataset(batch, uri, mode="create" if v == 1 else "overwrite")
        elif v % 25 == 0:
            lance.dataset(uri).delete(f"id % 10 = {v % 10 + 1}")
        else:
            lance.write_dataset(batch, uri, mode="append")
    ds = lance.dataset(uri)
    assert ds.version == HISTORY
    return Path(uri), HISTORY, _rows(uri)


def _manifests(uri: Path) -> int:
    return sum(1 for n in os.listdir(uri / "_versions") if n.endswith(".manifest"))


def _files(uri: Path) -> set[str]:
    return {str(p.relative_to(uri)) for p in uri.rglob("*") if p.is_file()}


def _cleanup_watched(uri: Path, log: Path, kill_after: float | None) -> float:
    """Sends the cleanup to a fresh application and waits for its deletion phase: the moment the
    first manifest is gone (manifests go first). Then SIGKILLs it `kill_after` seconds later, or
    (None) waits for the answer; returns the seconds from the first deletion to the last."""
    app = Commands({}, log).ready()
    total = _manifests(uri)
    app.send({"sql": _cleanup(str(uri))})
    deadline = time.monotonic() + 240
    while _manifests(uri) == total:
        assert time.monotonic() < deadline and app.lines.empty(), f"no deletion started: {log.read_text()[-3000:]}"
        time.sleep(0.0005)
    started = time.monotonic()
    if kill_after is not None:
        time.sleep(kill_after)
        app.kill()
        return kill_after
    # Until the answer: the last moment a folder's count changed ends the deletion phase (the
    # answer itself comes later, after the result is collected).
    counts, ended = None, started
    while app.lines.empty():
        now = (_manifests(uri), len(os.listdir(uri / "data")), len(os.listdir(uri / "_transactions")))
        if now != counts:
            counts, ended = now, time.monotonic()
        time.sleep(0.0005)
    answer = app.answer()
    app.close()
    assert answer["ok"], answer
    return ended - started


def _every_listed_version_reads(uri: str, latest: int, expected: Counter) -> list[int]:
    versions = [v["version"] for v in lance.dataset(uri).versions()]
    assert versions[-1] == latest, versions
    for v in versions:
        lance.dataset(uri, version=v).to_table()  # opens and reads whole: no file it names is gone
    assert _rows(uri) == expected
    return versions


def test_cleanup_killed_at_random_points_leaves_every_listed_version_whole(history, tmp_path, spark):
    source, latest, expected = history
    # One call not killed: how long its deletion phase lasts, and what a full cleanup leaves.
    timed = tmp_path / "timed.lance"
    shutil.copytree(source, timed)
    deleting = _cleanup_watched(timed, tmp_path / "timed.log", None)
    assert _every_listed_version_reads(str(timed), latest, expected) == [latest]
    full = _files(timed)
    garbage = _files(source) - full
    assert len(garbage) > 2 * HISTORY, len(garbage)

    rng = random.Random(20261129)
    mid_deletion = 0
    for r in range(ROUNDS):
        uri = tmp_path / f"round-{r}.lance"
        shutil.copytree(source, uri)
        _cleanup_watched(uri, tmp_path / f"round-{r}.log", rng.uniform(0, deleting * 0.9))
        # Landed mid-deletion: some of the garbage is gone and some is left.
        left_garbage = _files(uri) & garbage
        mid_deletion += 0 < len(left_garbage) < len(garbage)
        _every_listed_version_reads(str(uri), latest, expected)
        spark.sql(_cleanup(str(uri))).collect()
        assert _every_listed_version_reads(str(uri), latest, expected) == [latest]
        assert _files(uri) == full, f"round {r}: {sorted(_files(uri) ^ full)[:10]}"
    print(f"cleanup kills that landed mid-deletion: {mid_deletion} of {ROUNDS} (deletion phase {deleting:.3f} s)")
    assert mid_deletion >= 3, mid_deletion
