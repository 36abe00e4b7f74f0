"""Many Spark applications writing one table at once, and writers killed at random points.

Each writer is a separate process with its own SparkContext and JVM (writer_proc.py): what
two users' pipelines are. pylance is the judge of what was committed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import lance
import pytest

from conftest import s3_conf

WRITER = Path(__file__).with_name("writer_proc.py")


class Writer:
    """A writer process; its `committed <seq>` lines are collected as they come."""

    def __init__(self, uri: str, writer: int, appends: int, rows: int, log: Path, conf: str | None = None):
        args = [sys.executable, str(WRITER), uri, str(writer), str(appends), str(rows)] + ([conf] if conf else [])
        # Spark's log goes to a file: a pipe nobody drains would stop the writer when it fills.
        self.log = log
        with open(log, "w") as err:
            # A session of its own: the writer's Spark JVM is a child of the Python process, and a
            # kill must take both, or the orphaned JVM goes on committing.
            self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True,
                                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        self.lines: list[str] = []
        self.ready = threading.Event()
        self.stderr = ""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.strip())
            if line.strip() == "ready":
                self.ready.set()
        self.ready.set()

    @property
    def committed(self) -> list[int]:
        return [int(l.split()[1]) for l in self.lines if l.startswith("committed ")]

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        finally:
            self.stderr = self.log.read_text()

    def kill(self) -> None:
        """SIGKILL the writer and its JVM at once (its whole process group)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # the group is gone already


def groups(uri: str, storage_options: dict | None = None) -> Counter:
    """Rows per (writer, seq) in the latest version, as pylance reads it."""
    t = lance.dataset(uri, storage_options=storage_options).to_table(columns=["writer", "seq"])
    return Counter(zip(t.column("writer").to_pylist(), t.column("seq").to_pylist()))


def eight_writers(uri: str, tmp_path: Path, conf: dict | None = None, storage_options: dict | None = None) -> None:
    """8 applications append 10 times each to `uri` at once: all 80 commits, every row once."""
    rows = 100
    writers = [Writer(uri, w, 10, rows, tmp_path / f"writer-{w}.log", json.dumps(conf) if conf else None)
               for w in range(8)]
    try:
        for w in writers:
            assert w.wait(900) == 0, w.stderr[-3000:]
    finally:
        for w in writers:
            w.kill()
    ds = lance.dataset(uri, storage_options=storage_options)
    # The first commit created the table; every other append is one version of its own.
    assert ds.version == 80
    assert len(ds.versions()) == 80
    assert groups(uri, storage_options) == Counter({(w, s): rows for w in range(8) for s in range(10)})
    ops = Counter(type(tx.operation).__name__ for tx in ds.get_transactions(80) if tx is not None)
    assert ops == Counter({"Append": 79, "Overwrite": 1}), ops


def test_eight_applications_append_ten_times_each(tmp_path):
    eight_writers(str(tmp_path / "t.lance"), tmp_path)


def test_eight_applications_append_ten_times_each_on_s3(tmp_path, s3_server, s3_jars):
    uri = f"s3://{s3_server.bucket}/eight/t.lance"  # one URI for both: spark-lance maps s3:// to S3A
    eight_writers(uri, tmp_path, s3_conf(s3_server, s3_jars), s3_server.pylance_options())


def test_writers_killed_at_random_points_leave_a_table_at_a_committed_version(tmp_path, spark):
    """Two writers at a time, each SIGKILLed at a random point; five rounds: 10 kills.

    Each writer is killed a random time after its k-th commit (k from 0 to 2, so that kills fall
    in the first job of a fresh JVM as well as in later jobs and commits).
    CommitProcessesSuite kills 20 committing JVMs more precisely and more cheaply."""
    uri = str(tmp_path / "t.lance")
    rows = 50
    rng = random.Random(19)
    committed: dict[int, set[int]] = {}
    for round_ in range(5):
        ws = {2 * round_ + k: Writer(uri, 2 * round_ + k, 1000, rows, tmp_path / f"writer-{2 * round_ + k}.log")
              for k in range(2)}
        try:
            for w in ws.values():
                assert w.ready.wait(300), w.log.read_text()[-3000:]
            for w in ws.values():
                after = rng.randrange(3)
                deadline = time.monotonic() + 300
                while len(w.committed) < after and w.proc.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.05)
                time.sleep(rng.uniform(0.0, 1.5))
                w.kill()
        finally:
            for w in ws.values():
                w.kill()
        for wid, w in ws.items():
            w.wait(60)
            committed[wid] = set(w.committed)
        if not any(p.suffix == ".manifest" for p in Path(uri, "_versions").glob("*")):
            assert not any(committed.values()), "commits were reported but the table has no version"
            continue  # killed before the first commit created the table
        g = groups(uri)
        for (wid, seq), n in g.items():
            assert n == rows, f"round {round_}: append {seq} of writer {wid} holds {n} rows, not {rows}"
        for wid in ws:
            seqs = sorted(s for (w, s) in g if w == wid)
            # Appends commit in order; the one a kill interrupted may or may not have landed.
            assert seqs == list(range(len(seqs))), f"writer {wid}: committed appends {seqs} have a gap"
            assert committed[wid] <= set(seqs), f"writer {wid} printed commits the table lacks"
            assert len(seqs) - len(committed[wid]) <= 1
    assert sum(len(c) for c in committed.values()) > 0, "no writer committed anything: the kills were all too early"
    # The table is whole: our reader agrees with pylance and a new append works.
    expected = groups(uri)
    ours = spark.read.format("lance").load(uri).groupBy("writer", "seq").count().collect()
    assert Counter({(r["writer"], r["seq"]): r["count"] for r in ours}) == expected
    spark.range(5).selectExpr("99 AS writer", "0 AS seq", "id AS i").write.format("lance").mode("append").save(uri)
    assert groups(uri)[(99, 0)] == 5
