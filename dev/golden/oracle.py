"""The oracle: what the pinned pylance reads back from a dataset, written for the tests.

Shared by generate.py (the datasets written by the pinned pylance) and generate_old.py (those
written by older releases). Nothing here writes a dataset.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
from pathlib import Path

import lance
import pyarrow as pa

import check  # dev/golden/check.py: the page-encoding summaries in info.json

# pylance is the oracle: a different version may choose different encodings or read differently,
# which would silently change what the Scala tests assert. Keep in step with
# python/requirements-dev.txt.
PYLANCE_VERSION = "14.0.2"

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO_ROOT / "target" / "golden"
STAMP_NAME = ".stamp"

# Rows per record batch in expected/*.arrow. Fixed, so that the files do not depend on how
# pylance happened to batch its scan (only the contents are pylance's).
EXPECTED_BATCH_ROWS = 10_000


def require_oracle() -> None:
    """Exits unless this interpreter's pylance is the pinned oracle."""
    if lance.__version__ != PYLANCE_VERSION:
        sys.exit(
            f"error: golden data must be read back by pylance=={PYLANCE_VERSION}, but "
            f"lance.__version__ is {lance.__version__}. Use the project venv: "
            f"pip install -r python/requirements-dev.txt"
        )


def sources_sha256(paths: list[Path]) -> str:
    """One hash of the given source files, for the stamps that say what built an output."""
    return hashlib.sha256(b"".join(Path(p).read_bytes() for p in paths)).hexdigest()


def prepare_out(out: Path, keep: tuple[str, ...] = ()) -> None:
    """Empties `out` except the entries named in `keep`, but only if it is empty or was made
    by a generator (has a .stamp), so a mistyped --out cannot delete anything else. Then
    marks it with a stamp that never matches while it is incomplete."""
    if out.exists():
        if any(out.iterdir()) and not (out / STAMP_NAME).is_file():
            sys.exit(f"error: {out} is not empty and has no {STAMP_NAME}; refusing to delete it")
        for entry in out.iterdir():
            if entry.name in keep:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    out.mkdir(parents=True, exist_ok=True)
    (out / STAMP_NAME).write_text("incomplete\n")


def _sorted_metadata(metadata: dict | None) -> dict | None:
    return None if metadata is None else dict(sorted(metadata.items()))


def write_expected(table: pa.Table, path: Path) -> None:
    """Arrow IPC file (not stream) with pylance's schema, column order and row order.

    Field and schema metadata are written with their keys sorted: pylance returns them in
    Rust HashMap order, which changes from run to run."""
    schema = pa.schema(
        [f.with_metadata(_sorted_metadata(f.metadata)) if f.metadata else f for f in table.schema],
        metadata=_sorted_metadata(table.schema.metadata),
    )
    table = pa.Table.from_arrays(table.columns, schema=schema).combine_chunks()
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table, max_chunksize=EXPECTED_BATCH_ROWS)


def blob_columns(schema: pa.Schema) -> list[str]:
    """Top-level blob columns: lance-encoding:blob=true (blob v1, 2.1) or the lance.blob.v2
    extension type (2.2)."""
    names = []
    for field in schema:
        ext = getattr(field.type, "extension_name", None)
        if ext == "lance.blob.v2" or (field.metadata or {}).get(b"lance-encoding:blob") == b"true":
            names.append(field.name)
    return names


def write_expected_blobs(ds: lance.LanceDataset, columns: list[str], path: Path) -> None:
    """The bytes behind each blob column, one large_binary row per dataset row in to_table()
    order (null for a null blob), as read by LanceDataset.read_blobs."""
    indices = list(range(ds.count_rows()))
    arrays = {}
    for name in columns:
        pairs = ds.read_blobs(name, indices=indices, preserve_order=True)
        arrays[name] = pa.array([blob for _, blob in pairs], pa.large_binary())
    write_expected(pa.table(arrays), path)


def encodings_summary(ds: lance.LanceDataset) -> dict | None:
    """check.py's per-column summary of the first data file, or None when there is no data
    file or LanceFileReader cannot open it (legacy v1 files)."""
    if ds.data_storage_version in ("0.1", "legacy"):
        return None
    return check.file_encodings(ds)


def write_expected_row_ids(at: lance.LanceDataset, table: pa.Table, path: Path) -> None:
    """_rowid and _rowaddr (both uint64) of every row, as pylance returns them with
    with_row_id=True, with_row_address=True; row i belongs to row i of v<N>.arrow (checked)."""
    full = at.to_table(with_row_id=True, with_row_address=True)
    if not full.drop_columns(["_rowid", "_rowaddr"]).equals(table):
        raise RuntimeError(f"{path}: the scan with row ids returned other rows than to_table()")
    write_expected(full.select(["_rowid", "_rowaddr"]), path)


def write_expected_filter(at: lance.LanceDataset, condition: str, path: Path) -> None:
    """pylance's to_table(filter=condition), which uses the scalar indices it can; checked to
    hold the same rows as a scan that uses none."""
    table = at.to_table(filter=condition)
    scanned = at.to_table(filter=condition, use_scalar_index=False)
    if table.sort_by("id") != scanned.sort_by("id"):
        raise RuntimeError(
            f"{path}: '{condition}' returns other rows with scalar indices than without"
        )
    write_expected(table, path)


def deletion_files(ds: lance.LanceDataset) -> list[dict]:
    """The deletion vector of each fragment that has one. type is pylance's name: "array"
    (an .arrow file) or "bitmap" (a .bin roaring bitmap). File names end in a random number,
    so they are left out."""
    files = []
    for fragment in ds.get_fragments():
        d = fragment.metadata.deletion_file
        if d is not None:
            files.append(
                {
                    "fragment": fragment.fragment_id,
                    "type": d.file_type,
                    "extension": {"array": "arrow", "bitmap": "bin"}[d.file_type],
                    "num_deleted_rows": d.num_deleted_rows,
                    "read_version": d.read_version,
                    "base_id": d.base_id,
                }
            )
    return files


