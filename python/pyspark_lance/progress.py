"""A progress bar for the Spark jobs of a block of code, in classic PySpark and over Spark Connect.

``with pyspark_lance.progress(spark): table.compact()`` shows, while the block runs, the stage
being worked on (tasks done / total) and, in classic PySpark, the job's description: the
connector names its maintenance jobs, e.g. ``Lance compact <table>: rewrite 40 fragments (…) in
4 groups`` or ``Lance cleanup <table>: delete 1,200 data files``. ``LanceTable.compact`` and
``cleanup`` take ``progress=True`` for the same. No dependency is added.

Where the bar goes: in a Jupyter/IPython kernel, one line updated in place (an IPython display
handle when IPython is importable, else a carriage return); on a terminal, a line on stderr
redrawn with ``\\r``; elsewhere (stderr not a TTY, or ``out`` a file or ``io.StringIO``), one
line per change, so logs stay readable. The bar never fails the user's operation: an error while
polling or drawing is logged once (logger ``pyspark_lance.progress``) and the bar stops drawing.

How the jobs are found: in classic PySpark, the block's jobs carry a job tag of their own
(``SparkContext.addJobTag``, removed after) and a daemon thread polls the status tracker.
Over Spark Connect, a handler is registered with ``spark.registerProgressHandler`` (removed
after); the server reports stages and task counts, not job descriptions.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Iterator, TextIO

from pyspark.sql import SparkSession

__all__ = ["progress"]

_log = logging.getLogger("pyspark_lance.progress")


@dataclass(frozen=True)
class _Stage:
    """One stage as the bar shows it."""
    stage_id: int
    done: int
    total: int
    description: str | None = None


def _percent(done: int, total: int) -> int:
    return 100 if total <= 0 else int(100 * done / total)


def _line(stage: _Stage) -> str:
    text = f"stage {stage.stage_id}: {stage.done}/{stage.total} tasks ({_percent(stage.done, stage.total)}%)"
    return f"{stage.description} | {text}" if stage.description else text


def _in_notebook() -> bool:
    # A notebook kernel's shell has a kernel; a terminal IPython's has not (it gets the TTY bar).
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    try:
        ip = shell.get_ipython()
        return ip is not None and getattr(ip, "kernel", None) is not None
    except Exception:  # noqa: BLE001 - no kernel to ask: not a notebook
        return False


class _Renderer:
    """Draws the bar's line where it belongs; swallows its own errors after logging the first."""

    def __init__(self, out: TextIO | None) -> None:
        self._out = out if out is not None else sys.stderr
        self._handle: Any = None
        self._last = ""
        self._width = 0
        self._broken = False
        self._lock = threading.Lock()
        if out is None and _in_notebook():
            self._mode = "notebook"
            try:
                from IPython.display import display  # type: ignore[import-not-found]
                self._handle = display("", display_id=True)
            except Exception:  # noqa: BLE001 - no display handles: a carriage return redraws the cell's line
                self._handle = None
        else:
            isatty = getattr(self._out, "isatty", None)
            self._mode = "tty" if callable(isatty) and isatty() else "lines"

    def show(self, text: str, final: bool = False) -> None:
        with self._lock:
            if self._broken or (text == self._last and not final):
                return
            try:
                self._draw(text, final)
                self._last = text
            except Exception as error:  # noqa: BLE001 - the bar must never fail the user's operation
                self._broken = True
                _log.warning("the progress bar stopped drawing: %s", error)

    def _draw(self, text: str, final: bool) -> None:
        if self._mode == "notebook" and self._handle is not None:
            self._handle.update(text)
        elif self._mode in ("tty", "notebook"):
            pad = " " * max(0, self._width - len(text))
            self._out.write("\r" + text + pad + ("\n" if final else ""))
            self._width = 0 if final else len(text)
            self._out.flush()
        elif text != self._last:
            self._out.write(text + "\n")
            self._out.flush()


