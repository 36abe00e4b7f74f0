"""Compaction benchmark: `CALL lance.system.compact` against pylance's `optimize.compact_files`.

Two tables, each built once under target/bench/compact/ and copied for each side:
- `small`: --fragments one-row fragments (100,000 by default), written with
  lance.fragment.write_fragments + one Overwrite commit (as bench/spark_bench.py does);
- `deleted`: --rows rows (10,000,000 by default) in 1,048,576-row fragments, then 10 % of the rows
  deleted (every id ending in 7). A share of exactly 10 % does not pass Lance's default threshold
  (0.1, compared with >), so --threshold 0.05 makes every fragment qualify.

pylance compacts one copy (compact_files, its default threads), our connector two others in a
local[2] SparkSession (one CALL each: the first runs partly cold, the second in the steady state).
Our reader then scans the table before compaction, after ours and after pylance's. The wall time
of each is printed, with the fragments each made (they must be the same list of (rows, live
rows)) and a checksum of the rows read back by pylance (count, sum of id, sum of x). Driver memory: the JVM's peak heap during the call is sampled
(bench/spark_bench.py's sampler).

Usage:
    python bench/compact_bench.py --fragments 2000 --rows 1000000   # a quick run
    python bench/compact_bench.py                                    # the issue's sizes
    options: --jar PATH (default: the jar pyspark_lance bundles), --threshold 0.05,
             --cases small,deleted (which tables)
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
import spark_bench as sb  # noqa: E402  (shares the session set-up and the memory sampler)

OUT = sb.OUT.parent / "compact"


def build_small(uri: Path, n: int) -> None:
    import lance
    from lance.fragment import write_fragments

    tbl = pa.table({"id": pa.array(np.arange(n, dtype=np.int64)), "x": pa.array(np.arange(n, dtype=np.float64))})
    frags = write_fragments(tbl, str(uri), max_rows_per_file=1)
    lance.LanceDataset.commit(str(uri), lance.LanceOperation.Overwrite(tbl.schema, frags))


def build_deleted(uri: Path, n: int) -> None:
    import lance

    def batches():
        step = 1 << 20
        for start in range(0, n, step):
            ids = np.arange(start, min(n, start + step), dtype=np.int64)
            yield pa.record_batch({"id": ids, "x": ids.astype(np.float64)})

    schema = pa.schema([("id", pa.int64()), ("x", pa.float64())])
    lance.write_dataset(pa.RecordBatchReader.from_batches(schema, batches()), str(uri), max_rows_per_file=1 << 20)
    lance.dataset(str(uri)).delete("id % 10 = 7")


def layout_and_sum(uri: Path) -> tuple[list, tuple]:
    import lance

    ds = lance.dataset(str(uri))
    t = ds.to_table(columns=["id", "x"])
    sums = (t.num_rows, int(pa.compute.sum(t["id"]).as_py() or 0), float(pa.compute.sum(t["x"]).as_py() or 0))
    return [(f.physical_rows, f.count_rows()) for f in ds.get_fragments()], sums


def spark_scan_s(spark, uri: Path) -> float:
    """Best of 3 of a full scan (count, sum(id), sum(x)) of `uri` by our reader."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        spark.read.format("lance").load(str(uri)).selectExpr("count(*)", "sum(id)", "sum(x)").collect()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fragments", type=int, default=100_000)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--threshold", type=float, default=0.05)
    ap.add_argument("--jar")
    ap.add_argument("--cases", default="small,deleted", help="which tables to compact, comma-separated")
    args = ap.parse_args()
    import lance
    import pyspark_lance

    jar = args.jar or pyspark_lance.jar_path()
    spark = sb.start_spark(jar, {"spark.sql.catalog.lance": "io.sparklance.spark.procedures.LanceProcedureCatalog"})
    sampler = sb.MemorySampler(spark)
    # The compaction's phase lines (plan, rewrite, commit, with their times) on the console.
    jvm = spark.sparkContext._jvm
    jvm.org.apache.logging.log4j.core.config.Configurator.setLevel("io.sparklance.spark.maintenance",
                                                                   jvm.org.apache.logging.log4j.Level.INFO)
    cases = [("small", lambda u: build_small(u, args.fragments), 1 << 20, 0.1),
             ("deleted", lambda u: build_deleted(u, args.rows), 1 << 20, args.threshold)]
    for name, build, target, threshold in cases:
        if name not in args.cases.split(","):
            continue
        OUT.mkdir(parents=True, exist_ok=True)
        base = OUT / f"{name}-base.lance"
        if base.exists():
            shutil.rmtree(base)
        t0 = time.perf_counter()
        build(base)
        print(f"{name}: built {base.name} in {time.perf_counter() - t0:.1f}s")
        # One copy for pylance, two for us: the first CALL of a case runs partly cold (the JVM
        # compiles our reader and writer as it goes), the second shows the steady state.
        sides = {}
        for side in ("pylance", "spark-1", "spark-2"):
            sides[side] = OUT / f"{name}-{side}.lance"
            if sides[side].exists():
                shutil.rmtree(sides[side])
            shutil.copytree(base, sides[side])
        t0 = time.perf_counter()
        lance.dataset(str(sides["pylance"])).optimize.compact_files(
            target_rows_per_fragment=target, materialize_deletions_threshold=threshold)
        py_s = time.perf_counter() - t0
        py_layout, py_sums = layout_and_sum(sides["pylance"])
        ours_s = []
        for side in ("spark-1", "spark-2"):
            sql = (f"CALL lance.system.compact(table => '{sides[side]}', target_rows_per_fragment => {target}, "
                   f"materialize_deletions_threshold => {threshold})")
            result = []
            t0 = time.perf_counter()
            run = sampler.run(lambda: result.extend(spark.sql(sql).collect()))
            ours_s.append(time.perf_counter() - t0)
            ours = result[0]
            our_layout, our_sums = layout_and_sum(sides[side])
            same = "same" if (py_layout, py_sums) == (our_layout, our_sums) else f"DIFFERENT: {py_layout[:5]} vs {our_layout[:5]}"
            print(f"{name}: CALL compact ({side}) {ours_s[-1]:.2f}s (peak driver heap {run['peak']['heap'] / 2**20:.0f} MiB); "
                  f"{ours['fragments_removed']} fragments -> {ours['fragments_added']}, {ours['rows']} rows; "
                  f"layout and rows as pylance's: {same}")
        print(f"{name}: pylance compact_files {py_s:.2f}s; ours {ours_s[0]:.2f}s first, {ours_s[1]:.2f}s second; "
              f"pylance/ours = {py_s / ours_s[0]:.2f}x first, {py_s / ours_s[1]:.2f}x second")
        before, after, theirs = (spark_scan_s(spark, u) for u in (base, sides["spark-2"], sides["pylance"]))
        print(f"{name}: our scan of the table before compaction {before:.2f}s, after ours {after:.2f}s, "
              f"after pylance's {theirs:.2f}s (after ours / after pylance's = {after / theirs:.2f})")
    spark.stop()


if __name__ == "__main__":
    main()
