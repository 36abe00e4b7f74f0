"""Where one benchmark query spends its time, on Lance and on Parquet.

Runs one query of bench/spark_bench.py (by its index in the table, 0 = COUNT(*)) on the data
that script generated, in a local[2] session like its own, and prints:

- per task of the timed runs' last execution: when it started, run and CPU time, GC and
  deserialization (from Spark's event log), which shows the split balance and the driver's
  share of the wall time;
- the hottest methods, by thread group (executor tasks, the driver's query thread, the rest),
  from a Java Flight Recorder recording of the timed runs: self time and inclusive time.

With --write scalar|vec it profiles a write instead: the table's Parquet copy, cached, written
with the chosen format into a fresh folder per run (what bench/write_bench.py times).

Usage: python bench/profile_query.py QUERY [--format lance|parquet] [--reps 30] [--rows N] [--table PATH]
       python bench/profile_query.py --write scalar|vec [--format lance|parquet] [--reps 5] [--rows N]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import spark_bench  # noqa: E402  (its queries and data layout)


def task_times(event_dir: Path, description: str) -> list[str]:
    events = [json.loads(line) for f in event_dir.rglob("*") if f.is_file() for line in f.open()]
    stages = {s for e in events if e["Event"] == "SparkListenerJobStart"
              and e.get("Properties", {}).get("spark.job.description") == description
              for s in e["Stage IDs"]}
    ends = [e for e in events if e["Event"] == "SparkListenerTaskEnd" and e["Stage ID"] in stages]
    if not ends:
        return ["  (no tasks: the query ran on the driver alone)"]
    t0 = min(e["Task Info"]["Launch Time"] for e in ends)
    lines = []
    for e in sorted(ends, key=lambda e: (e["Stage ID"], e["Task Info"]["Launch Time"])):
        m, i = e["Task Metrics"], e["Task Info"]
        lines.append(f"  stage {e['Stage ID']:>3} start +{i['Launch Time'] - t0:>5} ms  run {m['Executor Run Time']:>5} ms"
                     f"  cpu {m['Executor CPU Time'] // 1_000_000:>5} ms  gc {m['JVM GC Time']:>4} ms"
                     f"  deserialize {m['Executor Deserialize Time']:>3} ms")
    return lines


def hot_methods(jfr: Path, top: int) -> list[str]:
    out = subprocess.run(["jfr", "print", "--json", "--events", "jdk.ExecutionSample", str(jfr)],
                         capture_output=True, text=True, check=True).stdout
    groups: dict[str, tuple[collections.Counter, collections.Counter, list[int]]] = {}
    for e in json.loads(out)["recording"]["events"]:
        v = e["values"]
        frames = (v.get("stackTrace") or {}).get("frames") or []
        if not frames:
            continue
        thread = (v.get("sampledThread") or {}).get("javaName") or "?"
        group = ("executor tasks" if thread.startswith("Executor task")
                 else "driver query thread" if thread.startswith("Thread-") else "other threads")
        own, incl, n = groups.setdefault(group, (collections.Counter(), collections.Counter(), [0]))
        names = [f"{f['method']['type']['name'].split('/')[-1]}.{f['method']['name']}" for f in frames]
        n[0] += 1
        own[names[0]] += 1
        for name in set(names):
            incl[name] += 1
    lines = []
    for group, (own, incl, n) in sorted(groups.items(), key=lambda g: -g[1][2][0]):
        lines.append(f"  {group}: {n[0]} samples")
        lines.append("    self:      " + "; ".join(f"{100 * c / n[0]:.1f}% {k}" for k, c in own.most_common(top)))
        lines.append("    inclusive: " + "; ".join(f"{100 * c / n[0]:.1f}% {k}" for k, c in incl.most_common(top)))
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("query", type=int, nargs="?", help="index of the query in bench/spark_bench.py's table")
    ap.add_argument("--write", choices=("scalar", "vec"), help="profile writing this table instead of a query")
    ap.add_argument("--format", choices=("lance", "parquet"), default="lance")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--table", type=Path, help="a table of the query's schema to read instead of the generated one")
    args = ap.parse_args()

    if (args.query is None) == (args.write is None):
        ap.error("give a QUERY or --write TABLE")
    data = spark_bench.OUT / f"rows-{args.rows}"
    if not data.exists() and args.table is None:
        ap.error(f"{data} does not exist: run bench/spark_bench.py --rows {args.rows} --generate-only first")
    q = (spark_bench.queries(args.rows)[args.query] if args.write is None
         else {"name": f"writing the {args.write} table"})
    work = Path(tempfile.mkdtemp(prefix="spark-lance-profile-"))
    events = work / "events"
    events.mkdir()

    import pyspark_lance
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ["PYSPARK_SUBMIT_ARGS"] = "--driver-memory 6g pyspark-shell"
    spark = (SparkSession.builder.master("local[2]").appName("spark-lance query profile")
             .config("spark.driver.host", "127.0.0.1").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2").config("spark.ui.showConsoleProgress", "false")
             .config("spark.eventLog.enabled", "true").config("spark.eventLog.dir", str(events))
             .config("spark.eventLog.compress", "false").config("spark.eventLog.rolling.enabled", "false")
             .config("spark.jars", pyspark_lance.jar_path()).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    if args.write:
        from pyspark.sql import functions as F
        df = spark.read.parquet(str(data / f"{args.write}.parquet"))
        if args.write == "vec":  # a vector column, as write_bench.py declares it
            df = df.select("id", F.col("vec").alias("vec", metadata={"arrow.fixed-size-list.size": 128}))
        df = df.cache()
        df.count()
        out = work / "out"

        def run() -> None:
            shutil.rmtree(out, ignore_errors=True)
            df.write.format(args.format).mode("overwrite").save(str(out))
    else:
        table = args.table or data / f"{q['table']}.{args.format}"
        spark.read.format(args.format).load(str(table)).createOrReplaceTempView("t")
        sql = q["sql"].format(t="t")

        def run() -> None:
            if q.get("noop"):
                spark.sql(sql).write.format("noop").mode("overwrite").save()
            else:
                spark.sql(sql).collect()

    for _ in range(3):  # warm-up, as the benchmark does
        run()
    jvm = spark.sparkContext._jvm
    recording = jvm.jdk.jfr.Recording()
    recording.enable("jdk.ExecutionSample").withPeriod(jvm.java.time.Duration.ofMillis(10))
    recording.start()
    times = []
    for i in range(args.reps):
        if i == args.reps - 1:
            spark.sparkContext.setJobDescription("profiled")
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    recording.stop()
    jfr = work / "query.jfr"
    recording.dump(jvm.java.io.File(str(jfr)).toPath())
    spark.stop()

    print(f"{q['name']} on {args.format}: best {min(times):.3f} s, median {sorted(times)[len(times) // 2]:.3f} s "
          f"of {args.reps} runs")
    print("Tasks of the last run:")
    print("\n".join(task_times(events, "profiled")))
    print("Hot methods over all runs:")
    print("\n".join(hot_methods(jfr, args.top)))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
