#!/usr/bin/env python3
"""Golden Lance datasets, written by pinned pylance, with what pylance reads back from them.

Usage:  python dev/golden/generate.py [--out target/golden] [--force] [--list] [--old]

Layout of <out> (default <repo>/target/golden):

    .stamp                          sha256 of the generator's modules + library versions
                                    ("up to date" if equal)
    index.json                      every dataset, in registry order
    <name>/dataset/                 the Lance dataset as pylance wrote it
    <name>/expected/v<N>.arrow      Arrow IPC *file*: lance.dataset(uri, version=N).to_table()
    <name>/expected/blobs_v<N>.arrow  only for datasets with blob columns: the blob bytes
                                    (LanceDataset.read_blobs), one large_binary row per row
    <name>/expected/rowids_v<N>.arrow  only for @golden_table(row_ids=True): _rowid and
                                    _rowaddr, row i belonging to row i of v<N>.arrow
    <name>/expected/filter<i>_v<N>.arrow  only for @golden_table(filters=(...)):
                                    to_table(filter=<filter i>), info.json "filters"
    <name>/expected/tag_<tag>.arrow     each tag's to_table()
    <name>/expected/branch_<branch, / as __>_v<N>.arrow  every version of each branch
    <name>/info.json                name, description, versions, latest, data_storage_version,
                                    rows, fragments, fragment_ids and operations (keyed by
                                    version), stable_row_ids, "encodings": check.py's page
                                    summary of the first data file at the latest version (null
                                    for legacy or no data); where they apply: row_id_segments,
                                    deletion_files, indices, field_ids, base_paths, tags,
                                    branches (dev/golden/README.md describes each)
    old/                            generate_old.py's datasets of older pylance releases
                                    (--old or SPARK_LANCE_GOLDEN_OLD=1); kept across runs

This is the one entry point. Its modules import one way, each only from those listed before
it:

    registry.py        @golden_table and the registry (GoldenTable, GOLDEN_TABLES)
    check.py           the page-encoding summaries (also a command)
    oracle.py          what the pinned pylance reads back: the version check, write_expected,
                       deletion_files, row ids, indices, refs (also used by generate_old.py)
    columns.py         seeded column helpers
    corpus_files.py    the file-reader corpus: types, encodings, pages
    corpus_tables.py   the table-format corpus: deletions, updates, schema, indices, refs
    generate_old.py    older releases (old_writer.py in their own virtualenvs), for --old

One function per dataset, registered with @golden_table; `generate_one` records every version
it finds, so a new dataset needs nothing but a new function in a corpus module. Never edit the
output by hand: change the generator and re-run.

Upstream specs the datasets exercise: lance-format/lance docs/src/format/table/index.md and
versioning.md (manifests, fragments, versions, V1/V2 manifest names) and
docs/src/format/file/encoding.md (the 2.0/2.1/2.2 page encodings: mini-block, full-zip,
constant, dictionary, FSST, bitpacking, RLE).

Determinism: every value comes from a numpy Generator with a fixed seed (none from the clock),
so expected/*.arrow, info.json and index.json are byte-identical between runs with the same
--out (blobs_v2_2 stores an absolute file:// URI into <out>; index_remap_deferred's
__lance_frag_reuse index has a random UUID). Field metadata in expected/ is
written with sorted keys, because pylance returns it in HashMap order. The datasets
themselves are not: Lance data file names contain random bits, manifests carry the
wall-clock commit time, and FSST output can vary between runs (so the mini-block chunk counts
in info.json would too; encodings_*' s_long_miniblock uses compression=none for that reason).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import lance
import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus_files  # noqa: E402,F401  (registers the file-reader corpus, in index.json order)
import corpus_tables  # noqa: E402,F401  (then the table-format corpus)
import generate_old  # noqa: E402
from oracle import (  # noqa: E402
    DEFAULT_OUT,
    PYLANCE_VERSION,
    STAMP_NAME,
    blob_columns,
    deletion_files,
    encodings_summary,
    field_ids,
    index_summary,
    operation_name,
    prepare_out,
    require_oracle,
    row_id_segments,
    sources_sha256,
    write_expected,
    write_expected_blobs,
    write_expected_filter,
    write_expected_row_ids,
    write_refs,
)
from registry import GOLDEN_TABLES, GoldenTable  # noqa: E402

HERE = Path(__file__).resolve().parent
# Everything the pinned-pylance output is built from (the stamp's hash).
SOURCES = [HERE / n for n in ("generate.py", "registry.py", "oracle.py", "columns.py",
                              "corpus_files.py", "corpus_tables.py", "check.py")]
OLD_DIR = "old"  # generate_old.py writes <out>/old; a regeneration here leaves it alone
OLD_ENV = "SPARK_LANCE_GOLDEN_OLD"


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------


def generate_one(golden: GoldenTable, out: Path) -> dict:
    """Writes one dataset, then what pylance reads at each of its versions."""
    root = out / golden.name
    uri = str(root / "dataset")
    expected = root / "expected"
    expected.mkdir(parents=True)
    golden.write(uri)

    ds = lance.dataset(uri)
    versions = sorted(v["version"] for v in ds.versions())
    rows: dict[str, int] = {}
    fragments: dict[str, int] = {}
    fragment_ids: dict[str, list[int]] = {}
    operations: dict[str, str | None] = {}
    deletions: dict[str, list[dict]] = {}
    indices: dict[str, list[dict]] = {}
    ids: dict[str, dict[str, int]] = {}
    segments: dict[str, dict[str, list[str]]] = {}
    for v in versions:
        at = lance.dataset(uri, version=v)
        table = at.to_table()
        if table.num_rows != at.count_rows():
            raise RuntimeError(f"{golden.name} v{v}: to_table() and count_rows() disagree")
        write_expected(table, expected / f"v{v}.arrow")
        blobs = blob_columns(at.schema)
        if blobs:
            write_expected_blobs(at, blobs, expected / f"blobs_v{v}.arrow")
        if golden.row_ids:
            write_expected_row_ids(at, table, expected / f"rowids_v{v}.arrow")
        for i, condition in enumerate(golden.filters):
            write_expected_filter(at, condition, expected / f"filter{i}_v{v}.arrow")
        rows[str(v)] = table.num_rows
        fragments[str(v)] = len(at.get_fragments())
        fragment_ids[str(v)] = [f.fragment_id for f in at.get_fragments()]
        operations[str(v)] = operation_name(at, v)
        deletions[str(v)] = deletion_files(at)
        indices[str(v)] = index_summary(at, uri)
        ids[str(v)] = field_ids(at)
        if at.has_stable_row_ids:
            segments[str(v)] = row_id_segments(at)

    info = {
        "name": golden.name,
        "description": golden.description,
        "versions": versions,
        "latest": ds.version,
        "data_storage_version": ds.data_storage_version,
        "rows": rows,
        "fragments": fragments,
        "fragment_ids": fragment_ids,
        "operations": operations,
        "stable_row_ids": ds.has_stable_row_ids,
        "encodings": encodings_summary(ds),
    }
    if golden.row_ids:
        info["row_ids"] = "expected/rowids_v<N>.arrow"
    if golden.filters:
        info["filters"] = list(golden.filters)
    if segments:
        info["row_id_segments"] = segments
    if any(deletions.values()):
        info["deletion_files"] = deletions
    if any(indices.values()):
        info["indices"] = indices
    if len({json.dumps(x) for x in ids.values()}) > 1:  # the schema changed between versions
        info["field_ids"] = ids
    bases = ds.base_paths()
    if bases:
        info["base_paths"] = [
            {"id": b.id, "name": b.name, "path": b.path, "is_dataset_root": b.is_dataset_root}
            for b in sorted(bases.values(), key=lambda b: b.id)
        ]
    info |= write_refs(uri, expected)
    (root / "info.json").write_text(json.dumps(info, indent=2) + "\n")
    return info


def stamp_text() -> str:
    """What the output was built from. numpy and pyarrow are included because they make the
    random values and write the .arrow files."""
    return (
        f"generator_sha256={sources_sha256(SOURCES)}\n"
        f"pylance={lance.__version__}\n"
        f"pyarrow={pa.__version__}\n"
        f"numpy={np.__version__}\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"default: {DEFAULT_OUT}")
    parser.add_argument("--force", action="store_true", help="regenerate even if up to date")
    parser.add_argument("--list", action="store_true", help="list the datasets and exit")
    parser.add_argument(
        "--old",
        action="store_true",
        help=f"also run generate_old.py (datasets of older pylance releases, into "
        f"<out>/{OLD_DIR}; slow the first time); {OLD_ENV}=1 does the same",
    )
    args = parser.parse_args(argv)
    with_old = args.old or os.environ.get(OLD_ENV) == "1"

    require_oracle()

    if args.list:
        for golden in GOLDEN_TABLES:
            print(f"{golden.name}\n    {golden.description}\n")
        return 0

    out: Path = args.out.resolve()
    stamp = stamp_text()
    stamp_path = out / STAMP_NAME
    if not args.force and stamp_path.is_file() and stamp_path.read_text() == stamp:
        print(f"golden data in {out} is up to date (use --force to regenerate)")
        return generate_old_releases(out, args.force) if with_old else 0

    started = time.monotonic()
    prepare_out(out, keep=(OLD_DIR,))  # old/ has its own stamp and is slow to remake
    index = []
    for golden in GOLDEN_TABLES:
        t0 = time.monotonic()
        info = generate_one(golden, out)
        keys = ("name", "description", "versions", "latest", "data_storage_version", "rows")
        index.append({"path": golden.name} | {k: info[k] for k in keys})
        print(
            f"{golden.name}: versions {info['versions']}, rows {info['rows']} "
            f"({time.monotonic() - t0:.1f}s)"
        )
    (out / "index.json").write_text(
        json.dumps({"pylance": PYLANCE_VERSION, "datasets": index}, indent=2) + "\n"
    )
    stamp_path.write_text(stamp)  # last: only a complete run counts as up to date
    print(f"wrote {len(index)} datasets to {out} in {time.monotonic() - started:.1f}s")
    return generate_old_releases(out, args.force) if with_old else 0


def generate_old_releases(out: Path, force: bool) -> int:
    """dev/golden/generate_old.py into <out>/old (it has its own stamp)."""
    return generate_old.main(["--out", str(out)] + (["--force"] if force else []))


if __name__ == "__main__":
    sys.exit(main())
