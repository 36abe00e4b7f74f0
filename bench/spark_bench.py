"""Spark scan benchmark: spark-lance against Spark's own Parquet source, same session.

Generates (once, cached under target/bench/spark/rows-<N>/) a scalar table of N rows

    id int64 (sorted, 0..N-1), f1..f3 float64, i1..i2 int32,
    s string (random lowercase, 16..24 chars), cat string (10 distinct values)

and a vector table of N/10 rows (id int64, vec fixed_size_list<float32, 128>), each written
twice: by pylance (lance.write_dataset, default settings, fed in batches through a
RecordBatchReader) and by pyarrow.parquet (snappy, one file per table, row groups of about
128 MB). The Lance scalar table then gets a ZONEMAP and a BTREE index on id (both on the
same column, pylance allows it). Both writers see exactly the same batches.

Then one local[2] SparkSession (6g driver) runs each query against both formats: --warmups
warm-up runs (3), then the best of --reps runs (9), and checks that both formats return the same
answer. A separate, untimed run per query samples JVM memory (heap used, Netty/JDK direct
memory, process RSS) every ~20 ms. Finally it measures driver-side planning time for a Lance
table with --fragments fragments of one row each (written with
lance.fragment.write_fragments + one LanceDataset.commit).

Usage:
    python bench/spark_bench.py                 # 10,000,000 rows
    python bench/spark_bench.py --rows 1000000  # quick mode
    options: --force (regenerate data), --warmups 3, --reps 9, --fragments 100000, --no-memory,
             --no-fragments, --only "COUNT,look-up" (those queries and the floor, printed only)
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "target" / "bench" / "spark"
DIM = 128
CATS = [f"category_{i}" for i in range(10)]

SCALAR_SCHEMA = pa.schema([
    ("id", pa.int64()), ("f1", pa.float64()), ("f2", pa.float64()), ("f3", pa.float64()),
    ("i1", pa.int32()), ("i2", pa.int32()), ("s", pa.string()), ("cat", pa.string()),
])
VEC_SCHEMA = pa.schema([("id", pa.int64()), ("vec", pa.list_(pa.float32(), DIM))])

# Rows per Parquet row group, chosen so that a row group is ~128 MB on disk
# (scalar rows are ~64 bytes, vector rows 512 bytes).
SCALAR_RG_ROWS = 2_000_000
VEC_RG_ROWS = 256 * 1024
CHUNK = 500_000  # rows per generated Arrow batch for the scalar table
VEC_CHUNK = 64 * 1024


# ----------------------------------------------------------------------------- data


def scalar_batch(start: int, n: int) -> pa.RecordBatch:
    rng = np.random.default_rng([42, start])
    lengths = rng.integers(16, 25, n, dtype=np.int32)  # mean 20 chars
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    chars = rng.integers(ord("a"), ord("z") + 1, int(offsets[-1]), dtype=np.uint8)
    s = pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(chars))
    cat = pc.take(pa.array(CATS), pa.array(rng.integers(0, len(CATS), n, dtype=np.int32)))
    return pa.RecordBatch.from_arrays([
        pa.array(np.arange(start, start + n, dtype=np.int64)),
        pa.array(rng.standard_normal(n)),
        pa.array(rng.standard_normal(n)),
        pa.array(rng.standard_normal(n)),
        pa.array(rng.integers(0, 1_000_000, n, dtype=np.int32)),
        pa.array(rng.integers(-1000, 1000, n, dtype=np.int32)),
        s, cat,
    ], schema=SCALAR_SCHEMA)


def vec_batch(start: int, n: int) -> pa.RecordBatch:
    rng = np.random.default_rng([7, start])
    values = pa.array(rng.random(n * DIM, dtype=np.float32))
    return pa.RecordBatch.from_arrays([
        pa.array(np.arange(start, start + n, dtype=np.int64)),
        pa.FixedSizeListArray.from_arrays(values, DIM),
    ], schema=VEC_SCHEMA)


def write_pair(lance_uri: Path, parquet_path: Path, schema: pa.Schema, make, total: int,
               chunk: int, rg_rows: int) -> None:
    """Writes the same batches to a Lance dataset and a Parquet file in one pass."""
    import lance

    writer = pq.ParquetWriter(str(parquet_path), schema, compression="snappy")
    pending: list[pa.RecordBatch] = []

    def flush() -> None:
        if pending:
            tbl = pa.Table.from_batches(pending, schema=schema)
            writer.write_table(tbl, row_group_size=tbl.num_rows)
            pending.clear()

    def batches():
        buffered = 0
        for start in range(0, total, chunk):
            b = make(start, min(chunk, total - start))
            pending.append(b)
            buffered += b.num_rows
            if buffered >= rg_rows:
                flush()
                buffered = 0
            yield b
        flush()

    reader = pa.RecordBatchReader.from_batches(schema, batches())
    lance.write_dataset(reader, str(lance_uri), mode="overwrite")
    writer.close()


def du(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def ensure_data(rows: int, force: bool) -> dict:
    import lance

    d = OUT / f"rows-{rows}"
    meta_path = d / "meta.json"
    if meta_path.is_file() and not force:
        meta = json.loads(meta_path.read_text())
        print(f"using cached data in {d} (written {meta['written']}; --force regenerates)")
        return meta
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    meta: dict = {"rows": rows, "vec_rows": rows // 10, "dir": str(d)}
    t0 = time.perf_counter()
    write_pair(d / "scalar.lance", d / "scalar.parquet", SCALAR_SCHEMA, scalar_batch, rows,
               CHUNK, SCALAR_RG_ROWS)
    meta["write_scalar_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    ds = lance.dataset(str(d / "scalar.lance"))
    ds.create_scalar_index("id", "ZONEMAP", name="id_zonemap")
    ds.create_scalar_index("id", "BTREE", name="id_btree")
    meta["index_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    write_pair(d / "vec.lance", d / "vec.parquet", VEC_SCHEMA, vec_batch, rows // 10,
               VEC_CHUNK, VEC_RG_ROWS)
    meta["write_vec_s"] = time.perf_counter() - t0
    ds = lance.dataset(str(d / "scalar.lance"))
    meta["lance_scalar"] = {
        "version": ds.version, "fragments": len(ds.get_fragments()),
        "file_format": ds.data_storage_version,
        "indices": [(i["name"], i["type"]) for i in ds.list_indices()],
    }
    meta["lance_vec_fragments"] = len(lance.dataset(str(d / "vec.lance")).get_fragments())
    for name in ("scalar.lance", "scalar.parquet", "vec.lance", "vec.parquet"):
        meta[f"bytes_{name}"] = du(d / name)
    for name in ("scalar.parquet", "vec.parquet"):
        meta[f"row_groups_{name}"] = pq.ParquetFile(str(d / name)).metadata.num_row_groups
    meta["written"] = dt.datetime.now().isoformat(timespec="seconds")
    meta_path.write_text(json.dumps(meta, indent=1))
    print(f"wrote data in {d}: scalar {meta['write_scalar_s']:.1f}s, indexes "
          f"{meta['index_s']:.1f}s, vectors {meta['write_vec_s']:.1f}s")
    return meta


def ensure_fragments_table(n: int, force: bool) -> dict:
    """A Lance table of `n` one-row fragments: write_fragments + one Overwrite commit."""
    import lance
    from lance.fragment import write_fragments

    uri = OUT / f"fragments-{n}.lance"
    meta_path = OUT / f"fragments-{n}.json"
    if meta_path.is_file() and not force:
        return json.loads(meta_path.read_text())
    if uri.exists():
        shutil.rmtree(uri)
    OUT.mkdir(parents=True, exist_ok=True)
    tbl = pa.table({"id": pa.array(np.arange(n, dtype=np.int64)),
                    "x": pa.array(np.arange(n, dtype=np.float64))})
    t0 = time.perf_counter()
    frags = write_fragments(tbl, str(uri), max_rows_per_file=1)
    t1 = time.perf_counter()
    ds = lance.LanceDataset.commit(str(uri), lance.LanceOperation.Overwrite(tbl.schema, frags))
    t2 = time.perf_counter()
    meta = {"uri": str(uri), "fragments": len(ds.get_fragments()), "rows": ds.count_rows(),
            "write_fragments_s": t1 - t0, "commit_s": t2 - t1, "bytes": du(uri),
            "manifest_bytes": max(p.stat().st_size for p in (uri / "_versions").glob("*.manifest"))}
    meta_path.write_text(json.dumps(meta, indent=1))
    return meta


# ---------------------------------------------------------------------------- spark


def start_spark(jar: str, conf: dict[str, str] | None = None):
    """The benchmarks' session: local[2], 6g driver, the connector jar, and `conf` on top."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_SUBMIT_ARGS"] = "--driver-memory 6g pyspark-shell"
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("spark-lance benchmark")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "6g")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.jars", jar)
    )
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


