"""Spark DML benchmark: DELETE, UPDATE and MERGE INTO on a Lance table against a Delta table.

Uses the N-row scalar table of bench/spark_bench.py (generated there once and cached under
target/bench/spark/rows-<N>/): pylance's copy, which has a ZONEMAP and a BTREE index on id and
1,000,000-row fragments, and the same rows written once as a Delta table from the Parquet copy
(cached under target/bench/dml/rows-<N>/). One local[2] SparkSession (6g driver) carries both
connectors: ours with its session catalog, and delta-spark from Maven (DELTA_PACKAGE, resolved
once into an Ivy home of its own under the user's cache, then passed as plain jars). Delta's
catalog cannot be the session catalog next to ours, and without it Spark SQL cannot address a
Delta table by path (`delta.`/path`` fails with UNSUPPORTED_DATASOURCE_FOR_DIRECT_QUERY), so the
Delta side runs the same statements through Delta's own API (io.delta.tables.DeltaTable.forPath,
over py4j), the Lance side as SQL on `CREATE TABLE lance_t USING lance LOCATION '<copy>'`.

Statements (ids are 0..N-1, sorted):
- DELETE of 0.1% of the rows: one id range;
- UPDATE of 1%: SET f1 = f1 + 1 on one id range;
- MERGE of a 100,000-row source: half its ids exist (a range: matched rows are updated), half
  are new (inserted);
- DELETE of whole fragments: id below the end of the first fifth of the Lance table's
  fragments (2,000,000 at 10 M rows; the whole table when it has a single fragment, as at 1 M).
  The Lance side must run no Spark job for it.

Each run of a statement starts from a fresh copy of each table (copied, not timed) that the
session has read once (a count: Delta builds its log snapshot then), and only the statement is
timed: --warmups runs (1), then the best of --reps (3). After each run both tables are compared
(row count, sum(id), sum(f1) and the sum of a hash of every row) and the count is checked
against the expected one. Every statement runs in a job group of its own; the Spark jobs (and
their tasks) each side started are counted with the status tracker. The first warm-up samples
JVM memory (bench/spark_bench.py's sampler). --delta-dv adds a second Delta table with deletion
vectors enabled (Delta's merge-on-read mode, the closest to Lance's deletion files).

Usage:
    python bench/dml_bench.py                  # 10,000,000 rows
    python bench/dml_bench.py --rows 1000000   # quick mode
    options: --reps 3, --warmups 1, --merge-rows 100000, --delta-dv, --jar PATH
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import spark_bench as sb  # noqa: E402  (shares the data, the session set-up and the timers)

OUT = sb.OUT.parent / "dml"
# delta-spark's Maven artifact is named per Spark minor line; this one resolves for Spark 4.2.
DELTA_PACKAGE = "io.delta:delta-spark_4.2_2.13:4.4.0"
DELTA_IVY = Path.home() / ".cache" / "spark-lance" / "ivy-delta"
LANCE_TABLE = "lance_t"
MERGE_SOURCE = "dml_source"
CHECKSUM = ("count(*), sum(id), sum(f1), "
            "sum(cast(hash(id, f1, f2, f3, i1, i2, s, cat) AS BIGINT))")


def delta_jars() -> str:
    """delta-spark and its dependencies as a `spark.jars` list, resolved from Maven on first use.

    Resolution runs in a Spark session of its own, into an Ivy home of its own, so that the
    benchmark's session starts from plain jars (as python/tests/test_concurrent_writes.py does
    for the S3 jars)."""
    jars = DELTA_IVY / "jars"
    if not any(jars.glob("*.jar")):
        print(f"resolving {DELTA_PACKAGE} into {DELTA_IVY} ...")
        code = ("import os, sys; from pyspark.sql import SparkSession; "
                "os.environ.setdefault('SPARK_LOCAL_IP', '127.0.0.1'); "
                "SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false')"
                ".config('spark.jars.packages', sys.argv[1]).config('spark.jars.ivy', sys.argv[2])"
                ".getOrCreate().stop()")
        subprocess.run([sys.executable, "-c", code, DELTA_PACKAGE, str(DELTA_IVY)], check=True,
                       timeout=900, capture_output=True)
    return ",".join(str(j) for j in sorted(jars.glob("*.jar")))


def ensure_delta(spark, parquet: Path, rows: int, deletion_vectors: bool) -> Path:
    """The benchmark rows as a Delta table, written once from the Parquet copy and kept."""
    name = "scalar-dv.delta" if deletion_vectors else "scalar.delta"
    path = OUT / f"rows-{rows}" / name
    done = path / "_bench_complete"
    if done.is_file():
        return path
    if path.exists():
        shutil.rmtree(path)
    key = "spark.databricks.delta.properties.defaults.enableDeletionVectors"
    spark.conf.set(key, str(deletion_vectors).lower())
    try:
        spark.read.parquet(str(parquet)).write.format("delta").save(str(path))
    finally:
        spark.conf.unset(key)
    done.write_text(dt.datetime.now().isoformat(timespec="seconds") + "\n")
    return path


def whole_fragment_bound(lance_uri: Path) -> tuple[int, int, int]:
    """(bound, fragments covered, fragments): `id < bound` covers the first fifth of the
    fragments exactly (ids are written in order, so fragment k holds the k-th id range)."""
    import lance

    frags = lance.dataset(str(lance_uri)).get_fragments()
    k = max(1, round(len(frags) / 5))
    return sum(f.count_rows() for f in frags[:k]), k, len(frags)


def statements(rows: int, merge_rows: int, bound: int) -> list[dict]:
    """What each statement does, in SQL for Lance and as Delta API calls, and its effect."""
    a, b, c = int(rows * 0.37), int(rows * 0.55), int(rows * 0.73)
    nd, nu, half = rows // 1000, rows // 100, merge_rows // 2
    return [
        {"key": "delete", "name": f"DELETE 0.1%: id BETWEEN {a} AND {a + nd - 1}",
         "cond": f"id BETWEEN {a} AND {a + nd - 1}", "affected": nd, "count": rows - nd},
        {"key": "update", "name": f"UPDATE 1%: SET f1 = f1 + 1 WHERE id BETWEEN {b} AND {b + nu - 1}",
         "cond": f"id BETWEEN {b} AND {b + nu - 1}", "set": {"f1": "f1 + 1"}, "affected": nu,
         "count": rows},
        {"key": "merge", "name": f"MERGE {merge_rows:,}-row source: {half:,} matched (update), "
                                 f"{merge_rows - half:,} new (insert)",
         "matched": (c, c + half), "new": (rows, rows + merge_rows - half),
         "affected": merge_rows, "count": rows + merge_rows - half},
        {"key": "delete_fragments", "name": f"DELETE whole fragments: id < {bound}",
         "cond": f"id < {bound}", "affected": bound, "count": rows - bound},
    ]


def merge_source(spark, st: dict):
    """The MERGE source as a cached DataFrame of the target's schema, registered as a view."""
    (m0, m1), (n0, n1) = st["matched"], st["new"]
    df = (spark.range(m0, m1).union(spark.range(n0, n1))
          .selectExpr("id", "id * 0.001 AS f1", "0.0D AS f2", "1.0D AS f3",
                      "CAST(id % 1000 AS INT) AS i1", "7 AS i2", "concat('merged-', id) AS s",
                      "'merged' AS cat")
          .cache())
    df.count()
    df.createOrReplaceTempView(MERGE_SOURCE)
    return df


