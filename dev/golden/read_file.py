#!/usr/bin/env python3
"""Reads Lance data files with pylance's file reader and checks them against expected tables.

Usage:  python dev/golden/read_file.py EXPECTED.arrow FILE.lance [EXPECTED.arrow FILE.lance ...]

The oracle for our file writer: for each pair, FILE.lance (written by spark-lance) is read with
`lance.file.LanceFileReader` and compared, value by value and type by type, with the Arrow IPC
file EXPECTED.arrow (the batches that were written). Prints one JSON object per pair on its own
line: {"file", "equal", "rows", "version", "diff" (first differences, when not equal),
"columns": [[summary of each page's encoding, ...] per column], "column_bytes": [bytes of
every page buffer of each column], or "error"}. Field metadata is
compared too, but schema-level metadata is not (the file writer's is its own). Exit status 0
when every file matched.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pyarrow as pa
from lance.file import LanceFileReader

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check import summarize  # noqa: E402


def _same(a, b) -> bool:
    """Python values equal, NaN equal to NaN (Arrow's equality says a NaN differs from itself)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _first_differences(got: pa.Table, want: pa.Table, limit: int = 5) -> list[str]:
    out: list[str] = []
    if got.schema.remove_metadata() != want.schema.remove_metadata():
        out.append(f"schema: got {got.schema.remove_metadata()} want {want.schema.remove_metadata()}")
        return out
    if got.num_rows != want.num_rows:
        return [f"rows: got {got.num_rows} want {want.num_rows}"]
    for name in want.column_names:
        g, w = got.column(name).combine_chunks(), want.column(name).combine_chunks()
        if g.equals(w):
            continue
        for i in range(len(w)):
            if not _same(g[i].as_py(), w[i].as_py()):
                out.append(f"{name}[{i}]: got {g[i]!r} want {w[i]!r}")
                if len(out) >= limit:
                    return out
    return out


def _decode_dictionaries(t: pa.Table) -> pa.Table:
    """Dictionary columns as their value type: a dictionary is how values are stored, and our
    reader (like Spark) hands them over decoded."""
    cols, fields = [], []
    for f, c in zip(t.schema, t.columns):
        if pa.types.is_dictionary(f.type):
            c = c.cast(f.type.value_type)
            f = f.with_type(f.type.value_type)
        cols.append(c)
        fields.append(f)
    return pa.Table.from_arrays(cols, schema=pa.schema(fields))


def check(expected: Path, path: Path) -> dict:
    with pa.memory_map(str(expected)) as source:
        want = pa.ipc.open_file(source).read_all()
    try:
        reader = LanceFileReader(str(path))
        meta = reader.metadata()
    except Exception as e:  # pylance refusing the file is the finding
        return {"file": str(path), "equal": False, "error": f"{type(e).__name__}: {e}"}
    encodings = {
        "columns": [[summarize(p.encoding) for p in c.pages] for c in meta.columns],
        "column_bytes": [sum(b.size for p in c.pages for b in p.buffers) for c in meta.columns],
    }
    try:
        got = reader.read_all().to_table()
    except Exception as e:
        return {"file": str(path), "equal": False, "error": f"{type(e).__name__}: {e}", **encodings}
    got_plain = _decode_dictionaries(pa.Table.from_arrays(got.columns, schema=got.schema.remove_metadata()))
    want_plain = _decode_dictionaries(pa.Table.from_arrays(want.columns, schema=want.schema.remove_metadata()))
    equal = got_plain.equals(want_plain, check_metadata=True) or (
        got_plain.schema.equals(want_plain.schema, check_metadata=True) and not _first_differences(got_plain, want_plain, limit=1))
    result = {
        "file": str(path),
        "equal": equal,
        "rows": meta.num_rows,
        "version": f"{meta.major_version}.{meta.minor_version}",
        **encodings,
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
