#!/usr/bin/env python3
"""Reads and changes a Lance table with pylance for the commit tests (connector/src/test/.../CommitFixtures).

Usage:  table_ops.py read URI [VERSION]      rows (id, s) sorted by id, (id, _rowid) pairs, the version, each version's operation
        table_ops.py ids URI VERSION...      the ids of each version, sorted
        table_ops.py count URI               the latest version and its row count
        table_ops.py append URI ID...        appends rows (id, "r<id>"), prints the new version
        table_ops.py delete URI PREDICATE    deletes rows, prints the new version

Prints one JSON object; on failure {"error": ...}.
"""

from __future__ import annotations

import json
import sys

import lance
import pyarrow as pa

SCHEMA = pa.schema([("id", pa.int64()), ("s", pa.string())])


def main(argv: list[str]) -> dict:
    cmd, uri, rest = argv[0], argv[1], argv[2:]
    if cmd == "read":
        ds = lance.dataset(uri, version=int(rest[0])) if rest else lance.dataset(uri)
        t = ds.to_table(columns=["id", "s"], with_row_id=True)
        rows = sorted(zip(t.column("id").to_pylist(), t.column("s").to_pylist()))
        rowids = sorted(zip(t.column("id").to_pylist(), t.column("_rowid").to_pylist()))
        ops = []
        for v in ds.versions():
            txn = ds.read_transaction(v["version"])
            ops.append(type(txn.operation).__name__ if txn is not None else "none")
        return {"version": ds.version, "rows": [list(r) for r in rows], "rowids": [list(r) for r in rowids], "operations": ops}
    if cmd == "ids":
        reads = []
        for v in rest:
            t = lance.dataset(uri, version=int(v)).to_table(columns=["id"])
            reads.append({"version": int(v), "ids": sorted(t.column("id").to_pylist())})
        return {"reads": reads}
    if cmd == "count":
        ds = lance.dataset(uri)
        return {"version": ds.version, "rows": ds.count_rows()}
    if cmd == "append":
        ids = [int(x) for x in rest]
        t = pa.table({"id": pa.array(ids, pa.int64()), "s": pa.array([f"r{i}" for i in ids], pa.string())}, schema=SCHEMA)
        ds = lance.write_dataset(t, uri, mode="append")
        return {"version": ds.version}
    if cmd == "delete":
        ds = lance.dataset(uri)
        ds.delete(rest[0])
        return {"version": lance.dataset(uri).version}
    raise SystemExit(f"unknown command {cmd}")


if __name__ == "__main__":
    try:
        print(json.dumps(main(sys.argv[1:])))
    except Exception as e:  # reported to the test as its failure
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
