"""Maintenance procedures SIGKILLed at random points (compaction, cleanup): the table must read at
a committed version with nothing missing, and the procedure must run again to the end afterwards.

Each round copies one pylance-made table of many small fragments with deletions, starts a Spark
application of its own (command_proc.py), sends it the CALL and kills the application and its
JVM (SIGKILL, the whole process group) at a random moment between the call and the time an
unkilled call took. pylance then judges: the latest version is the one before or the one the
procedure commits, every version from there on opens and holds the same rows, and a new call
finishes. Files a killed call wrote and no version names may remain (cleanup's business). For
cleanup: every version still listed opens and reads whole (manifests go before the files only
they name), the latest holds every row, and a new call leaves only the latest version.
"""

from __future__ import annotations

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


def _every_listed_version_reads(uri: str, latest: int, expected: Counter) -> list[int]:
    versions = [v["version"] for v in lance.dataset(uri).versions()]
    assert versions[-1] == latest, versions
    for v in versions:
        lance.dataset(uri, version=v).to_table()  # opens and reads whole: no file it names is gone
    assert _rows(uri) == expected
    return versions


def test_cleanup_killed_at_random_points_leaves_every_listed_version_whole(base, tmp_path, spark):
    source, latest, expected = base
    timed = tmp_path / "timed.lance"
    shutil.copytree(source, timed)
    took = _timed_call(_cleanup(str(timed)), tmp_path / "timed.log")
    assert _every_listed_version_reads(str(timed), latest, expected) == [latest]

    rng = random.Random(20261129)
    partly = 0
    for r in range(ROUNDS):
        uri = tmp_path / f"round-{r}.lance"
        shutil.copytree(source, uri)
        _killed_call(_cleanup(str(uri)), tmp_path / f"round-{r}.log", rng.uniform(0, took * 1.1))
        left = _every_listed_version_reads(str(uri), latest, expected)
        partly += 1 < len(left) < latest
        spark.sql(_cleanup(str(uri))).collect()
        assert _every_listed_version_reads(str(uri), latest, expected) == [latest]
    print(f"cleanup kills that left part of the history: {partly} of {ROUNDS}")
