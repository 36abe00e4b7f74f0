"""Spark write benchmark: spark-lance against Spark's own Parquet writer, same session.

Uses the data of bench/spark_bench.py (generated there once and cached under
target/bench/spark/rows-<N>/): the N-row scalar table and the N/10-row 128-d vector table.
Each is read from its Parquet copy into a cached DataFrame (counted, so that the cache is
filled before anything is timed), then written by Spark with both writers into fresh folders:

    df.write.mode("overwrite").parquet(out)            Spark's Parquet (snappy, its defaults)
    df.write.format("lance").mode("overwrite").save(out)  spark-lance (file format 2.2, defaults)

--warmups runs each (1), then the best of --reps (3), alternating formats. Then:
- bytes on disk of our data files against pylance's data files for the same rows (pylance's
  copy is the one spark_bench.py wrote; its index files are not counted);
- the read benchmark's queries on our written copy against pylance's copy (best of --reps),
  after pylance built on ours the two indices pylance's copy has (ZONEMAP and BTREE on id);
- commit time on the driver against table size: a one-row append to tables of 1, 1,000 and
  --fragments fragments, and to a table with --versions versions (the write-metrics "commit
  time" of the append, and the whole append's wall time);
- peak JVM memory during one untimed write per format (sampled every ~20 ms).

Usage:
    python bench/write_bench.py                  # 10,000,000 rows
    python bench/write_bench.py --rows 1000000   # quick mode
    options: --reps 3, --warmups 1, --fragments 100000, --versions 1000, --no-commit, --no-read
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
import spark_bench as sb  # noqa: E402  (shares the data, the session set-up and the timers)

OUT = sb.OUT.parent / "write"


def data_bytes(table: Path) -> int:
    """Bytes of a Lance table's data files (what a writer chose to store), or a Parquet folder."""
    data = table / "data"
    if data.is_dir():
        return sum(p.stat().st_size for p in data.rglob("*.lance"))
    return sum(p.stat().st_size for p in table.rglob("*.parquet"))


