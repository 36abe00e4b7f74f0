#!/usr/bin/env python3
"""pylance as the oracle of the zone maps spark-lance extends over the fragments it writes.

Usage:
  python dev/golden/zonemap.py make DIR
      Writes DIR/table: one fragment of 250 rows of many column types with a ZONEMAP index on
      each column (a list column's included) (100 rows per zone, the default 8192 on `id`), then appends the 530 rows of
      DIR/new.arrow (also written) in fragments of at most 200 rows, without touching the
      indices (DIR/base is a copy from before the append, for spark-lance to append the same
      rows to). DIR/reference is a copy of DIR/table on which pylance's `optimize_indices`
      then extended every index: the reference for what spark-lance writes. Prints one JSON
      object: {"versions": [version before the append, after it], "reference": {index name:
      {"file", "fragment_ids", "dataset_version", "index_version", "details" (hex), "files"}}}.
  python dev/golden/zonemap.py compare OURS.lance THEIRS.lance [...]
      For each pair of zonemap.lance files: schema (names, types, nullability), schema
      metadata, every value (NaN equal to NaN) and the null rows' bitmap (as sets of row
      addresses), each equal or not. One JSON object per pair: {"file", "equal", "diff"}.
  python dev/golden/zonemap.py seed DATAFILE.lance COLUMN OURS.arrow [...]
      For each triple: the zones pylance embedded for COLUMN in the data file it wrote (the
      global buffer its schema metadata `lance.seed.COLUMN` names) against the Arrow IPC file
      OURS.arrow: schema, `seed_null_bitmap`, every value, and the rows per zone recorded.
      One JSON object per triple: {"file", "equal", "diff"}.
  python dev/golden/zonemap.py commit TABLE UPDATE.json REFERENCE
      Commits the CreateIndex transaction of UPDATE.json ({"added": [...], "removed": [uuids]})
      with pylance on a copy of TABLE (TABLE_pylance), then checks it as `check` does.
  python dev/golden/zonemap.py optimize TABLE
      Runs pylance's `optimize_indices` on TABLE. Prints {index name: its new zonemap.lance}.
  python dev/golden/zonemap.py check TABLE REFERENCE
      Checks that pylance answers filters through the indices as it does on
      REFERENCE (the same rows, indices extended by pylance; its answers are not always those of
      a scan: a zone map prunes NaN where DataFusion's `x > c` keeps it). Prints {"version",
      "indexed": {name: rows indexed}, "rows", "same_plans": [per filter: the index is used on
      both or neither], "wrong": [filters answered differently], "operation" of the last version}.
"""

from __future__ import annotations

import datetime
import decimal
import json
import math
import shutil
import struct
import sys
from pathlib import Path

import pyarrow as pa
import lance
from lance.dataset import Index, IndexFile
from lance.file import LanceFileReader
from lance.indices import IndexConfig

ROWS_PER_ZONE = 100
OLD_ROWS = 250
NEW_ROWS = 530
ROWS_PER_FILE = 200