class MemorySampler:
    """Samples the (driver = executor in local mode) JVM every ~20 ms through py4j."""

    def __init__(self, spark):
        jvm = spark.sparkContext._jvm
        self.mf = jvm.java.lang.management.ManagementFactory
        self.heap = self.mf.getMemoryMXBean()
        pools = self.mf.getPlatformMXBeans(jvm.java.lang.Class.forName("java.lang.management.BufferPoolMXBean"))
        self.direct = [p for p in pools if p.getName() == "direct"][0]
        self.netty = jvm.io.netty.util.internal.PlatformDependent
        try:  # Arrow's own pool (arrow-memory-netty): live normal + huge buffers
            cls = jvm.java.lang.Class.forName("org.apache.arrow.memory.netty.NettyAllocationManager")
            field = cls.getDeclaredField("INNER_ALLOCATOR")
            field.setAccessible(True)
            self.arrow = field.get(None)
        except Exception:  # noqa: BLE001 - optional
            self.arrow = None
        self.pid = int(jvm.java.lang.ProcessHandle.current().pid())
        self.jvm = jvm

    def gc(self) -> None:
        self.jvm.java.lang.System.gc()

    def sample(self) -> dict:
        rss = 0
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) * 1024
        except OSError:
            pass
        return {"heap": int(self.heap.getHeapMemoryUsage().getUsed()),
                "netty_direct": int(self.netty.usedDirectMemory()),
                "arrow": (int(self.arrow.getNormalBufferSize()) + int(self.arrow.getHugeBufferSize())
                          if self.arrow is not None else -1),
                "jdk_direct": int(self.direct.getMemoryUsed()), "rss": rss}

    def run(self, action) -> dict:
        self.gc()
        base = self.sample()
        peak = dict(base)
        stop = threading.Event()

        def loop():
            while not stop.is_set():
                s = self.sample()
                for k, v in s.items():
                    peak[k] = max(peak[k], v)
                stop.wait(0.02)

        th = threading.Thread(target=loop, daemon=True)
        th.start()
        try:
            action()
        finally:
            stop.set()
            th.join()
        return {"base": base, "peak": peak}


