"""The progress bar (pyspark_lance.progress and progress=True), in classic PySpark and over Spark Connect."""

from __future__ import annotations

import datetime as dt
import io
import re
import threading

import lance
import pytest

import pyspark_lance
from pyspark_lance import LanceTable

STAGE = re.compile(r"stage \d+: (\d+)/(\d+) tasks \((\d+)%\)")
FINAL = re.compile(r"done: (\d+) stages, (\d+)/(\d+) tasks \(100%\)")


def _table(spark, path, fragments, rows_per_fragment=1):
    if rows_per_fragment == 1:
        for i in range(fragments):
            spark.createDataFrame([(i, f"r{i}")], "id BIGINT, name STRING").write.format("lance") \
                .mode("append" if i else "error").save(str(path))
    else:  # one write, a fragment per maxRowsPerFile rows
        spark.range(fragments * rows_per_fragment).repartition(1).selectExpr("id", "concat('r', id) AS name") \
            .write.format("lance").option("maxRowsPerFile", rows_per_fragment).save(str(path))
    return LanceTable.for_path(spark, str(path))


def _progress_threads():
    return [t for t in threading.enumerate() if t.name == "pyspark-lance-progress"]


def _assert_bar(text, *description):
    updates = [tuple(int(x) for x in m.groups()) for m in STAGE.finditer(text)]
    assert updates, text
    assert all(0 <= done <= total and total > 0 for done, total, _ in updates), text
    lines = text.strip().splitlines()
    final = FINAL.fullmatch(lines[-1])
    assert final, text
    done, total = int(final.group(2)), int(final.group(3))
    assert done == total > 0
    # Classic only: Connect's progress reports carry no job description.
    assert all(part in text for part in description), text


def test_compaction_and_cleanup_in_a_progress_block(any_spark, tmp_path):
    classic = "connect" not in type(any_spark).__module__
    path = tmp_path / "p.lance"
    table = _table(any_spark, path, 4)
    out = io.StringIO()
    with pyspark_lance.progress(any_spark, out=out, interval=0.05):
        result = table.compact(target_rows_per_fragment=2)
    assert (result["fragments_removed"], result["fragments_added"]) == (4, 2)
    assert len(lance.dataset(str(path)).get_fragments()) == 2
    # The rewrite is one Spark job with a task per group: 2 groups, 2 tasks.
    _assert_bar(out.getvalue(), *([f"Lance compact lance.`{path}`@v4: rewrite 4 fragments (4 rows) in 2 groups"] if classic else []))
    assert "stage" in out.getvalue() and re.search(r"/2 tasks", out.getvalue())

    out = io.StringIO()
    with pyspark_lance.progress(any_spark, out=out, interval=0.05):
        cleaned = table.cleanup(older_than=dt.timedelta(0), override=True)
    assert cleaned["versions_removed"] == 4 and cleaned["files_removed"] > 0
    assert [v["version"] for v in lance.dataset(str(path)).versions()] == [5]
    _assert_bar(out.getvalue(), *([f"Lance cleanup lance.`{path}`@v5: delete 4 manifests of removed versions", "delete 8 files"] if classic else []))
    assert not _progress_threads()


def test_progress_true_draws_on_stderr_and_nothing_without(any_spark, tmp_path, capsys):
    quiet_table = _table(any_spark, tmp_path / "quiet.lance", 3)
    # Enough rows for the rewrite to outlast a Connect server's first progress report.
    table = _table(any_spark, tmp_path / "q.lance", 20, 5000)
    capsys.readouterr()
    assert quiet_table.compact()["fragments_added"] == 1
    table.cleanup(older_than=dt.timedelta(0), override=True, dry_run=True)
    quiet = capsys.readouterr()
    assert not STAGE.search(quiet.err + quiet.out) and "done:" not in quiet.err + quiet.out

    assert table.compact(progress=True)["fragments_added"] == 1
    _assert_bar(capsys.readouterr().err)
    # A dry run reads manifests on the driver and runs no Spark job: the bar says so.
    table.cleanup(older_than=dt.timedelta(0), override=True, dry_run=True, progress=True)
    assert capsys.readouterr().err.strip().splitlines()[-1] in \
        ("done: no Spark job ran", "done: the server reported no running stage")
    with pytest.raises(TypeError):
        table.compact(progress="yes")


def test_an_exception_in_the_block_stops_the_bar(any_spark, tmp_path):
    table = _table(any_spark, tmp_path / "e.lance", 2)
    out = io.StringIO()
    with pytest.raises(ZeroDivisionError):
        with pyspark_lance.progress(any_spark, out=out, interval=0.05):
            table.to_df().count()
            1 / 0  # noqa: B018
    assert out.getvalue().strip().splitlines()[-1].startswith("failed after")
    assert "ZeroDivisionError" in out.getvalue()
    assert not _progress_threads()
    if "connect" in type(any_spark).__module__:
        assert any_spark._client._progress_handlers == []  # noqa: SLF001
        assert any_spark.conf.get("spark.connect.progress.reportInterval", None) is None
    else:
        assert not any(t.startswith("spark-lance-progress-") for t in any_spark.sparkContext.getJobTags())
    # After the block, nothing more is drawn.
    before = out.getvalue()
    table.to_df().count()
    assert out.getvalue() == before


def test_a_broken_stream_never_fails_the_operation(any_spark, tmp_path, caplog):
    class Broken(io.StringIO):
        def write(self, text):
            raise OSError("stream closed")

    table = _table(any_spark, tmp_path / "b.lance", 2)
    with pyspark_lance.progress(any_spark, out=Broken(), interval=0.05):
        assert table.compact()["fragments_added"] == 1
    assert len(lance.dataset(str(tmp_path / "b.lance")).get_fragments()) == 1
    assert [r.message for r in caplog.records if r.name == "pyspark_lance.progress"] == \
        ["the progress bar stopped drawing: stream closed"]


def test_a_terminal_gets_one_line_redrawn_in_place():
    from pyspark_lance.progress import _Renderer

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    out = Terminal()
    bar = _Renderer(out)
    bar.show("stage 1: 1/4 tasks (25%)")
    bar.show("stage 1: 1/4 tasks (25%)")  # unchanged: not drawn again
    bar.show("stage 1: 4/4 tasks (100%)")
    bar.show("done", final=True)
    # Each draw returns to the line's start and pads over the longer line it replaces; the last ends the line.
    assert out.getvalue() == "\rstage 1: 1/4 tasks (25%)\rstage 1: 4/4 tasks (100%)\rdone" + " " * 21 + "\n"