class _Tracker:
    """What the bar knows: every stage seen, in order, and the job descriptions."""

    def __init__(self, renderer: _Renderer) -> None:
        self._renderer = renderer
        self._stages: dict[int, _Stage] = {}
        # Over Connect the server reports on a clock, not when an operation ends: the last report
        # of a stage may predate its last tasks. The block ending without an error says every
        # operation in it succeeded, so every stage that had started ran to the end.
        self.reports_may_lag = False
        self._lock = threading.Lock()

    def seen(self, stages: list[_Stage]) -> None:
        changed = []
        with self._lock:
            for stage in stages:
                known = self._stages.get(stage.stage_id)
                if stage.description is None and known is not None:
                    stage = _Stage(stage.stage_id, stage.done, stage.total, known.description)
                if known != stage:
                    self._stages[stage.stage_id] = stage
                    changed.append(stage)
        # Every change is drawn, in stage order: two jobs may both end between two polls.
        for stage in changed:
            self._renderer.show(_line(stage))

    def finish(self, failed: BaseException | None) -> None:
        with self._lock:
            # A stage of which no task finished was skipped (its output reused) or cut short by a failure.
            stages = [s for s in self._stages.values() if s.done > 0 or failed is not None]
        if failed is None and self.reports_may_lag:
            stages = [_Stage(s.stage_id, s.total, s.total, s.description) for s in self._stages.values()]
        done, total = sum(s.done for s in stages), sum(s.total for s in stages)
        if failed is not None:
            text = f"failed after {len(stages)} stages, {done}/{total} tasks: {type(failed).__name__}"
        elif not stages and self.reports_may_lag:
            text = "done: the server reported no running stage"
        elif not stages:
            text = "done: no Spark job ran"
        else:
            text = f"done: {len(stages)} stages, {done}/{total} tasks ({_percent(done, total)}%)"
        self._renderer.show(text, final=True)


def _is_connect(spark: SparkSession) -> bool:
    try:
        from pyspark.sql.connect.session import SparkSession as ConnectSession
    except Exception:  # noqa: BLE001 - no Connect client installed: a classic session
        return False
    return isinstance(spark, ConnectSession)