class ForeignCpu:
    """CPU used by processes other than this benchmark (python + its JVM), from /proc."""

    def __init__(self, pids: list[int]):
        self.pids = pids
        self.hz = os.sysconf("SC_CLK_TCK")

    def snapshot(self) -> tuple[int, int]:
        f = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
        busy = sum(int(x) for i, x in enumerate(f[:8]) if i not in (3, 4))  # minus idle, iowait
        own = 0
        for pid in self.pids:
            try:
                st = Path(f"/proc/{pid}/stat").read_text()
                fields = st[st.rindex(")") + 2:].split()
                own += int(fields[11]) + int(fields[12])  # utime + stime
            except (OSError, ValueError, IndexError):
                pass
        return busy, own

    def cores(self, before: tuple[int, int], after: tuple[int, int], wall: float) -> float:
        """Average number of cores other processes kept busy over `wall` seconds."""
        foreign = (after[0] - before[0]) - (after[1] - before[1])
        return max(0.0, foreign / self.hz / wall) if wall > 0 else 0.0


def timed(action, reps: int, probe: ForeignCpu | None = None, warmups: int = 2) -> tuple[float, list[float], object, list[float]]:
    # Both sources keep getting faster over the first runs of a query while the JIT compiles
    # Spark's generated code and the readers; the warm-ups keep that out of the timings.
    for _ in range(warmups):
        result = action()
    times, other = [], []
    for _ in range(reps):
        s0 = probe.snapshot() if probe else None
        t0 = time.perf_counter()
        result = action()
        wall = time.perf_counter() - t0
        times.append(wall)
        if probe:
            other.append(probe.cores(s0, probe.snapshot(), wall))
    return min(times), times, result, other


def same(a, b) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)
    return a == b


