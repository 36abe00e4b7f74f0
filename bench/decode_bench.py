"""Decode throughput of spark-lance's format layer against pylance, single-threaded each.

Writes one dataset per column kind with pinned pylance (file format 2.2, its default
encodings) under target/bench/decode, times pylance reading each into Arrow
(LANCE_CPU_THREADS=1, LANCE_IO_THREADS=1), runs bench/DecodeBench on the JVM for the same
files, and prints a table of MB/s of decoded Arrow data and the ratio.

Usage: python bench/decode_bench.py [--rows-scale 1.0] [--reps 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ["LANCE_CPU_THREADS"] = "1"
os.environ["LANCE_IO_THREADS"] = "1"

import lance  # noqa: E402  (after the thread settings)
import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "target" / "bench" / "decode"


def datasets(scale: float) -> dict[str, pa.Table]:
    rng = np.random.default_rng(42)
    n = int(4_000_000 * scale)
    words = np.array(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"])
    urls = [f"https://example.org/{rng.integers(0, 10**6)}/item?id={rng.integers(0, 10**9)}" for _ in range(int(1_000_000 * scale))]
    dim = 768
    m = int(50_000 * scale)
    return {
        "bitpacked_int32": pa.table({"v": pa.array(rng.integers(0, 1 << 20, n, dtype=np.int32))}),
        "bitpacked_int64": pa.table({"v": pa.array(rng.integers(0, 1 << 40, n, dtype=np.int64))}),
        "plain_float64": pa.table({"v": pa.array(rng.standard_normal(n))}),
        "dictionary_strings": pa.table({"v": pa.array(words[rng.integers(0, len(words), n)])}),
        "fsst_strings": pa.table({"v": pa.array(urls)}),
        "fsl_float32_768": pa.table({"v": pa.FixedSizeListArray.from_arrays(
            pa.array(rng.random(m * dim, dtype=np.float32)), dim)}),
    }


def pylance_seconds(uri: Path, reps: int) -> tuple[float, int, int]:
    best = float("inf")
    rows = nbytes = 0
    for i in range(reps + 2):
        t0 = time.perf_counter()
        tbl = lance.dataset(str(uri)).to_table(batch_size=8192)
        dt = time.perf_counter() - t0
        if i >= 2:
            best = min(best, dt)
        rows, nbytes = tbl.num_rows, tbl.nbytes
    return best, rows, nbytes


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows-scale", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    for name, tbl in datasets(args.rows_scale).items():
        uri = OUT / name
        if not uri.exists():
            lance.write_dataset(tbl, str(uri), max_rows_per_file=1 << 22)
    py = {name: pylance_seconds(OUT / name, args.reps) for name in sorted(os.listdir(OUT))}
    jvm_out = subprocess.run(
        [str(REPO / "build" / "sbt"), f"bench/runMain io.sparklance.bench.DecodeBench {OUT} {args.reps}"],
        cwd=REPO, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=True).stdout
    jvm = {}
    for line in jvm_out.splitlines():
        line = line.split("] ", 1)[-1]
        if line.startswith("{"):
            rec = json.loads(line)
            jvm[rec["dataset"]] = rec
    print(f"| column kind | rows | Arrow MB | spark-lance MB/s | pylance MB/s | spark-lance rows/s | ratio (ours/pylance) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in sorted(py):
        p_sec, rows, nbytes = py[name]
        j = jvm.get(name)
        if j is None:
            print(f"| {name} | {rows} | | (failed) | | | |")
            continue
        mb = j["arrow_bytes"] / 1e6
        ours = mb / j["seconds"]
        theirs = nbytes / 1e6 / p_sec
        print(f"| {name} | {rows} | {mb:.0f} | {ours:.0f} | {theirs:.0f} | {j['rows'] / j['seconds']:.3g} | {ours / theirs:.2f} |")


if __name__ == "__main__":
    sys.exit(main())
