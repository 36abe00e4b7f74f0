"""Encode throughput and file size of spark-lance's file writer against pylance's, per column kind.

Generates one Arrow IPC file per column kind once (numpy/pyarrow, fixed seed) under
target/bench/encode/scale-S/, so that both writers encode exactly the same batches. pylance
writes each with `lance.file.LanceFileWriter(path, schema, version="2.2")` (LANCE_CPU_THREADS=1:
its page encoding runs on that pool, see lance-core utils/tokio.rs `spawn_cpu`; the process's CPU
seconds are measured too, the least of the runs on each side). Then io.sparklance.bench.EncodeBench writes the same batches with our
LanceFileWriter on one thread, and reads both files back with our reader (LanceFileReader +
FieldScanner). Prints a markdown table: encode MB/s (raw Arrow bytes), bytes on disk and decode
MB/s of each file with our reader.

Usage: python bench/encode_bench.py [--scale 1.0] [--reps 5] [--kinds a,b] [--profile DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

os.environ["LANCE_CPU_THREADS"] = "1"
os.environ["LANCE_IO_THREADS"] = "1"

import lance  # noqa: E402  (after the thread settings)
import lance.file  # noqa: E402
import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
MB = 1e6
BATCH_BYTES = 8 << 20  # input batches of about 8 MiB (at most 65,536 rows), the same for both writers


def _join(*parts: pa.Array) -> pa.Array:
    return pc.binary_join_element_wise(*parts, "")


def _words(rng: np.random.Generator, vocab: np.ndarray, n: int) -> pa.Array:
    return pa.array(vocab).take(pa.array(rng.integers(0, len(vocab), n)))


def _vocab(rng: np.random.Generator, size: int) -> np.ndarray:
    """Pronounceable lowercase words of 3-10 letters (a syllable alphabet, so FSST finds symbols)."""
    syll = np.array(["ka", "to", "ri", "an", "el", "on", "mi", "su", "ber", "str", "qu", "en", "is", "or", "al", "ing"])
    return np.array(["".join(syll[rng.integers(0, len(syll), rng.integers(2, 5))]) for _ in range(size)])


def column(kind: str, scale: float, rng: np.random.Generator) -> pa.Array:
    """About 150 MB (times scale) of raw Arrow data of one column kind."""
    target = 150e6 * scale
    if kind == "bitpacked_int64":  # small values: 12 significant bits of 64
        return pa.array(rng.integers(0, 1 << 12, int(target / 8), dtype=np.int64))
    if kind == "plain_float64":  # random doubles: nothing to compress
        return pa.array(rng.standard_normal(int(target / 8)))
    if kind == "dictionary_strings":  # 100 distinct words, ~7 letters (+4 offset bytes) a value
        vocab = _vocab(rng, 100)
        return _words(rng, vocab, int(target / 11))
    if kind == "fsst_urls":  # unique URL-like strings, ~60 bytes each
        n = int(target / 64)
        hosts = np.array([f"www.{w}.{tld}" for w, tld in zip(_vocab(rng, 200), np.resize(["com", "org", "net", "io"], 200))])
        return _join(pa.array(["https://"] * n), _words(rng, hosts, n), pa.array(["/"] * n), _words(rng, _vocab(rng, 50), n),
                     pa.array(["/item/"] * n), pa.array(np.arange(n) * 7919 % 10_000_019).cast(pa.string()),
                     pa.array(["?ref="] * n), pa.array(rng.integers(0, 1 << 30, n)).cast(pa.string()))
    if kind == "fsst_words":  # unique word-like text: 4-8 words from 5,000 plus a row number, ~55 bytes
        n = int(target / 59)
        vocab = _vocab(rng, 5000)
        k = rng.integers(4, 9, n)
        parts = [pa.array(np.arange(n)).cast(pa.string())]
        for j in range(8):
            w = _words(rng, vocab, n)
            parts.append(pc.if_else(pa.array(k > j), _join(pa.array([" "] * n), w), pa.array([""] * n)))
        return _join(*parts)
    if kind == "fsl_float32_768":  # embeddings: random floats, 3,072 bytes a row
        dim = 768
        m = int(target / (dim * 4))
        return pa.FixedSizeListArray.from_arrays(pa.array(rng.random(m * dim, dtype=np.float32)), dim)
    if kind == "list_int32":  # 0-20 items (mean 10), 10 % null lists, 10 % empty; items < 2^16
        n = int(target / 37)
        lens = rng.integers(1, 20, n)
        lens[rng.random(n) < 0.1] = 0
        nulls = rng.random(n) < 0.1
        lens[nulls] = 0
        offsets = np.zeros(n + 1, dtype=np.int32)
        np.cumsum(lens, out=offsets[1:])
        values = pa.array(rng.integers(0, 1 << 16, int(offsets[-1]), dtype=np.int32))
        return pa.ListArray.from_arrays(pa.array(offsets), values, mask=pa.array(nulls))
    raise ValueError(kind)


KINDS = ["bitpacked_int64", "dictionary_strings", "fsst_urls", "fsst_words", "plain_float64", "fsl_float32_768", "list_int32"]


def ipc_file(out: Path, kind: str, scale: float) -> Path:
    """The kind's data as an Arrow IPC file of ~8 MiB batches, generated once per scale."""
    path = out / f"{kind}.arrow"
    if path.exists():
        return path
    rng = np.random.default_rng(KINDS.index(kind) + 1)
    arr = column(kind, scale, rng)
    table = pa.table({"v": arr})
    rows_per_batch = int(max(1024, min(65536, BATCH_BYTES * len(arr) / table.nbytes)))
    tmp = path.with_suffix(".tmp")
    with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, table.schema) as w:
        for b in table.to_batches(max_chunksize=rows_per_batch):
            w.write_batch(b)
    tmp.rename(path)
    return path