def queries(rows: int) -> list[dict]:
    lo = int(rows * 0.37)
    hi = lo + rows // 1000 - 1
    keys = sorted(int(k) for k in np.random.default_rng(3).choice(rows, 10, replace=False))
    keylist = ", ".join(map(str, keys))
    vrows = rows // 10
    return [
        {"name": "COUNT(*)", "table": "scalar", "rows": rows,
         "sql": "SELECT count(*) FROM {t}"},
        {"name": "full scan, 8 scalar columns (sums, length(s), count(cat), max(id))",
         "table": "scalar", "rows": rows,
         "sql": "SELECT sum(f1), sum(f2), sum(f3), sum(i1), sum(i2), sum(length(s)), "
                "count(cat), max(id) FROM {t}"},
        {"name": "full scan, all columns to noop sink", "table": "scalar", "rows": rows,
         "noop": True, "sql": "SELECT * FROM {t}"},
        {"name": "one column: sum(f1)", "table": "scalar", "rows": rows,
         "sql": "SELECT sum(f1) FROM {t}"},
        {"name": "one column to noop sink: SELECT f1", "table": "scalar", "rows": rows,
         "noop": True, "sql": "SELECT f1 FROM {t}"},
        {"name": f"range filter 0.1%: id BETWEEN {lo} AND {hi}", "table": "scalar", "rows": rows,
         "sql": f"SELECT count(*), sum(f1) FROM {{t}} WHERE id BETWEEN {lo} AND {hi}"},
        {"name": "point look-up: id IN (10 keys), all columns", "table": "scalar", "rows": rows,
         "sql": f"SELECT * FROM {{t}} WHERE id IN ({keylist})", "sort": True},
        {"name": f"vectors: sum(size(vec)), {DIM}-d float32", "table": "vec", "rows": vrows,
         "sql": "SELECT sum(size(vec)) FROM {t}"},
        {"name": "vectors: sum(vec[0]), one value of each vector", "table": "vec", "rows": vrows,
         "sql": "SELECT sum(vec[0]) FROM {t}"},
        {"name": "vectors: sum(aggregate(vec, 0D, (a, x) -> a + x))", "table": "vec",
         "rows": vrows, "sql": "SELECT sum(aggregate(vec, 0D, (a, x) -> a + x)) FROM {t}"},
    ]


def fmt_rate(rows: int, secs: float) -> str:
    r = rows / secs
    return f"{r / 1e6:.1f} M" if r >= 1e6 else f"{r / 1e3:.0f} k"


