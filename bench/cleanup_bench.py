"""Cleanup benchmark: `CALL lance.system.cleanup` against pylance's `cleanup_old_versions`.

One table of --versions versions (1,000 by default) is built once by pylance under
target/bench/cleanup/: appends of 10 rows, a delete every 20 versions (deletion files) and an
overwrite every 250 (so old data files become garbage). Each side cleans an identical copy,
keeping the newest --keep versions (5 by default; older_than 0 and the retention-floor override on
both sides, so that only retain_versions decides): pylance once, our connector twice in a
local[2] SparkSession (the first call runs partly cold, the second in the steady state).

Printed for each: wall time of the call; for ours also the storage calls, from the lines the
procedure logs on the driver (folders listed, manifests read and their bytes, files deleted, and
the time of each phase). Both copies must then hold the same files, and pylance must list the same
versions in each, reading the latest whole with the same rows.

Usage:
    python bench/cleanup_bench.py --versions 100      # a quick run
    python bench/cleanup_bench.py                     # the issue's size (1,000 versions)
    options: --jar PATH (default: the jar pyspark_lance bundles), --keep N, --rebuild
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import time
from datetime import timedelta
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
import spark_bench as sb  # noqa: E402  (shares the session set-up)

OUT = sb.OUT.parent / "cleanup"


def build(uri: Path, versions: int) -> None:
    import lance

    for v in range(1, versions + 1):
        ids = pa.array(range(v * 10, v * 10 + 10), pa.int64())
        batch = pa.table({"id": ids, "x": pa.compute.cast(ids, pa.float64())})
        if v == 1 or v % 250 == 0:
            lance.write_dataset(batch, str(uri), mode="create" if v == 1 else "overwrite")
        elif v % 20 == 0:
            lance.dataset(str(uri)).delete(f"id % 10 = {v // 20 % 10}")
        else:
            lance.write_dataset(batch, str(uri), mode="append")


def files(uri: Path) -> set[str]:
    return {str(p.relative_to(uri)) for p in uri.rglob("*") if p.is_file()}


def summary(uri: Path) -> tuple[list[int], int, float]:
    import lance

    ds = lance.dataset(str(uri))
    t = ds.to_table()
    return [v["version"] for v in ds.versions()], t.num_rows, sum(t.column("id").to_pylist())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--versions", type=int, default=1000)
    ap.add_argument("--keep", type=int, default=5)
    ap.add_argument("--jar", help="connector jar (default: the one pyspark_lance bundles)")
    ap.add_argument("--rebuild", action="store_true")
    args = ap.parse_args()
    import lance
    import pyspark_lance

    OUT.mkdir(parents=True, exist_ok=True)
    source = OUT / f"history-{args.versions}.lance"
    if args.rebuild or not source.exists():
        shutil.rmtree(source, ignore_errors=True)
        started = time.monotonic()
        build(source, args.versions)
        print(f"built {source.name}: {args.versions} versions in {time.monotonic() - started:.1f} s", flush=True)
    before = files(source)

    def copy(name: str) -> Path:
        dst = OUT / name
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(source, dst)
        return dst

    # pylance
    theirs = copy("pylance.lance")
    started = time.monotonic()
    stats = lance.dataset(str(theirs)).cleanup_old_versions(
        older_than=timedelta(0), retain_versions=args.keep, delete_unverified=True, error_if_tagged_old_versions=False)
    pylance_s = time.monotonic() - started
    print(f"pylance cleanup_old_versions: {pylance_s:.3f} s, removed {stats.old_versions} versions, "
          f"{stats.bytes_removed} bytes", flush=True)

    # ours: the driver's log goes to a file (the JVM inherits this process's standard error),
    # where the cleanup's phase lines give its storage calls.
    log_path = OUT / "driver.log"
    log = open(log_path, "w")
    saved = os.dup(2)
    os.dup2(log.fileno(), 2)
    try:
        jar = args.jar or pyspark_lance.jar_path()
        spark = sb.start_spark(jar, {"spark.sql.catalog.lance": "io.sparklance.spark.procedures.LanceProcedureCatalog"})
        jvm = spark._jvm
        jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(
            "io.sparklance.spark.maintenance.CleanupJobs", jvm.org.apache.logging.log4j.Level.INFO)
        ours = []
        for run in (1, 2):
            target = copy(f"ours-{run}.lance")
            offset = log_path.stat().st_size
            started = time.monotonic()
            row = spark.sql(f"CALL lance.system.cleanup(table => '{target}', retain_versions => {args.keep}, "
                            "override => true)").collect()[0]
            took = time.monotonic() - started
            log.flush()
            with open(log_path) as f:
                f.seek(offset)
                lines = [l.strip() for l in f if "cleanup of" in l]
            ours.append((target, took, row, lines))
        spark.stop()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        log.close()

    for run, (target, took, row, lines) in enumerate(ours, 1):
        planned = next(l for l in lines if "planned:" in l)
        listed, read, read_bytes, plan_ms = map(int, re.search(
            r"listed (\d+) folders, read (\d+) manifests \((\d+) bytes\) in (\d+) ms", planned).groups())
        deletes = [re.search(r"deleted (\d+) of (\d+) (.+?) \((\d+) bytes.* in (\d+) ms", l).groups()
                   for l in lines if re.search(r"deleted \d+ of \d+", l)]
        print(f"ours, call {run}: {took:.3f} s; removed {row['versions_removed']} versions, {row['files_removed']} files, "
              f"{row['bytes_removed']} bytes; storage calls: {listed} listings, {read} manifest reads ({read_bytes} bytes), "
              f"{sum(int(d[0]) for d in deletes)} deletes; plan {plan_ms} ms, "
              + ", ".join(f"delete {d[2]} {d[4]} ms" for d in deletes), flush=True)
        assert row["versions_removed"] == stats.old_versions, (row, stats.old_versions)
        assert files(target) == files(theirs), sorted(files(target) ^ files(theirs))[:10]
        assert summary(target) == summary(theirs)
    print(f"both leave the same {len(files(theirs))} files of {len(before)}, versions {summary(theirs)[0]}")


if __name__ == "__main__":
    main()