def pylance_write(batches: list[pa.RecordBatch], schema: pa.Schema, dest: Path, reps: int) -> dict:
    """Best wall time of `reps` writes (after one warm-up) and the least process CPU seconds of one."""
    best = (float("inf"), float("inf"))
    for i in range(reps + 1):
        if dest.exists():
            dest.unlink()
        c0, t0 = time.process_time(), time.perf_counter()
        w = lance.file.LanceFileWriter(str(dest), schema, version="2.2")
        for b in batches:
            w.write_batch(b)
        w.close()
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        if i > 0:
            best = (min(best[0], dt), min(best[1], dc))
    return {"seconds": best[0], "cpu_seconds": best[1], "bytes": dest.stat().st_size}


def jvm_run(folder: Path, kinds: list[str], reps: int, profile: Path | None) -> dict:
    """Runs EncodeBench once per kind, each in a fresh JVM (one sbt session forks one per command), so
    that no kind is measured in a heap, JIT profile and GC state the kinds before it left (as JMH forks)."""
    def main(kind: str) -> str:
        return f"io.sparklance.bench.EncodeBench {folder} {reps} {kind}" + (f" {profile.resolve()}" if profile else "")
    proc = subprocess.run([str(REPO / "build" / "sbt")] + [f"bench/runMain {main(k)}" for k in kinds], cwd=REPO,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    out = {}
    for line in proc.stdout.splitlines():
        line = line.split("] ", 1)[-1]
        if line.startswith("{"):
            rec = json.loads(line)
            out[rec["kind"]] = rec
    if proc.returncode != 0 and not out:
        sys.stderr.write(proc.stdout[-5000:] + proc.stderr[-5000:])
        raise SystemExit("EncodeBench failed")
    return out


def _method(frame: dict) -> tuple[str, str]:
    """(class, 'Class.method') of a JFR stack frame; JFR spells classes with slashes."""
    cls = frame["method"]["type"]["name"].replace("/", ".")
    return cls, f"{cls.rsplit('.', 1)[-1]}.{frame['method']['name']}"


def hot_methods(jfr: Path, top: int = 8) -> str:
    """Where a recording's CPU samples were: methods on top of the stack (self) and our format-layer
    methods anywhere on it (total, lambdas left out), in % of the samples."""
    text = subprocess.run(["jfr", "print", "--json", "--events", "jdk.ExecutionSample", str(jfr)],
                          capture_output=True, text=True, check=True).stdout
    cpu = json.loads(text)["recording"]["events"]
    own: dict[str, float] = {}
    total: dict[str, float] = {}
    for e in cpu:
        frames = [_method(f) for f in (e["values"]["stackTrace"] or {"frames": []})["frames"]]
        if frames:
            own[frames[0][1]] = own.get(frames[0][1], 0) + 1
        for name in {m for cls, m in frames if cls.startswith("io.sparklance.format") and "$$Lambda" not in cls}:
            total[name] = total.get(name, 0) + 1

    def fmt(d: dict[str, float], n: float) -> str:
        return ", ".join(f"{name} {100 * c / n:.0f} %" for name, c in sorted(d.items(), key=lambda x: -x[1])[:top])
    return (f"{len(cpu)} CPU samples. Self: {fmt(own, max(1, len(cpu)))}. Total (format layer): "
            f"{fmt(total, max(1, len(cpu)))}")


def loadavg() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0, help="data size: 1.0 is ~150 MB of Arrow data per kind")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--profile", type=Path, help="record a JFR profile of the JVM run into this folder")
    args = ap.parse_args()
    kinds = args.kinds.split(",")
    out = REPO / "target" / "bench" / "encode" / f"scale-{args.scale:g}"
    out.mkdir(parents=True, exist_ok=True)
    start, load0 = time.time(), loadavg()
    info = {}
    for kind in kinds:
        path = ipc_file(out, kind, args.scale)
        table = pa.ipc.open_file(str(path)).read_all()
        batches = table.to_batches()
        d = out / kind
        d.mkdir(exist_ok=True)
        info[kind] = {"rows": table.num_rows, "arrow_bytes": table.nbytes, "batches": len(batches),
                      "pylance": pylance_write(batches, table.schema, d / "pylance.lance", args.reps)}
        del table, batches
    if args.profile:
        for f in (f for k in kinds for f in args.profile.glob(f"{k}-*.jfr")):
            f.unlink()
    jvm = jvm_run(out, kinds, args.reps, args.profile)

    print(f"Command: `python bench/encode_bench.py --scale {args.scale:g} --reps {args.reps}`  ")
    print(f"Date: {time.strftime('%Y-%m-%d')}; machine: {os.cpu_count()} vCPU ({platform.processor() or platform.machine()}), "
          f"Linux {platform.release()}; pylance {lance.__version__}, pyarrow {pa.__version__}  ")
    print(f"Load average (1/5/15 min) at start {load0}, at end {loadavg()}; whole run {time.time() - start:.0f} s  ")
    print()
    print("| column kind | rows | Arrow MB | encode MB/s ours: wall / thread CPU / process CPU | "
          "encode MB/s pylance: wall / process CPU | encode speed ours/pylance (process CPU) | file MB ours | "
          "file MB pylance | size ours/pylance | decode MB/s by our reader: our file | pylance's file | "
          "decode speed our file/pylance's |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    tot_ours = tot_theirs = 0
    for kind in kinds:
        i, p, j = info[kind], info[kind]["pylance"], jvm.get(kind, {})
        mb = i["arrow_bytes"] / MB
        py_wall, py_cpu = mb / p["seconds"], mb / p["cpu_seconds"]
        dec_theirs = f"{mb / j['decode_theirs_seconds']:.0f}" if "decode_theirs_seconds" in j else "(failed)"
        if "seconds" not in j:
            err = j.get("error", "no result")
            print(f"| {kind} | {i['rows']:,} | {mb:.0f} | fails: {err} | {py_wall:.0f} / {py_cpu:.0f} | | | "
                  f"{p['bytes'] / MB:.1f} | | | {dec_theirs} | |")
            continue
        ours_wall, ours_cpu, ours_proc = mb / j["seconds"], mb / j["cpu_seconds"], mb / j["process_cpu_seconds"]
        tot_ours += j["bytes"]
        tot_theirs += p["bytes"]
        dec_ours = mb / j["decode_ours_seconds"]
        dec_ratio = f"{j['decode_theirs_seconds'] / j['decode_ours_seconds']:.2f}" if "decode_theirs_seconds" in j else ""
        print(f"| {kind} | {i['rows']:,} | {mb:.0f} | {ours_wall:.0f} / {ours_cpu:.0f} / {ours_proc:.0f} | {py_wall:.0f} / {py_cpu:.0f} | "
              f"{ours_proc / py_cpu:.2f} | {j['bytes'] / MB:.1f} | {p['bytes'] / MB:.1f} | {j['bytes'] / p['bytes']:.3f} | "
              f"{dec_ours:.0f} | {dec_theirs} | {dec_ratio} |")
    if tot_theirs:
        print()
        print(f"Overall size ours/pylance over the kinds both wrote: {tot_ours / MB:.1f} MB / {tot_theirs / MB:.1f} MB "
              f"= {tot_ours / tot_theirs:.3f}")
    print()
    print("Our writer in detail: the fastest run's wall time; the least CPU seconds of the writing thread and of "
          "the whole JVM in one run; the fastest run's time in garbage collection pauses, time the JIT compiler "
          "spent, and heap bytes the writing thread allocated per byte of Arrow input.")
    print()
    print("| column kind | wall s | thread CPU s | process CPU s | GC s | JIT s | heap allocated / Arrow byte |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind in kinds:
        j = jvm.get(kind, {})
        if "seconds" in j:
            print(f"| {kind} | {j['seconds']:.3f} | {j['cpu_seconds']:.3f} | {j['process_cpu_seconds']:.3f} | "
                  f"{j['gc_seconds']:.3f} | {j['jit_seconds']:.3f} | {j['allocated_bytes'] / info[kind]['arrow_bytes']:.1f} |")
    if args.profile:
        print()
        print("Profiles (JFR, 1 ms sampling, as many runs again as were timed):")
        print()
        for jfr in sorted(f for k in kinds for f in args.profile.glob(f"{k}-*.jfr")):
            print(f"- {jfr.stem}: {hot_methods(jfr)}")


if __name__ == "__main__":
    sys.exit(main())