def mb(n: int) -> str:
    return f"{n / 2**20:,.0f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--warmups", type=int, default=3)
    ap.add_argument("--force", action="store_true", help="regenerate the cached data")
    ap.add_argument("--fragments", type=int, default=100_000)
    ap.add_argument("--no-fragments", action="store_true")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--generate-only", action="store_true", help="write the data, run nothing")
    ap.add_argument("--jar", help="connector jar (default: the one pyspark_lance bundles)")
    ap.add_argument("--only", help="comma-separated parts of query names: run only those (and the floor); "
                                   "results are printed, not written")
    ap.add_argument("--scan-timeout", type=float, default=60.0,
                    help="seconds before the fragment-table count/scan is cancelled")
    args = ap.parse_args()
    if args.rows < 10_000:
        ap.error("--rows must be at least 10000")

    t_start = time.perf_counter()
    load_start = os.getloadavg()
    meta = ensure_data(args.rows, args.force)
    d = Path(meta["dir"])
    frag_meta = None
    if not args.no_fragments:
        t0 = time.perf_counter()
        frag_meta = ensure_fragments_table(args.fragments, args.force)
        print(f"fragments table: {frag_meta['fragments']} fragments "
              f"(write_fragments {frag_meta['write_fragments_s']:.1f}s, commit "
              f"{frag_meta['commit_s']:.1f}s; ready in {time.perf_counter() - t0:.1f}s)")

    if args.generate_only:
        return

    # Snapshot the jar: `make jar` elsewhere may overwrite it while this JVM runs.
    import pyspark_lance

    src_jar = Path(args.jar or pyspark_lance.jar_path())
    OUT.mkdir(parents=True, exist_ok=True)
    jar = OUT / f"spark-lance-bench-{os.getpid()}.jar"
    shutil.copyfile(src_jar, jar)
    jar_sha = hashlib.sha256(jar.read_bytes()).hexdigest()[:12]
    jar_mtime = dt.datetime.fromtimestamp(src_jar.stat().st_mtime).isoformat(timespec="seconds")
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
    except OSError:
        head = "?"

    spark = start_spark(str(jar))
    import pyspark
    jvm = spark.sparkContext._jvm
    max_heap = int(jvm.java.lang.Runtime.getRuntime().maxMemory())
    sampler = None if args.no_memory else MemorySampler(spark)
    probe = ForeignCpu([os.getpid(), int(jvm.java.lang.ProcessHandle.current().pid())])

    tables = {}
    for fmt in ("parquet", "lance"):
        for t in ("scalar", "vec"):
            path = d / f"{t}.{fmt}"
            df = spark.read.format(fmt).load(str(path))
            view = f"{fmt[0]}_{t}"
            df.createOrReplaceTempView(view)
            tables[(fmt, t)] = (view, df.rdd.getNumPartitions())

    results = []
    chosen = [q for q in queries(args.rows) if not args.only or any(p in q["name"] for p in args.only.split(","))]
    for q in chosen:
        row = {"query": q["name"], "rows": q["rows"]}
        answers = {}
        for fmt in ("parquet", "lance"):
            view, parts = tables[(fmt, q["table"])]
            sql = q["sql"].format(t=view)
            if q.get("noop"):
                def action(sql=sql):
                    spark.sql(sql).write.format("noop").mode("overwrite").save()
                    return None
            else:
                def action(sql=sql, sort=q.get("sort", False)):
                    rows = [tuple(r) for r in spark.sql(sql).collect()]
                    return sorted(rows) if sort else rows  # sorted here: no ORDER BY job
            try:
                best, times, answer, other = timed(action, args.reps, probe, args.warmups)
            except Exception as e:  # keep going; report the failure
                msg = str(e).strip().splitlines()[0][:200]
                print(f"  {fmt:7s} {q['name']}: FAILED {msg}")
                row[fmt] = {"error": msg}
                continue
            answers[fmt] = answer
            row[fmt] = {"best": best, "times": times, "partitions": parts,
                        "other_cores": other[times.index(best)] if other else None,
                        "other_cores_max": max(other) if other else None}
            if sampler is not None:
                row[fmt]["memory"] = sampler.run(action)
            print(f"  {fmt:7s} {q['name']}: best {best:.3f}s of {[round(x, 3) for x in times]}"
                  f" (other processes' CPU, cores: {[round(x, 2) for x in other]})")
        if len(answers) == 2:
            row["same_answer"] = same(answers["parquet"], answers["lance"])
            if not row["same_answer"]:
                print(f"  MISMATCH: parquet {answers['parquet']!r:.300} lance {answers['lance']!r:.300}")
        results.append(row)

    # Spark's own cost of a query, with no table: what no source can go below.
    floor = {
        "SELECT 1 (no job)": timed(lambda: spark.sql("SELECT 1").collect(), 2 * args.reps, None, args.warmups)[0],
        "a filter over a 2-partition range(1000) (one job, one stage, as a look-up)": timed(
            lambda: spark.sql("SELECT * FROM range(0, 1000, 1, 2) WHERE id IN (3, 500, 999)").collect(),
            2 * args.reps, None, args.warmups)[0],
        "an aggregate over a 2-partition range(1000) (one job, two stages)": timed(
            lambda: spark.sql("SELECT count(*), sum(id) FROM range(0, 1000, 1, 2)").collect(),
            2 * args.reps, None, args.warmups)[0],
    }
    print("  Spark floor: " + ", ".join(f"{k} {v:.3f}s" for k, v in floor.items()))

    if args.only:
        return
    planning = None
    if frag_meta is not None:
        planning = measure_planning(spark, frag_meta["uri"], str(d / "scalar.lance"), args.reps,
                                    args.scan_timeout)

    spark.stop()
    jar.unlink(missing_ok=True)
    total = time.perf_counter() - t_start
    load_end = os.getloadavg()

    # ------------------------------------------------------------------ report
    lines = []
    cpu = next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines()
                if l.startswith("model name")), platform.processor())
    mem_gb = int(Path("/proc/meminfo").read_text().split()[1]) / 2**20
    lines.append(f"Command: `python bench/spark_bench.py --rows {args.rows}`  ")
    lines.append(f"Date: {dt.date.today().isoformat()}; machine: {os.cpu_count()} vCPU ({cpu}), "
                 f"{mem_gb:.0f} GB RAM, {platform.system()} {platform.release()}  ")
    lines.append(f"Spark {pyspark.__version__} local[2], driver heap {max_heap / 2**30:.1f} GiB; "
                 f"pylance {__import__('lance').__version__}, pyarrow {pa.__version__}; "
                 f"jar sha256 {jar_sha}… (built {jar_mtime}, repo HEAD {head})  ")
    ls = meta["lance_scalar"]
    lines.append(f"Data: scalar table {args.rows:,} rows — Lance {mb(meta['bytes_scalar.lance'])} MB "
                 f"({ls['fragments']} fragments, file format {ls['file_format']}, indexes "
                 f"{', '.join(f'{n} ({t})' for n, t in ls['indices'])}), Parquet "
                 f"{mb(meta['bytes_scalar.parquet'])} MB ({meta['row_groups_scalar.parquet']} row groups); "
                 f"vector table {meta['vec_rows']:,} rows — Lance {mb(meta['bytes_vec.lance'])} MB "
                 f"({meta['lance_vec_fragments']} fragments), Parquet {mb(meta['bytes_vec.parquet'])} MB "
                 f"({meta['row_groups_vec.parquet']} row groups).  ")
    lines.append(f"Input partitions: scalar Parquet {tables[('parquet', 'scalar')][1]}, "
                 f"Lance {tables[('lance', 'scalar')][1]}; vectors Parquet {tables[('parquet', 'vec')][1]}, "
                 f"Lance {tables[('lance', 'vec')][1]}. Times: best of {args.reps} after {args.warmups} warm-ups, "
                 f"data in the OS page cache. \"other CPU\" = cores kept busy by other processes "
                 f"on the machine during the best run (from /proc; 2 cores in all).")
    lines.append("")
    lines.append("| query | rows | Parquet s | Lance s | speed-up (Parquet/Lance) | speed-up of medians | "
                 "Parquet rows/s | Lance rows/s | same answer | other CPU P / L |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|:-:|---:|")
    for r in results:
        p, l = r.get("parquet", {}), r.get("lance", {})
        ps = f"{p['best']:.3f}" if "best" in p else f"error: {p.get('error')}"
        lsec = f"{l['best']:.3f}" if "best" in l else f"error: {l.get('error')}"
        sp = f"{p['best'] / l['best']:.2f}×" if "best" in p and "best" in l else "–"
        spm = (f"{statistics.median(p['times']) / statistics.median(l['times']):.2f}×"
               if "best" in p and "best" in l else "–")
        pr = fmt_rate(r["rows"], p["best"]) if "best" in p else "–"
        lr = fmt_rate(r["rows"], l["best"]) if "best" in l else "–"
        sa = {True: "yes", False: "**NO**"}.get(r.get("same_answer"), "–")
        oc = " / ".join(f"{x['other_cores']:.2f}" if x.get("other_cores") is not None else "–"
                        for x in (p, l))
        lines.append(f"| {r['query']} | {r['rows']:,} | {ps} | {lsec} | {sp} | {spm} | {pr} | {lr} | {sa} | {oc} |")
    lines.append("")
    lines.append("Spark's own floor in the same session (no table; best of "
                 f"{2 * args.reps}): " + "; ".join(f"{k} {v:.3f} s" for k, v in floor.items()) +
                 ". No source's query can take less, so no speed-up can exceed Parquet's time "
                 "divided by the floor of its plan shape.")

    if sampler is not None:
        lines.append("")
        lines.append("Memory of the one JVM (driver = executor, 2 concurrent tasks), sampled every ~20 ms "
                     "during one extra, untimed run per query after a System.gc(); peaks in MB. "
                     "Heap = used Java heap, including garbage not yet collected; Netty direct = "
                     "PlatformDependent.usedDirectMemory(): the arena chunks of Arrow's pooled "
                     "allocator (which the Lance reader's RootAllocator uses; chunks stay pooled "
                     "after use, so this is a high-water mark) plus Arrow's huge buffers and "
                     "Spark's own Netty buffers (~9 MB at start); RSS = JVM process resident set.")
        lines.append("")
        lines.append("| query | heap Parquet | heap Lance | Netty direct Parquet | Netty direct Lance "
                     "| RSS Parquet | RSS Lance |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|")
        for r in results:
            cells = []
            for key in ("heap", "netty_direct", "rss"):
                for fmt in ("parquet", "lance"):
                    m = r.get(fmt, {}).get("memory")
                    cells.append(mb(m["peak"][key]) if m and m["peak"].get(key, -1) >= 0 else "–")
            lines.append(f"| {r['query']} | " + " | ".join(cells) + " |")

    if planning is not None:
        fm = frag_meta
        lines.append("")
        lines.append(f"Planning, Lance table of {fm['fragments']:,} one-row fragments "
                     f"(manifest {mb(fm['manifest_bytes'])} MB, {mb(fm['bytes'])} MB on disk; "
                     f"written with write_fragments in {fm['write_fragments_s']:.1f} s + one commit "
                     f"in {fm['commit_s']:.1f} s). Planning = `spark.read.format(\"lance\").load(uri)` "
                     f"+ `df.rdd.getNumPartitions()`, on the driver.")
        lines.append("")
        lines.append("| table | fragments | input partitions | first planning s | best planning s | "
                     "count() s | one-column scan s |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|")

        def secs(x: float) -> str:
            return f"{x:.3f}" if x >= 0 else f"> {-x:.0f} (cancelled)"

        for p in planning:
            lines.append(f"| {p['table']} | {p['fragments']:,} | {p['partitions']:,} | "
                         f"{p['first']:.3f} | {p['best']:.3f} | {secs(p['count_s'])} | "
                         f"{secs(p['scan_s'])} (sum({p['scan_col']})) |")
    lines.append("")
    lines.append(f"Whole run (including any data generation): {total:.0f} s. Load average "
                 f"(1/5/15 min) at start {'/'.join(f'{x:.1f}' for x in load_start)}, at end "
                 f"{'/'.join(f'{x:.1f}' for x in load_end)} (2 would mean both cores busy with this run).")
    report = "\n".join(lines)
    print()
    print(report)
    (OUT / f"results-{args.rows}.md").write_text(report + "\n")
    (OUT / f"results-{args.rows}.json").write_text(json.dumps(
        {"meta": meta, "fragments": frag_meta, "results": results, "planning": planning,
         "jar_sha256": jar_sha, "max_heap": max_heap, "total_s": total}, indent=1, default=str))
    print(f"\nwritten to {OUT}/results-{args.rows}.md")