@contextlib.contextmanager
def _classic(spark: SparkSession, tracker: _Tracker, interval: float) -> Iterator[None]:
    sc = spark.sparkContext
    tag = f"spark-lance-progress-{uuid.uuid4().hex}"
    status = sc.statusTracker()
    jvm_status = sc._jsc.sc().statusTracker()  # noqa: SLF001 - the Scala tracker finds jobs by tag
    store = sc._jsc.sc().statusStore()  # noqa: SLF001 - the only place that keeps a job's description
    descriptions: dict[int, str | None] = {}
    stop = threading.Event()

    def description(job_id: int) -> str | None:
        if job_id not in descriptions:
            try:
                found = store.job(job_id).description()
                descriptions[job_id] = found.get() if found.isDefined() else None
            except Exception:  # noqa: BLE001 - a job the store no longer keeps shows without its description
                descriptions[job_id] = None
        return descriptions[job_id]

    def poll() -> None:
        stages = []
        for job_id in sorted(jvm_status.getJobIdsForTag(tag)):
            job = status.getJobInfo(job_id)
            if job is None:
                continue
            for stage_id in sorted(job.stageIds):
                info = status.getStageInfo(stage_id)
                # A stage with no task started or done is pending or skipped (its output reused): no work to show.
                if info is not None and info.numTasks > 0 and (info.numCompletedTasks > 0 or info.numActiveTasks > 0):
                    stages.append(_Stage(stage_id, info.numCompletedTasks, info.numTasks, description(job_id)))
        tracker.seen(stages)

    failures = [0]

    def safe_poll() -> None:
        try:
            poll()
        except Exception as error:  # noqa: BLE001 - polling must not fail the block; logged once
            failures[0] += 1
            if failures[0] == 1:
                _log.warning("could not poll Spark's status tracker: %s", error)

    def loop() -> None:
        while not stop.wait(interval):
            safe_poll()

    sc.addJobTag(tag)
    thread = threading.Thread(target=loop, name="pyspark-lance-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        sc.removeJobTag(tag)
        safe_poll()  # the final counts of the jobs that ended between two polls


class _ConnectHandler:
    """A Connect progress handler (``pyspark.sql.connect.shell.progress.ProgressHandler``'s call)."""

    def __init__(self, tracker: _Tracker) -> None:
        self._tracker = tracker

    def __call__(self, stages: Any, inflight_tasks: int, operation_id: str | None, done: bool) -> None:
        try:
            # A stage reported with no task finished nor running is pending or skipped: not shown yet.
            self._tracker.seen([_Stage(s.stage_id, s.num_completed_tasks, s.num_tasks) for s in (stages or [])
                                if s.num_tasks > 0 and (s.num_completed_tasks > 0 or inflight_tasks > 0)])
        except Exception as error:  # noqa: BLE001 - a handler error would surface in the user's query
            _log.warning("progress handler failed: %s", error)


# How often a Connect server reports a running operation's stages (a session conf). The server
# sends no report when an operation ends before the first one is due, so the block asks for one
# every 50 ms at most: with the default (seconds), a short compaction would show nothing.
_REPORT_INTERVAL = "spark.connect.progress.reportInterval"


@contextlib.contextmanager
def _connect(spark: SparkSession, tracker: _Tracker, interval: float) -> Iterator[None]:
    handler = _ConnectHandler(tracker)
    tracker.reports_may_lag = True
    previous = spark.conf.get(_REPORT_INTERVAL, None)
    spark.conf.set(_REPORT_INTERVAL, f"{max(1, int(min(interval, 0.05) * 1000))}ms")
    spark.registerProgressHandler(handler)  # type: ignore[arg-type]
    try:
        yield
    finally:
        spark.removeProgressHandler(handler)  # type: ignore[arg-type]
        if previous is None:
            spark.conf.unset(_REPORT_INTERVAL)
        else:
            spark.conf.set(_REPORT_INTERVAL, previous)


@contextlib.contextmanager
def progress(spark: SparkSession, out: TextIO | None = None, interval: float = 0.5) -> Iterator[None]:
    """Shows the progress of the Spark jobs run inside the ``with`` block, then a final line.

    ``out``: where to draw (default: the notebook's output in a Jupyter kernel, else stderr); a
    stream that is not a terminal gets one line per change, e.g.
    ``Lance compact /data/t: rewrite 8 fragments (800 rows) in 2 groups | stage 3: 1/2 tasks (50%)``,
    and at the end ``done: 2 stages, 4/4 tasks (100%)`` (or ``failed after ...`` when the block
    raised; the exception propagates unchanged). ``interval``: seconds between two polls of
    the status tracker in classic PySpark, between two reports of the server over Connect (the
    block sets the session's ``spark.connect.progress.reportInterval`` to it, 50 ms at most, and
    back after; an operation shorter than that may end before the server reports it).

    Only the jobs the block starts are shown: in classic PySpark, those of the calling thread (the
    block's own job tag); over Connect, every operation of ``spark`` while the block runs.
    """
    if not isinstance(interval, (int, float)) or isinstance(interval, bool) or interval <= 0:
        raise ValueError(f"interval must be a positive number of seconds, not {interval!r}")
    tracker = _Tracker(_Renderer(out))
    watch: Callable[[], contextlib.AbstractContextManager[None]] = (
        (lambda: _connect(spark, tracker, interval)) if _is_connect(spark) else (lambda: _classic(spark, tracker, interval)))
    failed: BaseException | None = None
    try:
        with watch():
            yield
    except BaseException as error:
        failed = error
        raise
    finally:
        tracker.finish(failed)


def optional(spark: SparkSession, enabled: bool) -> contextlib.AbstractContextManager[None]:
    """:func:`progress` when ``enabled``, else nothing (the table API's ``progress=`` argument)."""
    if not isinstance(enabled, bool):
        raise TypeError(f"progress must be True or False, not {enabled!r}")
    return progress(spark) if enabled else contextlib.nullcontext()
