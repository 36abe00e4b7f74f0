#!/usr/bin/env python3
"""Reads Lance data files with pylance's file reader and checks them against expected tables.

Usage:  python dev/golden/read_file.py EXPECTED.arrow FILE.lance [EXPECTED.arrow FILE.lance ...]

The oracle for our file writer: for each pair, FILE.lance (written by spark-lance) is read with
`lance.file.LanceFileReader` and compared, value by value and type by type, with the Arrow IPC
file EXPECTED.arrow (the batches that were written). Prints one JSON object per pair on its own
line: {"file", "equal", "rows", "version", "diff" (first differences, when not equal),
"columns": [[summary of each page's encoding, ...] per column] or "error"}. Field metadata is
compared too, but schema-level metadata is not (the file writer's is its own). Exit status 0
when every file matched.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
from lance.file import LanceFileReader

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check import summarize  # noqa: E402


def _nan_free(x):
    """Python values with every NaN replaced by a marker, so that NaN equals NaN (Arrow's
    equality, like IEEE, says it does not; a NaN written must read back as a NaN)."""
    if isinstance(x, (float, np.floating)) and x != x:
        return "NaN"
    if isinstance(x, list):
        return [_nan_free(v) for v in x]
    if isinstance(x, dict):
        return {k: _nan_free(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(_nan_free(v) for v in x)
    return x


def _same(got, want) -> bool:
    return got.equals(want) or _nan_free(got.to_pylist()) == _nan_free(want.to_pylist())


def _first_differences(got: pa.Table, want: pa.Table, limit: int = 5) -> list[str]:
    out: list[str] = []
    if got.schema.remove_metadata() != want.schema.remove_metadata():
        out.append(f"schema: got {got.schema.remove_metadata()} want {want.schema.remove_metadata()}")
        return out
    if got.num_rows != want.num_rows:
        return [f"rows: got {got.num_rows} want {want.num_rows}"]
    for name in want.column_names:
        g, w = got.column(name).combine_chunks(), want.column(name).combine_chunks()
        if _same(g, w):
            continue
        for i in range(len(w)):
            if _nan_free(g[i].as_py()) != _nan_free(w[i].as_py()):
                out.append(f"{name}[{i}]: got {g[i]!r} want {w[i]!r}")
                if len(out) >= limit:
                    return out
    return out


def check(expected: Path, path: Path) -> dict:
    with pa.memory_map(str(expected)) as source:
        want = pa.ipc.open_file(source).read_all()
    try:
        reader = LanceFileReader(str(path))
        meta = reader.metadata()
        got = reader.read_all().to_table()
    except Exception as e:  # pylance refusing the file is the finding
        return {"file": str(path), "equal": False, "error": f"{type(e).__name__}: {e}"}
    got_plain = pa.Table.from_arrays(got.columns, schema=got.schema.remove_metadata())
    want_plain = pa.Table.from_arrays(want.columns, schema=want.schema.remove_metadata())
    equal = got_plain.equals(want_plain, check_metadata=True) or (
        got_plain.schema.equals(want_plain.schema, check_metadata=True) and _same(got_plain, want_plain)
    )
    result = {
        "file": str(path),
        "equal": equal,
        "rows": meta.num_rows,
        "version": f"{meta.major_version}.{meta.minor_version}",
        "columns": [[summarize(p.encoding) for p in c.pages] for c in meta.columns],
    }
    if not equal:
        result["diff"] = _first_differences(got_plain, want_plain)
    return result


def main(argv: list[str]) -> int:
    if len(argv) % 2 != 0 or not argv:
        print(__doc__, file=sys.stderr)
        return 2
    ok = True
    for i in range(0, len(argv), 2):
        r = check(Path(argv[i]), Path(argv[i + 1]))
        ok = ok and r["equal"]
        print(json.dumps(r), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
