#!/usr/bin/env python3
"""Writes the old-release golden datasets with whatever pylance this interpreter has.

Usage:  <old venv>/bin/python dev/golden/old_writer.py --out <folder> [--datasets a,b]
                                                     [--begin]

Run by dev/golden/generate_old.py inside a virtualenv holding one OLD pylance release; it
must not import generate.py (which needs pylance 14). Everything is written with that
release's DEFAULT settings (file format, manifest naming, deletion files), so the datasets are
what users of that release have on disk. For each dataset it writes:

    <name>/dataset/                  the Lance dataset
    <name>/old_readback/v<N>.arrow   what THIS release reads back at version N (its own view;
                                     generate_old.py compares it with pylance 14's)
    <name>/writer.json               the release, the library versions and the steps taken

Features are detected (hasattr), and a column type that this release refuses to write is
left out and listed in writer.json "refused" with the error, so one script serves every
release from 0.5 to 4.0.

A migration (a dataset begun by one release and continued by a later one, as users who
upgraded did) takes two runs into the same folder: the earlier release's with --begin, which
writes only the first versions and writer.json, then the later release's, which continues
each begun dataset (writer.json "begun_by") and reads every version back.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

import lance
import numpy as np
import pyarrow as pa

ROWS = 1000
ROWS_PER_FILE = 500
HISTORY_ROWS_PER_FILE = 6000


def masked(rng: np.random.Generator, n: int, null_frac: float = 0.1):
    return rng.random(n) < null_frac


def types_columns(rng: np.random.Generator, n: int) -> dict:
    """One column per basic type family, 10% nulls (id never null). No NaN, so equality
    comparisons between readers hold."""
    words = np.array(["alpha", "beta", "gamma", "delta", "epsilon", "", "ünïcödé", "中文"])

    def ints(dtype, low, high):
        return pa.array(
            rng.integers(low, high, n, endpoint=True).astype(dtype), mask=masked(rng, n)
        )

    strings = words[rng.integers(0, len(words), n)].tolist()
    binaries = [bytes(rng.integers(0, 256, int(k), dtype=np.uint8)) for k in rng.integers(0, 12, n)]
    days = rng.integers(-25000, 40000, n)
    micros = rng.integers(-(2**50), 2**50, n)
    list_lengths = rng.integers(0, 4, n, endpoint=True)
    list_offsets = np.concatenate([[0], np.cumsum(list_lengths)]).astype(np.int32)
    list_values = pa.array(rng.integers(-1000, 1000, int(list_offsets[-1])).astype(np.int32))
    struct_a = pa.array(rng.integers(-100, 100, n).astype(np.int32), mask=masked(rng, n))
    struct_b = pa.array(words[rng.integers(0, len(words), n)].tolist(), mask=masked(rng, n))
    vectors = pa.array(rng.standard_normal(n * 8).astype(np.float32))
    dict_indices = rng.integers(0, 4, n).astype(np.int32)
    return {
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "bool_col": pa.array(rng.random(n) < 0.5, mask=masked(rng, n)),
        "int8_col": ints(np.int8, -128, 127),
        "int16_col": ints(np.int16, -(2**15), 2**15 - 1),
        "int32_col": ints(np.int32, -(2**31), 2**31 - 1),
        "int64_col": ints(np.int64, -(2**63), 2**63 - 1),
        "uint8_col": ints(np.uint8, 0, 255),
        "uint32_col": ints(np.uint32, 0, 2**32 - 1),
        "float32_col": pa.array(
            rng.standard_normal(n).astype(np.float32), mask=masked(rng, n)
        ),
        "float64_col": pa.array(rng.standard_normal(n) * 1e6, mask=masked(rng, n)),
        "string_col": pa.array(strings, pa.string(), mask=masked(rng, n)),
        "large_string_col": pa.array(strings, pa.large_string(), mask=masked(rng, n)),
        "binary_col": pa.array(binaries, pa.binary(), mask=masked(rng, n)),
        "date32_col": pa.array(days.astype(np.int32), pa.date32(), mask=masked(rng, n)),
        "ts_us_col": pa.array(micros, pa.timestamp("us"), mask=masked(rng, n)),
        "ts_us_utc_col": pa.array(micros, pa.timestamp("us", "UTC"), mask=masked(rng, n)),
        "list_int32_col": pa.ListArray.from_arrays(
            pa.array(list_offsets), list_values, mask=pa.array(masked(rng, n))
        ),
        "struct_col": pa.StructArray.from_arrays([struct_a, struct_b], names=["a", "b"]),
        "vector_col": pa.FixedSizeListArray.from_arrays(vectors, 8),
        "dict_col": pa.DictionaryArray.from_arrays(
            pa.array(dict_indices, mask=masked(rng, n)), pa.array(["red", "green", "blue", "cyan"])
        ),
    }


def history_table(rng: np.random.Generator, start: int, n: int) -> pa.Table:
    words = np.array(["alpha", "beta", "gamma", "delta", "epsilon"])
    return pa.table(
        {
            "id": pa.array(np.arange(start, start + n, dtype=np.int64)),
            "a": pa.array(words[rng.integers(0, len(words), n)].tolist(), mask=masked(rng, n)),
            "f": pa.array(rng.standard_normal(n), mask=masked(rng, n)),
        }
    )


def writable(columns: dict, scratch: Path, **write_kwargs) -> tuple[dict, dict]:
    """The columns this release writes (with `write_kwargs`) and reads back without an error,
    and the error of each one it refuses."""
    ok, refused = {}, {}
    for name, array in columns.items():
        path = scratch / name
        try:
            lance.write_dataset(pa.table({name: array}), str(path), **write_kwargs)
            lance.dataset(str(path)).to_table()
            ok[name] = array
        except Exception as e:  # noqa: BLE001 - any refusal means "leave the column out"
            refused[name] = f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"
        shutil.rmtree(path, ignore_errors=True)
    return ok, refused


def write_types(root: Path, scratch: Path) -> dict:
    """`types`: one version, 1000 rows in 2 fragments of 500, one column per basic type
    family this release accepts, 10% nulls."""
    rng = np.random.default_rng(31031)
    columns, refused = writable(types_columns(rng, ROWS), scratch)
    lance.write_dataset(pa.table(columns), str(root / "dataset"), max_rows_per_file=ROWS_PER_FILE)
    return {"steps": ["create"], "refused": refused}


def write_history(root: Path) -> dict:
    """`history`: v1 12,000 rows (id int64, a string, f float64, 10% nulls) in 2 fragments of
    6000 (0.5 and 0.10 make them 6144 + 5856: whole groups of 1024); v2 appends 1000 rows; v3 adds
    a column g = id * 2 with add_columns (before the deletions, because 0.10 refuses
    add_columns on fragments with deletions: "Missing many rows in merge"; 0.5 has no
    add_columns, so there the step is skipped and the versions below are one lower); v4
    deletes 5 rows (few: .arrow deletion files); v5 deletes 5500 rows of fragment 1 (many: a
    .bin roaring bitmap)."""
    rng = np.random.default_rng(32032)
    uri = str(root / "dataset")
    per = HISTORY_ROWS_PER_FILE
    steps = []
    lance.write_dataset(history_table(rng, 0, 2 * per), uri, max_rows_per_file=per)
    steps.append("create")
    lance.write_dataset(history_table(rng, 2 * per, 1000), uri, mode="append")
    steps.append("append")
    ds = lance.dataset(uri)
    if hasattr(ds, "add_columns"):
        ds.add_columns({"g": "id * 2"})
        steps.append("add_columns g = id * 2")
    # else (0.5): no add_columns, and pylance 14.0.2 cannot read the data files that 0.5.10's
    # merge() writes ("PlainDecoder: request([0..1024]) out of range: [0..0]"), so there is
    # no added column.
    ds = lance.dataset(uri)
    ds.delete("id IN (1, 5, 7, 4000, 6003)")
    steps.append("delete 5 rows")
    ds = lance.dataset(uri)
    ds.delete(f"id >= {per + 200} AND id < {per + 5700}")
    steps.append("delete 5500 rows of fragment 1")
    return {"steps": steps, "refused": {}}


def write_legacy(root: Path, scratch: Path) -> dict:
    """`legacy`: data_storage_version="legacy" (file format 0.1) chosen explicitly in a release
    whose default is newer: v1 `types`' columns (those this release writes as legacy files),
    1000 rows in 2 fragments of 500, v2 appends 200 rows, v3 deletes 10 rows. These releases
    record each legacy file's size in the manifest as it was before the file's metadata and
    footer were written."""
    rng = np.random.default_rng(33033)
    legacy = {"data_storage_version": "legacy"}
    columns, refused = writable(types_columns(rng, ROWS + 200), scratch, **legacy)
    table = pa.table(columns)
    uri = str(root / "dataset")
    lance.write_dataset(table.slice(0, ROWS), uri, max_rows_per_file=ROWS_PER_FILE, **legacy)
    lance.write_dataset(table.slice(ROWS, 200), uri, mode="append")
    lance.dataset(uri).delete("id IN (0, 3, 499, 500, 501, 998, 999, 1000, 1100, 1199)")
    return {"steps": ["create (legacy)", "append 200 rows", "delete 10 rows"], "refused": refused}


MIGRATED_ROWS_PER_FILE = 1000


def begin_migrated(root: Path) -> dict:
    """The first versions of `migrated`, by the earlier release: v1 2000 rows (id, a, f) in 2
    fragments of 1000, v2 deletes 10 rows of fragment 0."""
    rng = np.random.default_rng(34034)
    uri = str(root / "dataset")
    lance.write_dataset(history_table(rng, 0, 2 * MIGRATED_ROWS_PER_FILE), uri,
                        max_rows_per_file=MIGRATED_ROWS_PER_FILE)
    lance.dataset(uri).delete("id >= 10 AND id < 20")
    return {"steps": ["create", "delete 10 rows of fragment 0"], "refused": {}}


def write_migrated(root: Path) -> dict:
    """`migrated`: begun by an earlier release (v1 2000 rows in 2 fragments, v2 deletes 10
    rows of fragment 0), continued by this one: v3 appends 100 rows, v4 deletes 10 rows of
    fragment 1. Lance 0.8.0 to 0.8.x (before writer_version was recorded) set a migrated
    fragment's physical_rows to its live rows, so v3 and v4 record 990 rows for a fragment whose
    file holds 1000 (lance-format/lance issue 1531)."""
    rng = np.random.default_rng(34035)
    uri = str(root / "dataset")
    lance.write_dataset(history_table(rng, 2 * MIGRATED_ROWS_PER_FILE, 100), uri, mode="append")
    lance.dataset(uri).delete(f"id >= {MIGRATED_ROWS_PER_FILE + 10} AND id < {MIGRATED_ROWS_PER_FILE + 20}")
    return {"steps": ["append 100 rows", "delete 10 rows of fragment 1"], "refused": {}}


# name -> (writes the whole dataset, or continues it when an earlier release began it)
DATASETS = {"types": write_types, "history": write_history, "legacy": write_legacy,
            "migrated": write_migrated}
BEGIN = {"migrated": begin_migrated}


def write_readback(root: Path) -> list[int]:
    """What this release reads at each version, as Arrow IPC files; returns the versions."""
    uri = str(root / "dataset")
    versions = sorted(v["version"] for v in lance.dataset(uri).versions())
    folder = root / "old_readback"
    folder.mkdir()
    for v in versions:
        table = lance.dataset(uri, version=v).to_table()
        with pa.OSFile(str(folder / f"v{v}.arrow"), "wb") as sink:
            with pa.ipc.new_file(sink, table.schema) as writer:
                writer.write_table(table)
    return versions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--datasets", default="types,history", help="comma-separated names")
    parser.add_argument("--begin", action="store_true",
                        help="only begin each dataset (the first versions of a migration)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    versions = {"release": lance.__version__, "pyarrow": pa.__version__, "numpy": np.__version__,
                "python": sys.version.split()[0]}
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.datasets.split(","):
            root = args.out / name
            if args.begin:
                if root.exists():
                    shutil.rmtree(root)
                root.mkdir()
                result = BEGIN[name](root) | {"begun_by": versions}
                (root / "writer.json").write_text(json.dumps(result, indent=2) + "\n")
                print(f"  {lance.__version__} began {name}: {result['steps']}")
                continue
            write = DATASETS[name]
            begun = None
            if name in BEGIN:
                if not (root / "writer.json").is_file():
                    sys.exit(f"error: {name} continues a dataset begun by an earlier release "
                             f"(old_writer.py --begin), but {root} holds none")
                begun = json.loads((root / "writer.json").read_text())
            if begun is None:
                if root.exists():
                    shutil.rmtree(root)
                root.mkdir()
            args_ = (root, Path(scratch)) if name in ("types", "legacy") else (root,)
            result = write(*args_)
            if begun is not None:
                result["steps"] = [f"{begun['begun_by']['release']}: {s}" for s in begun["steps"]] + [
                    f"{lance.__version__}: {s}" for s in result["steps"]]
                result["begun_by"] = begun["begun_by"]
            result |= {
                "description": " ".join(write.__doc__.split()),
                **versions,
                "old_versions": write_readback(root),
            }
            (root / "writer.json").write_text(json.dumps(result, indent=2) + "\n")
            refused = list(result["refused"])
            print(f"  {lance.__version__} {name}: {result['steps']}, refused {refused}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
