"""Compaction benchmark: `CALL lance.system.compact` against pylance's `optimize.compact_files`.

Two tables, each built twice the same way under target/bench/compact/ (one copy per side):
- `small`: --fragments one-row fragments (100,000 by default), written with
  lance.fragment.write_fragments + one Overwrite commit (as bench/spark_bench.py does);
- `deleted`: --rows rows (10,000,000 by default) in 1,048,576-row fragments, then 10 % of the rows
  deleted (every id ending in 7). A share of exactly 10 % does not pass Lance's default threshold
  (0.1, compared with >), so --threshold 0.05 makes every fragment qualify.

pylance compacts one copy (compact_files, its default threads), our connector the other in a
local[2] SparkSession (one CALL). The wall time of each is printed, with the fragments each made
(they must be the same list of (rows, live rows)) and a checksum of the rows read back by pylance
(count, sum of id, sum of x). Driver memory: the JVM's peak heap during the call is sampled
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
        sides = {}
        for side in ("pylance", "spark"):
            uri = OUT / f"{name}-{side}.lance"
            if uri.exists():
                shutil.rmtree(uri)
            OUT.mkdir(parents=True, exist_ok=True)
            t0 = time.perf_counter()
            build(uri)
            sides[side] = uri
            print(f"{name}: built {uri.name} in {time.perf_counter() - t0:.1f}s")
        t0 = time.perf_counter()
        lance.dataset(str(sides["pylance"])).optimize.compact_files(
            target_rows_per_fragment=target, materialize_deletions_threshold=threshold)
        py_s = time.perf_counter() - t0
        sql = (f"CALL lance.system.compact(table => '{sides['spark']}', target_rows_per_fragment => {target}, "
               f"materialize_deletions_threshold => {threshold})")
        result = []
        t0 = time.perf_counter()
        run = sampler.run(lambda: result.extend(spark.sql(sql).collect()))
        spark_s = time.perf_counter() - t0
        ours = result[0]
        py_layout, py_sums = layout_and_sum(sides["pylance"])
        our_layout, our_sums = layout_and_sum(sides["spark"])
        same = "same" if (py_layout, py_sums) == (our_layout, our_sums) else f"DIFFERENT: {py_layout[:5]} vs {our_layout[:5]}"
        print(f"{name}: pylance compact_files {py_s:.2f}s, CALL compact {spark_s:.2f}s "
              f"(peak driver heap {run['peak']['heap'] / 2**20:.0f} MiB); {ours['fragments_removed']} fragments -> "
              f"{ours['fragments_added']}, {ours['rows']} rows; layout and rows {same}")
    spark.stop()


if __name__ == "__main__":
    main()