def fresh(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    return path


def write_timings(spark, df, name: str, reps: int, warmups: int) -> dict:
    """Best and all times of writing `df` with each writer, alternating, into fresh folders."""
    targets = {"parquet": OUT / f"{name}.parquet", "lance": OUT / f"{name}.lance"}

    def run(fmt: str) -> float:
        dest = fresh(targets[fmt])
        t0 = time.perf_counter()
        if fmt == "parquet":
            df.write.mode("overwrite").parquet(str(dest))
        else:
            df.write.format("lance").mode("overwrite").save(str(dest))
        return time.perf_counter() - t0

    times: dict[str, list[float]] = {"parquet": [], "lance": []}
    for i in range(warmups + reps):
        for fmt in ("parquet", "lance"):
            t = run(fmt)
            if i >= warmups:
                times[fmt].append(t)
    return {fmt: {"best": min(ts), "times": ts, "bytes": data_bytes(targets[fmt]),
                  "files": len(list(targets[fmt].rglob("*.lance" if fmt == "lance" else "*.parquet")))}
            for fmt, ts in times.items()}


def memory(spark, sampler, df, name: str) -> dict:
    out = {}
    for fmt in ("parquet", "lance"):
        dest = fresh(OUT / f"{name}-mem.{fmt}")
        if fmt == "parquet":
            out[fmt] = sampler.run(lambda: df.write.mode("overwrite").parquet(str(dest)))
        else:
            out[fmt] = sampler.run(lambda: df.write.format("lance").mode("overwrite").save(str(dest)))
        shutil.rmtree(dest, ignore_errors=True)
    return out


def read_comparison(spark, ours: dict, theirs: dict, rows: int, reps: int, warmups: int) -> list[dict]:
    """The read benchmark's queries on the copy we wrote against pylance's copy."""
    views = {}
    for who, paths in (("ours", ours), ("pylance", theirs)):
        for t, p in paths.items():
            view = f"{who}_{t}"
            spark.read.format("lance").load(str(p)).createOrReplaceTempView(view)
            views[(who, t)] = view
    out = []
    for q in sb.queries(rows):
        row = {"query": q["name"]}
        answers = {}
        for who in ("pylance", "ours"):
            sql = q["sql"].format(t=views[(who, q["table"])])
            if q.get("noop"):
                def action(sql=sql):
                    spark.sql(sql).write.format("noop").mode("overwrite").save()
            else:
                def action(sql=sql, sort=q.get("sort", False)):
                    r = [tuple(x) for x in spark.sql(sql).collect()]
                    return sorted(r) if sort else r
            best, times, answer, _ = sb.timed(action, reps, None, warmups)
            row[who] = best
            answers[who] = answer
        row["same_answer"] = sb.same(answers["pylance"], answers["ours"])
        out.append(row)
        print(f"  read {q['name']}: pylance's copy {row['pylance']:.3f}s, ours {row['ours']:.3f}s")
    return out


def commit_costs(spark, fragments: int, versions: int) -> list[dict]:
    """A one-row append to tables of growing size: the driver's commit time and the wall time."""
    import lance

    one = spark.createDataFrame([(1, 1.0)], "id long, x double")
    tables = []
    for n in sorted({1, 1000, fragments}):
        uri = fresh(OUT / f"commit-{n}.lance")
        src = sb.ensure_fragments_table(n, False)["uri"] if n == fragments else None
        if src:
            shutil.copytree(src, uri)
        else:
            tbl = pa.table({"id": pa.array(np.arange(n, dtype=np.int64)),
                            "x": pa.array(np.arange(n, dtype=np.float64))})
            lance.write_dataset(tbl, str(uri), max_rows_per_file=1)
        tables.append((f"{n:,} fragments", uri))
    uri = fresh(OUT / f"commit-v{versions}.lance")
    lance.write_dataset(pa.table({"id": pa.array([0], pa.int64()), "x": pa.array([0.0])}), str(uri))
    ds = lance.dataset(str(uri))
    for _ in range(versions - 1):  # each append: one version
        ds = lance.write_dataset(pa.table({"id": pa.array([0], pa.int64()), "x": pa.array([0.0])}),
                                 str(uri), mode="append")
    tables.append((f"{versions:,} versions", uri))

    out = []
    for label, uri in tables:
        walls, commits = [], []
        for _ in range(5):
            t0 = time.perf_counter()
            one.write.format("lance").mode("append").save(str(uri))
            walls.append(time.perf_counter() - t0)
            commits.append(last_commit_ms(spark))
        out.append({"table": label, "wall_best": min(walls), "wall_median": statistics.median(walls),
                    "commit_ms_best": min(c for c in commits if c is not None) if any(commits) else None})
        print(f"  commit {label}: wall best {min(walls):.3f}s, commit {out[-1]['commit_ms_best']} ms")
    return out


def last_commit_ms(spark):
    """The commit-time driver metric of the last write, from Spark's SQL status store."""
    try:
        store = spark._jsparkSession.sharedState().statusStore()
        execs = store.executionsList()
        last = execs.apply(execs.size() - 1)
        metrics = store.executionMetrics(last.executionId())
        names = {}
        plan = last.metrics()
        for i in range(plan.size()):
            m = plan.apply(i)
            names[m.accumulatorId()] = m.name()
        it = metrics.iterator()
        while it.hasNext():
            kv = it.next()
            if "commit time" in names.get(kv._1(), ""):
                return float(str(kv._2()).split()[0].replace(",", "").rstrip("ms"))
    except Exception:  # noqa: BLE001 - a missing metric is reported as such
        return None
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--warmups", type=int, default=1)
    ap.add_argument("--fragments", type=int, default=100_000)
    ap.add_argument("--versions", type=int, default=1000)
    ap.add_argument("--no-commit", action="store_true")
    ap.add_argument("--no-read", action="store_true")
    ap.add_argument("--jar", help="connector jar (default: the one pyspark_lance bundles)")
    args = ap.parse_args()

    t_start = time.perf_counter()
    meta = sb.ensure_data(args.rows, False)
    d = Path(meta["dir"])
    OUT.mkdir(parents=True, exist_ok=True)

    import pyspark_lance
    src_jar = Path(args.jar or pyspark_lance.jar_path())
    jar = OUT / f"spark-lance-bench-{os.getpid()}.jar"
    shutil.copyfile(src_jar, jar)
    spark = sb.start_spark(str(jar))
    import pyspark
    sampler = sb.MemorySampler(spark)

    results = {}
    for t in ("scalar", "vec"):
        df = spark.read.parquet(str(d / f"{t}.parquet"))
        if t == "vec":
            # Parquet has no fixed-size lists: the column comes back as array<float>. Declaring its
            # dimension makes ours a vector column as pylance's is (README, "Vector columns");
            # Parquet ignores the metadata.
            from pyspark.sql import functions as F
            df = df.select("id", F.col("vec").alias("vec", metadata={"arrow.fixed-size-list.size": 128}))
        df = df.cache()
        n = df.count()
        print(f"{t}: {n:,} rows cached in {df.rdd.getNumPartitions()} partitions")
        r = write_timings(spark, df, t, args.reps, args.warmups)
        r["partitions"] = df.rdd.getNumPartitions()
        r["pylance_bytes"] = data_bytes(d / f"{t}.lance")
        r["memory"] = memory(spark, sampler, df, t)
        results[t] = r
        print(f"  write {t}: Parquet {r['parquet']['best']:.2f}s, Lance {r['lance']['best']:.2f}s "
              f"({r['parquet']['best'] / r['lance']['best']:.2f}x); bytes ours/pylance "
              f"{r['lance']['bytes'] / r['pylance_bytes']:.3f}")
        df.unpersist()

    reads = None
    if not args.no_read:
        # pylance's copy has a ZONEMAP and a BTREE index on id (spark_bench.py builds them). A
        # write builds no index, so pylance builds the same two on our copy: the comparison is
        # then of the data files each writer laid out, with equal help from indices.
        import lance
        ours = lance.dataset(str(OUT / "scalar.lance"))
        ours.create_scalar_index("id", "ZONEMAP", name="id_zonemap")
        ours.create_scalar_index("id", "BTREE", name="id_btree")
        reads = read_comparison(spark, {t: OUT / f"{t}.lance" for t in ("scalar", "vec")},
                                {t: d / f"{t}.lance" for t in ("scalar", "vec")},
                                args.rows, args.reps, args.warmups)
    commits = None if args.no_commit else commit_costs(spark, args.fragments, args.versions)
    spark.stop()
    jar.unlink(missing_ok=True)

    lines = [f"Command: `python bench/write_bench.py --rows {args.rows}`  ",
             f"Date: {dt.date.today().isoformat()}; Spark {pyspark.__version__} local[2], 6 GiB driver; "
             f"pylance {__import__('lance').__version__}. Input: a cached DataFrame read from the "
             f"Parquet copy; times best of {args.reps} after {args.warmups} warm-up(s).", "",
             "| table | partitions | Parquet s | Lance s | speed-up (Parquet/Lance) | Lance files | "
             "bytes Lance (ours) / pylance | bytes Lance / Parquet | peak heap MB P / L |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for t, r in results.items():
        p, l = r["parquet"], r["lance"]
        heap = " / ".join(sb.mb(r["memory"][f]["peak"]["heap"]) for f in ("parquet", "lance"))
        lines.append(f"| {t} ({meta['rows'] if t == 'scalar' else meta['vec_rows']:,} rows) | {r['partitions']} | "
                     f"{p['best']:.2f} | {l['best']:.2f} | {p['best'] / l['best']:.2f}× | {l['files']} | "
                     f"{l['bytes'] / r['pylance_bytes']:.3f} | {l['bytes'] / p['bytes']:.3f} | {heap} |")
    if reads:
        lines += ["", "Reads of the copy we wrote against pylance's copy (both with a ZONEMAP and a "
                  "BTREE index on id, built by pylance):", "",
                  "| query | pylance's copy s | our copy s | ours / pylance's | same answer |",
                  "|---|---:|---:|---:|:-:|"]
        for r in reads:
            lines.append(f"| {r['query']} | {r['pylance']:.3f} | {r['ours']:.3f} | "
                         f"{r['ours'] / r['pylance']:.2f} | {'yes' if r['same_answer'] else '**NO**'} |")
    if commits:
        lines += ["", "A one-row append (best of 5) against table size: the driver's commit time "
                  "(write metric) and the whole append.", "",
                  "| table | commit ms | append wall s |", "|---|---:|---:|"]
        for c in commits:
            lines.append(f"| {c['table']} | {c['commit_ms_best']} | {c['wall_best']:.3f} |")
    lines.append("")
    lines.append(f"Whole run: {time.perf_counter() - t_start:.0f} s.")
    report = "\n".join(lines)
    print()
    print(report)
    (OUT / f"results-{args.rows}.md").write_text(report + "\n")
    (OUT / f"results-{args.rows}.json").write_text(json.dumps(
        {"results": results, "reads": reads, "commits": commits}, indent=1, default=str))


if __name__ == "__main__":
    main()