def with_timeout(spark, action, timeout: float) -> float:
    """Seconds `action` took, or -timeout when it was cancelled after `timeout` seconds."""
    sc = spark.sparkContext
    group = f"bench-{time.monotonic_ns()}"
    sc.setJobGroup(group, "bench", interruptOnCancel=True)
    timer = threading.Timer(timeout, lambda: sc.cancelJobGroup(group))
    t0 = time.perf_counter()
    timer.start()
    try:
        action()
        return time.perf_counter() - t0
    except Exception:  # noqa: BLE001 - cancelled (or failed): report as not finished
        return -(time.perf_counter() - t0)
    finally:
        timer.cancel()
        sc.setLocalProperty("spark.jobGroup.id", None)


def measure_planning(spark, frag_uri: str, main_uri: str, reps: int, timeout: float) -> list[dict]:
    import lance

    out = []
    for label, uri, col in ((Path(frag_uri).name, frag_uri, "x"), ("main scalar table", main_uri, "f1")):
        times = []
        parts = 0
        for _ in range(reps + 1):
            t0 = time.perf_counter()
            df = spark.read.format("lance").load(uri)
            parts = df.rdd.getNumPartitions()
            times.append(time.perf_counter() - t0)
        df = spark.read.format("lance").load(uri)
        count_s = with_timeout(spark, df.count, timeout)
        scan_s = with_timeout(spark, lambda: df.selectExpr(f"sum({col})").collect(), timeout)
        p = {"table": label, "fragments": len(lance.dataset(uri).get_fragments()),
             "partitions": parts, "first": times[0], "best": min(times[1:]), "times": times,
             "count_s": count_s, "scan_s": scan_s, "scan_col": col}
        print(f"  planning {label}: {p}")
        out.append(p)
    return out


if __name__ == "__main__":
    main()