def _columns(start: int, n: int) -> dict:
    rows = range(start, start + n)

    def f64(i):
        if i % 11 == 0:
            return None
        # Rows 300-399 of the new data (its second fragment's first zone) hold only NaN and null.
        if 550 <= i < 650 or i % 7 == 0:
            return float("nan")
        return -0.0 if i % 13 == 0 else (i - 400) / 3.0

    return {
        "id": pa.array(list(rows), pa.int64()),
        "i32": pa.array([None if i % 5 == 0 else (i * 7919) % 1000 - 500 for i in rows], pa.int32()),
        "u8": pa.array([(i * 37) % 256 for i in rows], pa.uint8()),
        "u64": pa.array([None if i % 9 == 0 else (2**64 - 1 - i if i % 2 else i) for i in rows], pa.uint64()),
        "f64": pa.array([f64(i) for i in rows], pa.float64()),
        "f32": pa.array([None if i % 4 == 0 else (float("nan") if i % 6 == 1 else (i % 50) - 25.5) for i in rows], pa.float32()),
        "f16": pa.array([None if i % 3 == 0 else (float("nan") if i % 17 == 5 else float((i % 40) - 20)) for i in rows], pa.float16()),
        # -0.0 orders below 0.0 (IEEE total order): every zone's min is -0.0.
        "z": pa.array([-0.0 if i % 3 == 0 else (0.0 if i % 3 == 1 else float(i % 10)) for i in rows], pa.float32()),
        "b": pa.array([None if i % 10 == 0 else (i % 100) < 60 for i in rows], pa.bool_()),
        # A whole zone of nulls: rows 450-549 (the new data's first fragment's third zone).
        "s": pa.array([None if (i % 8 == 0 or 450 <= i < 550) else ["é", "zeta", "", "Zulu", "a\u00e9b", "\U0001f600"][i % 6] + str(i % 17)
                       for i in rows], pa.string()),
        "ls": pa.array([None if i % 6 == 0 else f"v{(i * 31) % 997:04d}" for i in rows], pa.large_string()),
        "bin": pa.array([None if i % 7 == 3 else bytes([(i * 13) % 256, 255 - i % 256]) for i in rows], pa.binary()),
        "d32": pa.array([None if i % 12 == 0 else datetime.date(2000, 1, 1) + datetime.timedelta(days=(i * 101) % 9000 - 4000) for i in rows], pa.date32()),
        "ts": pa.array([None if i % 14 == 0 else ((i * 104729) % 10**9 - 5 * 10**8) * 1000 for i in rows], pa.timestamp("us", tz="UTC")),
        "tsn": pa.array([((i * 7877) % 10**6 - 5 * 10**5) * 1001 for i in rows], pa.timestamp("ns")),
        "dec": pa.array([None if i % 15 == 0 else decimal.Decimal((i * 523) % 20001 - 10000) / 100 for i in rows], pa.decimal128(10, 2)),
        "fsb": pa.array([None if i % 5 == 1 else bytes([i % 256]) * 4 for i in rows], pa.binary(4)),
        # Nested: pylance keeps null counts only; spark-lance leaves such an index as it is.
        "lst": pa.array([None if i % 4 == 0 else [i, -i] for i in rows], pa.list_(pa.int32())),
    }


def make(dir_: Path) -> dict:
    table = dir_ / "table"
    ds = lance.write_dataset(pa.table(_columns(0, OLD_ROWS)), table)
    for c in ds.schema.names:
        params = {} if c == "id" else {"rows_per_zone": ROWS_PER_ZONE}
        ds.create_scalar_index(c, IndexConfig(index_type="zonemap", parameters=params))
    before = lance.dataset(table).version
    new = pa.table(_columns(OLD_ROWS, NEW_ROWS))
    with pa.OSFile(str(dir_ / "new.arrow"), "wb") as f, pa.ipc.new_file(f, new.schema) as w:
        w.write_table(new)
    shutil.copytree(table, dir_ / "base")
    after = lance.write_dataset(new, table, mode="append", max_rows_per_file=ROWS_PER_FILE).version
    shutil.copytree(table, dir_ / "reference")
    ref = lance.dataset(dir_ / "reference")
    ref.optimize.optimize_indices()
    ref = lance.dataset(dir_ / "reference")
    out = {}
    for i in ref.read_transaction(ref.version).operation.new_indices:
        out[i.name] = {
            "file": str(dir_ / "reference" / "_indices" / i.uuid / "zonemap.lance"),
            "fragment_ids": sorted(i.fragment_ids),
            "dataset_version": i.dataset_version,
            "index_version": i.index_version,
            "details_url": i.index_details[0],
            "details": i.index_details[1].hex(),
            "files": [f.path for f in i.files],
        }
    return {"versions": [before, after], "reference": out}


def _tree_map(data: bytes) -> dict:
    """RowAddrTreeMap serialization as {fragment: sorted offsets}, parsed without pyroaring."""
    (n,) = struct.unpack_from("<I", data, 0)
    pos, out = 4, {}
    for _ in range(n):
        frag, size = struct.unpack_from("<II", data, pos)
        pos += 8
        out[frag] = _roaring(data[pos:pos + size]) if size else "all"
        pos += size
    return out