def index_summary(ds: lance.LanceDataset, uri: str) -> list[dict]:
    """Each index of this version: name, type, type_url, uuid, fields (names and ids), the
    version that created it, the fragments it covers and the files in _indices/<uuid>/."""
    described = {d.name: d for d in ds.describe_indices()}
    summary = []
    for index in sorted(ds.list_indices(), key=lambda i: i["name"]):
        folder = Path(uri) / "_indices" / index["uuid"]
        d = described[index["name"]]
        summary.append(
            {
                "name": index["name"],
                "type": index["type"],
                "type_url": d.type_url,
                "uuid": index["uuid"],
                "fields": list(index["fields"]),
                "field_ids": list(d.fields),
                "dataset_version": index["version"],
                "fragment_ids": sorted(index["fragment_ids"]),
                "files": sorted(f.name for f in folder.iterdir()) if folder.is_dir() else [],
            }
        )
    return summary


def field_ids(ds: lance.LanceDataset) -> dict[str, int]:
    """Lance field id per field path ("s.a" for a struct child)."""
    ids: dict[str, int] = {}

    def walk(fields, prefix: str) -> None:
        for f in fields:
            ids[prefix + f.name()] = f.id()
            walk(f.children(), prefix + f.name() + ".")

    walk(ds.lance_schema.fields(), "")
    return ids


def operation_name(ds: lance.LanceDataset, version: int) -> str | None:
    """The transaction that made `version` ("Overwrite", "Append", "Delete", "Rewrite", ...),
    None when pylance returns none. Some operations (ReserveFragments) come back in Python as
    a bare BaseOperation; their name is then taken from lance.debug's Rust Debug text."""
    txn = ds.read_transaction(version)
    if txn is None:
        return None
    name = type(txn.operation).__name__
    if name == "BaseOperation":
        import lance.debug

        match = re.search(r"operation: (\w+)", lance.debug.list_transactions(ds, 1)[0])
        name = match.group(1) if match else name
    return name


# lance.table.U64Segment (protos/rowids.proto upstream): the oneof field numbers.
ROW_ID_SEGMENT_KINDS = {
    1: "range",
    2: "range_with_holes",
    3: "range_with_bitmap",
    4: "sorted_array",
    5: "array",
}


def _protobuf_fields(data: bytes) -> list[tuple[int, bytes | int]]:
    """The top-level (field number, value) pairs of a protobuf message: bytes for
    length-delimited fields, int for varints."""

    def varint(pos: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            byte = data[pos]
            value |= (byte & 0x7F) << shift
            pos, shift = pos + 1, shift + 7
            if byte < 0x80:
                return value, pos

    fields, pos = [], 0
    while pos < len(data):
        key, pos = varint(pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(pos)
        elif wire == 2:
            length, pos = varint(pos)
            value, pos = data[pos : pos + length], pos + length
        elif wire == 1:
            value, pos = data[pos : pos + 8], pos + 8
        elif wire == 5:
            value, pos = data[pos : pos + 4], pos + 4
        else:
            raise ValueError(f"unexpected protobuf wire type {wire}")
        fields.append((number, value))
    return fields


def row_id_segments(ds: lance.LanceDataset) -> dict[str, list[str]]:
    """fragment id -> the kinds of the U64Segments of its RowIdSequence, e.g. ["range"] or
    ["range_with_bitmap"]; ["external"] when the sequence is in a separate file."""
    kinds: dict[str, list[str]] = {}
    for fragment in ds.get_fragments():
        meta = json.loads(fragment.metadata.row_id_meta.json())
        if "Inline" not in meta:
            kinds[str(fragment.fragment_id)] = ["external"]
            continue
        segments = [v for n, v in _protobuf_fields(bytes(meta["Inline"])) if n == 1]
        kinds[str(fragment.fragment_id)] = [
            ROW_ID_SEGMENT_KINDS.get(_protobuf_fields(seg)[0][0], "?") for seg in segments
        ]
    return kinds


def write_refs(uri: str, expected: Path) -> dict:
    """Tags and branches: expected/tag_<name>.arrow for each tag and
    expected/branch_<name, / as __>_v<N>.arrow for every version of each branch, and their
    description for info.json (nothing for a dataset without refs)."""
    ds = lance.dataset(uri)
    refs: dict = {}
    tags = ds.tags.list()
    if tags:
        refs["tags"] = {}
        for name in sorted(tags):
            table = lance.dataset(uri, version=name).to_table()
            write_expected(table, expected / f"tag_{name}.arrow")
            tag = tags[name]
            refs["tags"][name] = {
                "branch": tag["branch"],
                "version": tag["version"],
                "rows": table.num_rows,
            }
    branches = ds.branches.list()
    if branches:
        refs["branches"] = {}
        for name in sorted(branches):
            head = lance.dataset(uri).checkout_version((name, None))
            branch_versions = sorted(v["version"] for v in head.versions())
            rows = {}
            for v in branch_versions:
                table = lance.dataset(uri).checkout_version((name, v)).to_table()
                write_expected(table, expected / f"branch_{name.replace('/', '__')}_v{v}.arrow")
                rows[str(v)] = table.num_rows
            branch = branches[name]
            refs["branches"][name] = {
                "parent_branch": branch["parent_branch"],
                "parent_version": branch["parent_version"],
                "path": f"tree/{name}",
                "branch_versions": branch_versions,
                "latest": head.version,
                "rows": rows,
            }
    return refs


