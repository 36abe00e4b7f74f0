#!/usr/bin/env python3
"""FSST encoding against pylance: the data, pylance's side, and the command for ours.

Usage:  .venv/bin/python bench/fsst_bench.py [--mb 50] [--out target/bench/fsst]

Generates two seeded string columns of about --mb MB each (URL-like; word-like: one to four words
of a Zipf-distributed pseudo-English vocabulary), writes each to <out>/<kind>.txt (one value a
line) and, with pylance 14's `LanceFileWriter` (file version 2.2, one thread: the process is
pinned to one CPU), to <out>/<kind>.lance. Prints pylance's write speed and its pages' sizes and
encodings, and saves the rows of each page to <out>/<kind>.pages (one number a line), so that
FsstEncodeBench compresses the same pages:

    build/sbt "bench/runMain io.sparklance.bench.FsstEncodeBench target/bench/fsst"
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import sys
import time
from pathlib import Path

import pyarrow as pa
from lance.file import LanceFileReader, LanceFileWriter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dev" / "golden"))
from check import summarize  # noqa: E402


def urls(rnd: random.Random, target: int) -> list[str]:
    hosts = [f"{w}.{t}" for w in ("www.example", "docs.lancedb", "spark.apache", "github", "en.wikipedia",
                                   "news.ycombinator", "shop.acme", "api.weather") for t in ("com", "org", "io")]
    segments = ["index", "user", "profile", "search", "article", "images", "static", "api", "v2", "items",
                "products", "category", "2026", "11", "blog", "post", "comments", "download", "assets", "js"]
    out, size = [], 0
    while size < target:
        path = "/".join(rnd.choice(segments) for _ in range(rnd.randint(1, 5)))
        query = f"?id={rnd.randint(0, 10**7)}" if rnd.random() < 0.6 else ""
        s = f"{rnd.choice(('https', 'http'))}://{rnd.choice(hosts)}/{path}{query}"
        out.append(s)
        size += len(s)
    return out


def words(rnd: random.Random, target: int) -> list[str]:
    onsets = ["b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t", "v", "w", "st", "tr", "ch", "sh", "pr"]
    vowels = ["a", "e", "i", "o", "u", "ea", "ou", "io"]
    codas = ["", "n", "r", "s", "t", "ng", "nd", "st", "ll", "ck"]
    vocab = sorted({"".join(rnd.choice(onsets) + rnd.choice(vowels) + rnd.choice(codas)
                            for _ in range(rnd.randint(1, 3))) for _ in range(30000)})
    rnd.shuffle(vocab)
    cumulative = list(itertools.accumulate(1.0 / (i + 1) for i in range(len(vocab))))
    out, size = [], 0
    while size < target:
        s = " ".join(rnd.choices(vocab, cum_weights=cumulative, k=rnd.randint(1, 4)))
        out.append(s)
        size += len(s)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--out", type=Path, default=Path("target/bench/fsst"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    for kind, make in (("urls", urls), ("words", words)):
        values = make(random.Random(20261125), args.mb * 1_000_000)
        (args.out / f"{kind}.txt").write_text("\n".join(values) + "\n")
        table = pa.table({"s": pa.array(values, pa.string())})
        raw = sum(len(v.encode()) for v in values)
        path = args.out / f"{kind}.lance"
        best = None
        for _ in range(3):
            start = time.perf_counter()
            with LanceFileWriter(str(path), table.schema, version="2.2") as writer:
                writer.write_batch(table)
            elapsed = time.perf_counter() - start
            best = elapsed if best is None else min(best, elapsed)
        meta = LanceFileReader(str(path)).metadata()
        pages = meta.columns[0].pages
        # pylance reports no row count per page; its writer puts a column of this size in one page.
        if len(pages) != 1:
            raise SystemExit(f"{kind}: pylance wrote {len(pages)} pages; this script compares one-page columns")
        page_bytes = sum(b.size for p in pages for b in p.buffers)
        encodings = {summarize(p.encoding) for p in pages}
        (args.out / f"{kind}.pages").write_text(f"{meta.num_rows}\n")
        print(f"{kind}: {len(values)} values, {raw} bytes; pylance 2.2 writer on one CPU: best of 3 "
              f"{best:.3f} s = {raw / best / 1e6:.1f} MB/s; {len(pages)} pages, {page_bytes} bytes in page "
              f"buffers (+ {len(pages)} x 2312-byte tables) = ratio {raw / (page_bytes + 2312 * len(pages)):.3f}; "
              f"encodings {sorted(encodings)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