def _roaring(b: bytes) -> list:
    """Values of a portable 32-bit Roaring bitmap (github.com/RoaringBitmap/RoaringFormatSpec)."""
    (cookie,) = struct.unpack_from("<I", b, 0)
    if cookie & 0xFFFF == 12347:
        count, pos = (cookie >> 16) + 1, 4
        runs = b[pos:pos + (count + 7) // 8]
        pos += (count + 7) // 8
    elif cookie == 12346:
        count, pos, runs = struct.unpack_from("<I", b, 4)[0], 8, b""
    else:
        raise ValueError(f"roaring cookie {cookie}")
    keys = [struct.unpack_from("<HH", b, pos + 4 * k) for k in range(count)]
    pos += 4 * count
    if not runs or count >= 4:
        pos += 4 * count  # container offsets, not needed when reading in order
    out = []
    for k, (key, card_minus_1) in enumerate(keys):
        card = card_minus_1 + 1
        if runs and runs[k // 8] >> (k % 8) & 1:
            (n,) = struct.unpack_from("<H", b, pos)
            pairs = struct.unpack_from(f"<{2 * n}H", b, pos + 2)
            vals = [v for start, length in zip(pairs[0::2], pairs[1::2]) for v in range(start, start + length + 1)]
            pos += 2 + 4 * n
        elif card <= 4096:
            vals = struct.unpack_from(f"<{card}H", b, pos)
            pos += 2 * card
        else:
            words = struct.unpack_from("<1024Q", b, pos)
            vals = [w * 64 + bit for w, word in enumerate(words) for bit in range(64) if word >> bit & 1]
            pos += 8192
        out.extend((key << 16) | v for v in vals)
    return out


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b) or (math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b


def compare(ours: str, theirs: str) -> dict:
    diff = []
    ro, rt = LanceFileReader(ours), LanceFileReader(theirs)
    to, tt = ro.read_all().to_table(), rt.read_all().to_table()
    if to.schema.remove_metadata() != tt.schema.remove_metadata():
        diff.append(f"schema {to.schema.remove_metadata()} != {tt.schema.remove_metadata()}")
    mo, mt = to.schema.metadata or {}, tt.schema.metadata or {}
    if mo != mt:
        diff.append(f"metadata {mo} != {mt}")
    if to.num_rows != tt.num_rows:
        diff.append(f"{to.num_rows} rows != {tt.num_rows}")
    else:
        for name in tt.column_names:
            if name not in to.column_names:
                continue
            a, b = to.column(name).to_pylist(), tt.column(name).to_pylist()
            bad = [i for i, (x, y) in enumerate(zip(a, b)) if not _same(x, y)]
            if bad:
                diff.append(f"{name} row {bad[0]}: {a[bad[0]]!r} != {b[bad[0]]!r} ({len(bad)} rows differ)")
    if b"null_bitmap" in mt:
        if b"null_bitmap" not in mo:
            diff.append("no null bitmap")
        else:
            bo = bytes(ro.read_global_buffer(int(mo[b"null_bitmap"])))
            bt = bytes(rt.read_global_buffer(int(mt[b"null_bitmap"])))
            no, nt = _tree_map(bo), _tree_map(bt)
            if no != nt:
                diff.append(f"null rows {no} != {nt}")
            elif bo != bt:
                diff.append(f"null rows equal, bytes differ: {bo.hex()} != {bt.hex()}")
    return {"file": ours, "equal": not diff, "diff": diff}


def seed(data_file: str, column: str, ours: str) -> dict:
    diff = []
    r = LanceFileReader(data_file)
    meta = r.metadata()
    schema_meta = r.read_all().to_table().schema.metadata or {}
    entry = schema_meta.get(f"lance.seed.{column}".encode())
    if entry is None:
        return {"file": ours, "equal": False, "diff": [f"{data_file} has no seed for {column}"]}
    buffer, rows_per_zone = entry.decode().split(":")
    theirs = pa.ipc.open_file(pa.py_buffer(bytes(r.read_global_buffer(int(buffer))))).read_all()
    mine = pa.ipc.open_file(ours).read_all()
    if mine.schema.remove_metadata() != theirs.schema.remove_metadata():
        diff.append(f"schema {mine.schema} != {theirs.schema}")
    if (mine.schema.metadata or {}) != (theirs.schema.metadata or {}):
        diff.append(f"metadata {mine.schema.metadata} != {theirs.schema.metadata}")
    for name in theirs.column_names:
        if name in mine.column_names:
            a, b = mine.column(name).to_pylist(), theirs.column(name).to_pylist()
            if len(a) != len(b) or not all(_same(x, y) for x, y in zip(a, b)):
                diff.append(f"{name}: {a} != {b}")
    return {"file": ours, "equal": not diff, "diff": diff, "rows_per_zone": int(rows_per_zone)}


FILTERS = [
    "id >= 600", "id < 100", "i32 > 400", "i32 IS NULL", "u8 = 17", "f64 > 50.5", "f64 < -100", "f32 <= -20",
    "f16 > 15", "b = false", "s > 'zeta5'", "s IS NULL", "ls < 'v0100'", "d32 > date '2010-01-01'",
    "ts < timestamp '1970-01-01 00:00:00'", "dec > 90", "dec < -99",
]


def commit(table: str, update: str, reference: str) -> dict:
    """Commits UPDATE.json on a copy of TABLE (TABLE_pylance) with pylance, then checks the copy."""
    spec = json.loads(Path(update).read_text())
    table = shutil.copytree(table, table + "_pylance")
    ds = lance.dataset(table)
    by_uuid = {i["uuid"]: i for i in ds.list_indices()}
    removed = []
    for u in spec["removed"]:
        i = by_uuid[u]
        removed.append(Index(uuid=u, name=i["name"], fields=[ds.schema.get_field_index(f) for f in i["fields"]],
                             dataset_version=i["version"], fragment_ids=set(i["fragment_ids"]), index_version=0))
    added = [Index(
        uuid=a["uuid"], name=a["name"], fields=a["fields"], dataset_version=a["dataset_version"],
        fragment_ids=set(a["fragment_ids"]), index_version=a["index_version"],
        created_at=datetime.datetime.fromtimestamp(a["created_at"] / 1000, datetime.timezone.utc),
        files=[IndexFile(path=p, size_bytes=s) for p, s in a["files"]],
        index_details=(a["details_url"], bytes.fromhex(a["details"]))) for a in spec["added"]]
    lance.LanceDataset.commit(table, lance.LanceOperation.CreateIndex(new_indices=added, removed_indices=removed),
                              read_version=ds.version)
    return check(table, reference)


def check(table: str, reference: str) -> dict:
    ds = lance.dataset(table)
    rows = ds.count_rows()
    indexed = {d.name: d.num_rows_indexed for d in ds.describe_indices()}
    ref = lance.dataset(reference)
    wrong, plans = [], []
    for f in FILTERS:
        got = sorted(ds.to_table(filter=f, columns=["id"]).column("id").to_pylist())
        want = sorted(ref.to_table(filter=f, columns=["id"]).column("id").to_pylist())
        if not got or got != want:
            wrong.append(f"{f}: {len(got)} rows, {len(want)} through pylance's own index")
        plans.append(("ScalarIndexQuery" in ds.scanner(filter=f).explain_plan()) ==
                     ("ScalarIndexQuery" in ref.scanner(filter=f).explain_plan()))
    tx = ds.read_transaction(ds.version)
    return {"version": ds.version, "indexed": indexed, "rows": rows, "same_plans": plans, "wrong": wrong,
            "operation": type(tx.operation).__name__}


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "make":
        print(json.dumps(make(Path(args[0]))))
    elif cmd == "compare":
        for o, t in zip(args[0::2], args[1::2]):
            print(json.dumps(compare(o, t)))
    elif cmd == "seed":
        for d, c, o in zip(args[0::3], args[1::3], args[2::3]):
            print(json.dumps(seed(d, c, o)))
    elif cmd == "commit":
        print(json.dumps(commit(args[0], args[1], args[2])))
    elif cmd == "optimize":
        ds = lance.dataset(args[0])
        ds.optimize.optimize_indices()
        ds = lance.dataset(args[0])
        print(json.dumps({i.name: str(Path(args[0]) / "_indices" / i.uuid / "zonemap.lance")
                          for i in ds.read_transaction(ds.version).operation.new_indices}))
    elif cmd == "check":
        print(json.dumps(check(args[0], args[1])))
    else:
        raise SystemExit(f"unknown command {cmd}")