def lance_action(spark, st: dict):
    if st["key"] == "merge":
        sql = (f"MERGE INTO {LANCE_TABLE} AS t USING {MERGE_SOURCE} AS s ON t.id = s.id "
               "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    elif "set" in st:
        sets = ", ".join(f"{k} = {v}" for k, v in st["set"].items())
        sql = f"UPDATE {LANCE_TABLE} SET {sets} WHERE {st['cond']}"
    else:
        sql = f"DELETE FROM {LANCE_TABLE} WHERE {st['cond']}"
    return lambda: spark.sql(sql)


def delta_action(spark, st: dict, path: Path, source):
    """The statement through Delta's API (DeltaTable.forPath), the JVM side over py4j."""
    jvm = spark.sparkContext._jvm

    def table():
        return jvm.io.delta.tables.DeltaTable.forPath(spark._jsparkSession, str(path))

    if st["key"] == "merge":
        return lambda: (table().alias("t").merge(source._jdf.alias("s"), "t.id = s.id")
                        .whenMatched().updateAll().whenNotMatched().insertAll().execute())
    if "set" in st:
        def update():
            sets = jvm.java.util.HashMap()
            for k, v in st["set"].items():
                sets.put(k, v)
            table().updateExpr(st["cond"], sets)
        return update
    return lambda: table().delete(st["cond"])


def fresh_copy(master: Path, dest: Path) -> Path:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(master, dest)
    return dest


def jobs_and_tasks(sc, group: str) -> tuple[int, int]:
    """How many Spark jobs the statement in job group `group` started, and their tasks."""
    tracker = sc.statusTracker()
    jobs = tracker.getJobIdsForGroup(group)
    tasks = 0
    for job in jobs:
        info = tracker.getJobInfo(job)
        for stage in (info.stageIds if info else []):
            st = tracker.getStageInfo(stage)
            tasks += st.numTasks if st else 0
    return len(jobs), tasks


def run_statement(spark, st: dict, sides: dict, source, reps: int, warmups: int,
                  sampler, probe) -> dict:
    """Warm-ups and timed runs of one statement on each side, each on fresh copies."""
    sc = spark.sparkContext
    runs: dict[str, list[dict]] = {s: [] for s in sides}
    checks = []
    work = OUT / "runs"
    for i in range(warmups + reps):
        timed = i >= warmups
        # Rotate which side goes first, so that neither always runs right after the copying.
        order = list(sides)[i % len(sides):] + list(sides)[:i % len(sides)]
        answers = {}
        for side in order:
            dest = fresh_copy(sides[side], work / f"{st['key']}-{i}-{side}")
            if side == "lance":
                spark.sql(f"DROP TABLE IF EXISTS {LANCE_TABLE}")
                spark.sql(f"CREATE TABLE {LANCE_TABLE} USING lance LOCATION '{dest}'")
                spark.sql(f"SELECT count(*) FROM {LANCE_TABLE}").collect()
                action = lance_action(spark, st)
            else:
                # Delta keeps a table's state (its DeltaLog snapshot) per path once read; a first
                # access rebuilds it with Spark jobs. Reading the count first puts the statement
                # on a table the session knows, on both sides, as a pipeline's DML usually is.
                spark.read.format("delta").load(str(dest)).count()
                action = delta_action(spark, st, dest, source)
            group = f"dml-{st['key']}-{side}-{i}"
            sc.setJobGroup(group, f"{st['name']} on {side}")
            run: dict = {}
            try:
                if i == 0 and sampler is not None:
                    def sampled(action=action, run=run):
                        t0 = time.perf_counter()  # the sampler's System.gc() not included
                        action()
                        run["s"] = time.perf_counter() - t0
                    run["memory"] = sampler.run(sampled)
                else:
                    s0 = probe.snapshot()
                    t0 = time.perf_counter()
                    action()
                    run["s"] = time.perf_counter() - t0
                    run["other_cores"] = probe.cores(s0, probe.snapshot(), run["s"])
            except Exception as e:  # noqa: BLE001 - keep going; report the failure
                run["error"] = str(e).strip().splitlines()[0][:300]
                print(f"  {side:8s} {st['name']}: FAILED {run['error']}")
            finally:
                sc.setLocalProperty("spark.jobGroup.id", None)
            run["jobs"], run["tasks"] = jobs_and_tasks(sc, group)
            if "error" not in run:
                if side != "lance":
                    spark.read.format("delta").load(str(dest)).createOrReplaceTempView("delta_t")
                table = LANCE_TABLE if side == "lance" else "delta_t"
                answers[side] = list(spark.sql(f"SELECT {CHECKSUM} FROM {table}").collect()[0])
                run["checksum"] = answers[side]
            run["timed"] = timed
            runs[side].append(run)
            if side == "lance":
                spark.sql(f"DROP TABLE IF EXISTS {LANCE_TABLE}")
            shutil.rmtree(dest)
        counts_ok = all(a[0] == st["count"] for a in answers.values())
        first = next(iter(answers.values()), None)
        same = (len(answers) == len(sides) and counts_ok
                and all(sb.same(first, a) for a in answers.values()))
        checks.append(same)
        if not same:
            print(f"  MISMATCH after {st['name']} (expected count {st['count']}): {answers}")
        print(f"  {st['name']} run {i + 1}{'' if timed else ' (warm-up)'}: " + ", ".join(
            f"{s} {r[-1]['s']:.3f}s, {r[-1]['jobs']} job(s)" if "s" in r[-1] else f"{s} failed"
            for s, r in runs.items()))
    out = {"statement": st["name"], "key": st["key"], "affected": st["affected"],
           "expected_count": st["count"], "same_answer": all(checks), "sides": {}}
    for side, rs in runs.items():
        ok = [r for r in rs if r["timed"] and "s" in r]
        entry: dict = {"runs": rs}
        if ok:
            best = min(ok, key=lambda r: r["s"])
            entry.update(best=best["s"], times=[r["s"] for r in ok], jobs=best["jobs"],
                         tasks=best["tasks"], jobs_all=[r["jobs"] for r in rs],
                         other_cores=best.get("other_cores"))
        else:
            entry["error"] = next((r["error"] for r in rs if "error" in r), "no timed run")
        mem = next((r["memory"] for r in rs if "memory" in r), None)
        if mem:
            entry["peak_heap"] = mem["peak"]["heap"]
        out["sides"][side] = entry
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--warmups", type=int, default=1)
    ap.add_argument("--merge-rows", type=int, default=100_000)
    ap.add_argument("--delta-dv", action="store_true",
                    help="also run on a Delta table with deletion vectors enabled")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--jar", help="connector jar (default: the one pyspark_lance bundles)")
    args = ap.parse_args()
    if args.rows < 10_000 or args.merge_rows >= args.rows:
        ap.error("--rows must be at least 10000 and above --merge-rows")

    t_start = time.perf_counter()
    meta = sb.ensure_data(args.rows, False)
    d = Path(meta["dir"])
    OUT.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(OUT / "runs", ignore_errors=True)  # copies a stopped run left behind

    import pyspark_lance
    src_jar = Path(args.jar or pyspark_lance.jar_path())
    jar = OUT / f"spark-lance-bench-{os.getpid()}.jar"
    shutil.copyfile(src_jar, jar)
    head = subprocess.run(["git", "-C", str(sb.REPO), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip() or "?"
    spark = sb.start_spark(str(jar), {
        "spark.jars": f"{delta_jars()},{jar}",
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": pyspark_lance.SESSION_CATALOG,
    })
    import pyspark
    jvm = spark.sparkContext._jvm
    sampler = None if args.no_memory or args.warmups == 0 else sb.MemorySampler(spark)
    probe = sb.ForeignCpu([os.getpid(), int(jvm.java.lang.ProcessHandle.current().pid())])

    t0 = time.perf_counter()
    sides = {"delta": ensure_delta(spark, d / "scalar.parquet", args.rows, False)}
    if args.delta_dv:
        sides["delta_dv"] = ensure_delta(spark, d / "scalar.parquet", args.rows, True)
    sides["lance"] = d / "scalar.lance"
    delta_files = len(list(sides["delta"].glob("*.parquet")))
    print(f"Delta table(s) ready in {time.perf_counter() - t0:.1f}s ({delta_files} data files)")
    bound, covered, nfrags = whole_fragment_bound(sides["lance"])

    results = []
    for st in statements(args.rows, args.merge_rows, bound):
        source = merge_source(spark, st) if st["key"] == "merge" else None
        results.append(run_statement(spark, st, sides, source, args.reps, args.warmups, sampler, probe))
        if source is not None:
            source.unpersist()
    spark.stop()
    jar.unlink(missing_ok=True)
    shutil.rmtree(OUT / "runs", ignore_errors=True)
    total = time.perf_counter() - t_start

    # ------------------------------------------------------------------ report
    deltas = [s for s in sides if s != "lance"]
    label = {"delta": "Delta", "delta_dv": "Delta (DV)"}
    lines = [f"Command: `python bench/dml_bench.py --rows {args.rows}"
             f"{' --delta-dv' if args.delta_dv else ''}`  ",
             f"Date: {dt.date.today().isoformat()}; Spark {pyspark.__version__} local[2], 6 GiB driver; "
             f"{DELTA_PACKAGE}; pylance {__import__('lance').__version__}; repo HEAD {head}.  ",
             f"Tables: {args.rows:,} rows. Lance: pylance's copy ({nfrags} fragments, ZONEMAP and BTREE "
             f"on id), as `CREATE TABLE ... USING lance LOCATION`, statements in SQL. Delta: written "
             f"once from the Parquet copy ({delta_files} files), statements through "
             f"`DeltaTable.forPath`" + (", with and without deletion vectors" if args.delta_dv else
                                        " (Delta's defaults: no deletion vectors)") + ".  ",
             f"Each run on fresh copies of both tables (copy not timed); best of {args.reps} after "
             f"{args.warmups} warm-up(s), each copy read once (a count) before its statement. Same "
             f"answer: after every run both tables hold the expected row count and equal sum(id), "
             f"sum(f1) and sum(hash(row)). Spark jobs (tasks): what each side's statement started "
             f"in the best run (job group + status tracker). \"other CPU\": cores other processes "
             f"kept busy during the best runs (2 in all).", ""]
    if covered == nfrags:
        lines += [f"With {nfrags} fragment(s), the whole-fragment DELETE removes every row of the table.", ""]
    head_cells = ["statement", "rows affected"] + [f"{label[s]} s" for s in deltas] + ["Lance s"]
    head_cells += [f"speed-up {label[s]}/Lance" for s in deltas]
    head_cells += ["same answer", "Spark jobs (tasks) " + " / ".join(
        [label[s] for s in deltas] + ["Lance"]), "peak heap MB " + " / ".join(
        [label[s] for s in deltas] + ["Lance"]), "other CPU " + " / ".join(
        [label[s] for s in deltas] + ["Lance"])]
    lines.append("| " + " | ".join(head_cells) + " |")
    lines.append("|---|" + "---:|" * (len(head_cells) - 5) + ":-:|---:|---:|---:|")

    def secs(e: dict) -> str:
        return f"{e['best']:.3f}" if "best" in e else f"error: {e.get('error')}"

    for r in results:
        sd = r["sides"]
        cells = [r["statement"], f"{r['affected']:,}"] + [secs(sd[s]) for s in deltas] + [secs(sd["lance"])]
        cells += [f"{sd[s]['best'] / sd['lance']['best']:.2f}×" if "best" in sd[s] and "best" in sd["lance"]
                  else "–" for s in deltas]
        cells.append("yes" if r["same_answer"] else "**NO**")
        cells.append(" / ".join(f"{sd[s]['jobs']} ({sd[s]['tasks']})" if "jobs" in sd[s] else "–"
                                for s in deltas + ["lance"]))
        cells.append(" / ".join(sb.mb(sd[s]["peak_heap"]) if "peak_heap" in sd[s] else "–"
                                for s in deltas + ["lance"]))
        cells.append(" / ".join(f"{sd[s]['other_cores']:.2f}" if sd[s].get("other_cores") is not None
                                else "–" for s in deltas + ["lance"]))
        lines.append("| " + " | ".join(cells) + " |")
    frag = next(r for r in results if r["key"] == "delete_fragments")["sides"]["lance"]
    lines += ["", f"Whole-fragment DELETE on Lance: Spark jobs per run {frag.get('jobs_all')} "
                  f"(goal: none).", "", f"Whole run: {total:.0f} s."]
    report = "\n".join(lines)
    print()
    print(report)
    (OUT / f"results-{args.rows}.md").write_text(report + "\n")
    (OUT / f"results-{args.rows}.json").write_text(json.dumps(
        {"rows": args.rows, "reps": args.reps, "warmups": args.warmups, "delta_package": DELTA_PACKAGE,
         "lance_fragments": nfrags, "delta_files": delta_files, "results": results, "total_s": total},
        indent=1, default=str))
    print(f"\nwritten to {OUT}/results-{args.rows}.md")


if __name__ == "__main__":
    main()
