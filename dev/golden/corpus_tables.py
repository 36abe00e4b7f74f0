"""The table-format corpus: what mutations, row ids, bases, clones, branches, tags and indices
write.

Each function writes every version of one dataset to `uri` and is registered with
@golden_table (registry.py); generate.py records what pylance reads back.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from pathlib import Path

import lance
import numpy as np
import pyarrow as pa

from columns import (
    WORDS,
    choice_strings,
    random_bools,
    random_floats,
    random_ints,
    random_strings,
    random_structs,
    write_in_files,
)
from oracle import row_id_segments
from registry import golden_table

# --------------------------------------------------------------------------------------------
# The table-format corpus: what mutations, row ids, bases, clones, branches, tags and indices
# write. See upstream docs/src/format/table/ (index.md, transaction.md, layout.md,
# branch_tag.md, row_id_lineage.md).
# Each function asserts what pylance wrote where the dataset depends on it (a deletion file's
# kind, a dropped fragment, the number of versions), so a pylance upgrade that changes the
# on-disk result fails here instead of silently weakening a test.
# --------------------------------------------------------------------------------------------


def require(condition: bool, what: str) -> None:
    """Fails the generation when pylance did not write what a dataset relies on."""
    if not condition:
        raise RuntimeError(f"pylance {lance.__version__} did not write what was expected: {what}")


def simple_table(rng: np.random.Generator, start: int, n: int) -> pa.Table:
    """The rows of most table-format datasets: id int64 start..start+n-1, a string (0..12
    characters, 10% null), f float64 (10% null, no NaN so that pa.Table.equals holds)."""
    return pa.table(
        {
            "id": pa.array(np.arange(start, start + n, dtype=np.int64)),
            "a": random_strings(rng, n, 0.1, max_len=12),
            "f": random_floats(rng, n, pa.float64(), 0.1, special_frac=0),
        }
    )


def deletion_kinds(ds: lance.LanceDataset) -> dict[int, str]:
    """fragment id -> pylance's deletion file type ("array" = .arrow, "bitmap" = .bin)."""
    return {
        f.fragment_id: f.metadata.deletion_file.file_type
        for f in ds.get_fragments()
        if f.metadata.deletion_file is not None
    }


def append(table: pa.Table, uri, **kwargs) -> lance.LanceDataset:
    """One append (a new version) to the dataset at `uri` (a URI or a LanceDataset, e.g. a
    branch)."""
    return lance.write_dataset(table, uri, mode="append", **kwargs)


DELETIONS_ROWS_PER_FRAGMENT = 6000


@golden_table(row_ids=True)
def deletions(uri: str) -> None:
    """Deletion vectors of both kinds (format 2.2). v1: 18,000 rows (id 0..17999, a string,
    f float64) in 3 fragments of 6000. v2 deletes 7 rows in fragments 0 and 1 (.arrow files:
    Arrow IPC file, unsorted uint32 row_id). v3 deletes 5500 rows of fragment 2 (>= 5000: a
    .bin portable roaring bitmap). v4 deletes 62 more rows of fragment 0 (merged with the old
    vector, still .arrow), 5000 more of fragment 1 (merged: its .arrow becomes a .bin) and 100
    more of fragment 2 (merged .bin). v5 deletes the rest of fragment 2, which drops the
    fragment from the manifest. info.json "deletion_files" lists every version's vectors;
    expected/rowids_v<N>.arrow has _rowid and _rowaddr (both fragment id << 32 | offset
    without stable row ids)."""
    rng = np.random.default_rng(11011)
    per = DELETIONS_ROWS_PER_FRAGMENT
    ds = lance.write_dataset(simple_table(rng, 0, 3 * per), uri, max_rows_per_file=per)
    ds.delete("id IN (1, 5, 7, 4000, 5999, 6003, 9000)")
    require(deletion_kinds(ds) == {0: "array", 1: "array"}, "v2: two .arrow files")
    ds.delete("id >= 12000 AND id < 17500")
    require(deletion_kinds(ds)[2] == "bitmap", "v3: fragment 2 has a .bin file")
    ds.delete(
        "(id < 6000 AND id % 97 = 0) OR (id >= 6500 AND id < 11500)"
        " OR (id >= 17500 AND id < 17600)"
    )
    require(
        deletion_kinds(ds) == {0: "array", 1: "bitmap", 2: "bitmap"},
        "v4: fragment 0 .arrow, fragments 1 and 2 .bin",
    )
    ds.delete("id >= 12000")
    require([f.fragment_id for f in ds.get_fragments()] == [0, 1], "v5: fragment 2 dropped")


@golden_table
def updates(uri: str) -> None:
    """Row rewrites (format 2.2). v1: 1000 rows (id, a, f) in 2 fragments of 500. v2:
    update({"a": "'updated'", "f": "f * 2"}, where="id % 50 = 0"): 20 rows deleted from
    fragments 0 and 1 (.arrow) and written again, changed, into a new fragment 2 (an Update
    transaction). v3: merge_insert on id, when_matched_update_all + when_not_matched_insert_all,
    with 100 source rows of which 50 match (ids 900..998, even) and 50 are new (1000..1098,
    even): deletions in fragment 1 and a new fragment holding updated and inserted rows. v4:
    merge_insert on id with when_matched_delete for ids 0, 3, .., 297 (and 2000..2009, which
    match nothing): deletion files only."""
    rng = np.random.default_rng(12012)
    ds = lance.write_dataset(simple_table(rng, 0, 1000), uri, max_rows_per_file=500)
    ds.update({"a": "'updated'", "f": "f * 2"}, where="id % 50 = 0")
    require(len(ds.get_fragments()) == 3, "v2: update adds a fragment")
    source = simple_table(rng, 0, 100)
    source = source.set_column(0, "id", pa.array(np.arange(900, 1100, 2, dtype=np.int64)))
    ds.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(source)
    ids = np.concatenate([np.arange(0, 300, 3), np.arange(2000, 2010)]).astype(np.int64)
    victims = simple_table(rng, 0, len(ids)).set_column(0, "id", pa.array(ids))
    ds.merge_insert("id").when_matched_delete().execute(victims)


@golden_table
def schema_evolution(uri: str) -> None:
    """Every schema change, one version each (format 2.2; time travel must return each
    version's own schema and field ids, listed per version in info.json "field_ids"). v1: 200
    rows in 2 fragments: id int64, val int32 (10% null), name string, s struct<a:int32,
    b:string>. v2: add_columns({"doubled": "val * 2"}): a new data file per fragment holding
    only the new field (a Merge). v3: add_columns(pa.field("note", string)): schema only, no
    data file anywhere, reads as all null. v4: alter_columns rename name -> label (same field
    id, a Project). v5: alter_columns cast val int32 -> int64: a new field id and a new data
    file per fragment, while the old file still lists the old id. v6: drop_columns(["doubled"])
    (its data files disappear from the fragments). v7: drop_columns(["s.b"]), a nested field.
    v8: appends 100 rows with the evolved schema (note has values there)."""
    rng = np.random.default_rng(13013)
    n = 200
    struct = random_structs(
        rng,
        n,
        {"a": random_ints(rng, n, pa.int32(), 0.1, -100, 100), "b": random_strings(rng, n, 0.1)},
    )
    table = pa.table(
        {
            "id": pa.array(np.arange(n, dtype=np.int64)),
            "val": random_ints(rng, n, pa.int32(), 0.1, -(10**6), 10**6),
            "name": random_strings(rng, n, 0.1),
            "s": struct,
        }
    )
    ds = write_in_files(table, uri, n // 2)
    ds.add_columns({"doubled": "val * 2"})
    ds.add_columns(pa.field("note", pa.string()))
    ds.alter_columns({"path": "name", "name": "label"})
    ds.alter_columns({"path": "val", "data_type": pa.int64()})
    ds.drop_columns(["doubled"])
    ds.drop_columns(["s.b"])
    m = 100
    evolved = pa.table(
        {
            "id": pa.array(np.arange(n, n + m, dtype=np.int64)),
            "val": random_ints(rng, m, pa.int64(), 0.1, -(10**6), 10**6),
            "label": random_strings(rng, m, 0.1),
            "s": random_structs(rng, m, {"a": random_ints(rng, m, pa.int32(), 0.1, -100, 100)}),
            "note": random_strings(rng, m, 0.1),
        }
    )
    append(evolved.cast(ds.schema), uri)
    require(len(lance.dataset(uri).versions()) == 8, "8 versions")


COMPACTION_SEED = 14014


def _write_compaction(uri: str) -> lance.LanceDataset:
    """compaction's recipe: 7 versions, see its docstring."""
    rng = np.random.default_rng(COMPACTION_SEED)
    ds = lance.write_dataset(simple_table(rng, 0, 600), uri, max_rows_per_file=300)
    for k in range(3):
        ds = append(simple_table(rng, 600 + 200 * k, 200), uri)
    ds.delete("id % 7 = 0")
    ds.optimize.compact_files()
    require(len(ds.versions()) == 7, "compact_files commits ReserveFragments and Rewrite")
    return ds


@golden_table
def compaction(uri: str) -> None:
    """Compaction (format 2.2). v1: 600 rows (id, a, f) in 2 fragments of 300; v2..v4 append
    200 rows each (fragments 2..4); v5 deletes id % 7 = 0 from every fragment (.arrow);
    optimize.compact_files() then commits two versions: v6 ReserveFragments (same rows and
    fragments) and v7 Rewrite, one fragment (id 5) with the deletions materialised and the
    fields in schema order."""
    _write_compaction(uri)


@golden_table
def cleaned_up(uri: str) -> None:
    """compaction's 7 versions (same seed, identical rows), then v3 tagged "kept" and
    cleanup_old_versions(older_than=timedelta(0), delete_unverified=True,
    error_if_tagged_old_versions=False), which deletes every manifest but the latest and the
    tagged one, with their transaction, deletion and data files; then an append. The versions
    left are 3, 7 and 8: they start late and are not contiguous, and v3 still reads through
    the data files the cleanup kept for it."""
    ds = _write_compaction(uri)
    ds.tags.create("kept", 3)
    ds.cleanup_old_versions(
        older_than=timedelta(0), delete_unverified=True, error_if_tagged_old_versions=False
    )
    append(simple_table(np.random.default_rng(COMPACTION_SEED + 1), 1200, 100), uri)
    require(
        [v["version"] for v in lance.dataset(uri).versions()] == [3, 7, 8], "versions 3, 7, 8"
    )


@golden_table(row_ids=True)
def stable_row_ids(uri: str) -> None:
    """Stable row ids (enable_stable_row_ids=True, format 2.2; manifest feature flag 2 and
    next_row_id; every fragment has inline RowIdSequence and created/last-updated version
    sequences). v1: 3000 rows (id, a, f) in 3 fragments of 1000 (row ids 0..2999, one range
    segment each); v2 appends 500 (3000..3499); v3 deletes 100 rows of fragment 0
    (id % 10 = 3), 100 of fragment 1 (id 1500..1599) and 3 of fragment 2 (deletion files
    only: the sequences stay ranges); v4 update(a = 'updated') of ids 0..4 and 3000..3004:
    the 9 live ones move to a new fragment 4 and keep their row ids (a sorted_array segment),
    so _rowid and _rowaddr differ from here on; v5/v6 optimize.compact_files()
    (ReserveFragments, Rewrite) into one fragment whose sequence has range_with_bitmap (100
    holes), range_with_holes (3 holes), range and sorted_array segments, and _rowid
    survives; v7 appends 200 rows (row ids from next_row_id). expected/rowids_v<N>.arrow has
    _rowid and _rowaddr for every version; info.json "row_id_segments" the segment kinds per
    fragment."""
    rng = np.random.default_rng(15015)
    ds = lance.write_dataset(
        simple_table(rng, 0, 3000), uri, max_rows_per_file=1000, enable_stable_row_ids=True
    )
    ds = append(simple_table(rng, 3000, 500), uri)
    ds.delete(
        "(id < 1000 AND id % 10 = 3) OR (id >= 1500 AND id < 1600) OR id IN (2100, 2200, 2300)"
    )
    ds.update({"a": "'updated'"}, where="id < 5 OR (id >= 3000 AND id < 3005)")
    ds.optimize.compact_files()
    ds = append(simple_table(rng, 3500, 200), uri)
    require(ds.has_stable_row_ids and len(ds.versions()) == 7, "7 versions with stable row ids")
    kinds = {kind for kinds in row_id_segments(ds).values() for kind in kinds}
    require(
        kinds == {"range", "range_with_holes", "range_with_bitmap", "sorted_array"},
        f"row id segments of every kind but array, got {kinds}",
    )


@golden_table
def v1_manifest_names_history(uri: str) -> None:
    """A history under V1 manifest names (enable_v2_manifest_paths=False: _versions/1.manifest,
    2.manifest, ...), format 2.2. v1: 2000 rows (id, a, f) in 2 fragments; v2 appends 500;
    v3 deletes id % 3 = 0 below 1000 (.arrow in fragment 0); v4 appends 300; v5
    add_columns({"g": "id * 10"})."""
    rng = np.random.default_rng(16016)
    ds = lance.write_dataset(
        simple_table(rng, 0, 2000), uri, max_rows_per_file=1000, enable_v2_manifest_paths=False
    )
    ds = append(simple_table(rng, 2000, 500), uri)
    ds.delete("id % 3 = 0 AND id < 1000")
    ds = append(simple_table(rng, 2500, 300), uri)
    ds.add_columns({"g": "id * 10"})
    require((Path(uri) / "_versions" / "5.manifest").is_file(), "V1 manifest names")


@golden_table
def multi_base(uri: str) -> None:
    """Data files in three places (format 2.2): the dataset's own data/, base 1 "bucket1"
    (is_dataset_root=false: files directly in <name>/bucket1/) and base 2 "bucket2_root"
    (is_dataset_root=true: files in <name>/bucket2_root/data/), declared with initial_bases
    as ABSOLUTE paths (pylance stores them verbatim, so the dataset cannot be moved and
    info.json depends on --out). v1: 900 rows in 3 fragments written to bucket1
    (target_bases=["bucket1"]); v2 appends 300 to bucket2_root; v3 appends 300 to the
    dataset's own data/; v4 appends 300 in 3 fragments with target_all_bases=True (round robin
    over all three); v5 deletes rows of fragments in every base: the deletion files all go to
    the dataset's own _deletions/."""
    rng = np.random.default_rng(17017)
    root = Path(uri).parent
    bases = [
        lance.DatasetBasePath(str(root / "bucket1"), name="bucket1", is_dataset_root=False),
        lance.DatasetBasePath(
            str(root / "bucket2_root"), name="bucket2_root", is_dataset_root=True
        ),
    ]
    lance.write_dataset(
        simple_table(rng, 0, 900),
        uri,
        max_rows_per_file=300,
        initial_bases=bases,
        target_bases=["bucket1"],
    )
    append(simple_table(rng, 900, 300), uri, target_bases=["bucket2_root"])
    append(simple_table(rng, 1200, 300), uri)
    ds = append(simple_table(rng, 1500, 300), uri, max_rows_per_file=100, target_all_bases=True)
    ds.delete("id % 50 = 1")
    base_ids = {d.base_id for f in ds.get_fragments() for d in f.metadata.data_files()}
    require(base_ids == {None, 1, 2}, f"data files in every base, got {base_ids}")


@golden_table
def shallow_clone_src(uri: str) -> None:
    """The source of shallow_clone (format 2.2): v1 600 rows (id, a, f) in 2 fragments, v2
    appends 300; tag "release" on v2. expected/tag_release.arrow is v2."""
    rng = np.random.default_rng(18018)
    ds = lance.write_dataset(simple_table(rng, 0, 600), uri, max_rows_per_file=300)
    ds = append(simple_table(rng, 600, 300), uri)
    ds.tags.create("release", 2)


@golden_table
def shallow_clone(uri: str) -> None:
    """A shallow clone of shallow_clone_src (written just before it) at its tag "release"
    (version 2). The clone's first version is 2 (a Clone transaction); its manifest has
    base_paths {id 0, is_dataset_root, path = the source's absolute path} and every inherited
    DataFile has base_id 0 explicitly present. v3 appends 200 rows (in the clone's own data/,
    no base_id); v4 deletes rows of an inherited fragment and of the new one (deletion files
    in the clone's _deletions/). The source is unchanged. Versions 2, 3, 4."""
    source = Path(uri).parent.parent / "shallow_clone_src" / "dataset"
    require(source.is_dir(), "shallow_clone_src is generated first")
    lance.dataset(str(source)).shallow_clone(uri, "release")
    rng = np.random.default_rng(18018 + 1)
    ds = append(simple_table(rng, 900, 200), uri)
    ds.delete("id % 20 = 4")
    require([v["version"] for v in ds.versions()] == [2, 3, 4], "clone versions 2, 3, 4")


@golden_table
def branches_tags(uri: str) -> None:
    """Branches and tags (format 2.2). Main: v1 600 rows (id, a, f) in 2 fragments, v2
    appends 200, v3 deletes id % 10 = 1. Branch "dev" from main v1 (tree/dev/, versions
    continue from the parent: dev v1 is the Clone, v2 appends 100 rows with ids from 10000,
    v3 deletes ids 0..49, an inherited fragment: its deletion file is in tree/dev/_deletions).
    Nested branch "dev/feature" from dev v2 (tree/dev/feature/, _refs/branches/dev%2Ffeature
    .json; versions 2, 3: v3 appends 50 rows with ids from 20000). Tags: "first" on main v1,
    "main_head" on main v3, "dev_snapshot" on dev v2 (a tag on a branch). Expected files:
    v<N>.arrow for main, branch_dev_v<N>.arrow and branch_dev__feature_v<N>.arrow (/ becomes
    __) for every branch version, tag_<name>.arrow; info.json "branches" and "tags"."""
    rng = np.random.default_rng(19019)
    ds = lance.write_dataset(simple_table(rng, 0, 600), uri, max_rows_per_file=300)
    ds = append(simple_table(rng, 600, 200), uri)
    ds.delete("id % 10 = 1")
    dev = ds.create_branch("dev", 1)
    dev = append(simple_table(rng, 10000, 100), dev)
    dev.delete("id < 50")
    feature = dev.create_branch("dev/feature", ("dev", 2))
    append(simple_table(rng, 20000, 50), feature)
    ds = lance.dataset(uri)
    ds.tags.create("first", 1)
    ds.tags.create("main_head", 3)
    ds.tags.create("dev_snapshot", ("dev", 2))


def index_uuid(dataset: str, index: str) -> str:
    """A fixed index UUID, so that info.json does not change between runs."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"spark-lance-golden/{dataset}/{index}"))


@golden_table
def indexed(uri: str) -> None:
    """Scalar indices, which a reader may ignore (format 2.2). v1: 20,000 rows in 4 fragments
    of 5000: id int64 0..19999 (sorted), key int32 (a permutation of 0..19999), x float64,
    category string (5 words, 10% null). v2: ZONEMAP on id ("id_zonemap": zonemap.lance); v3:
    BTREE on key ("key_btree": page_data.lance, page_lookup.lance); v4: BITMAP on category
    ("category_bitmap": bitmap_page_lookup.lance), each with a fixed UUID under _indices/.
    v5 appends 1000 rows (fragment 4, which no index covers); v6 deletes id % 1000 = 7 in
    every fragment. info.json "indices" lists per version each index's type, fields, field
    ids, covered fragments and files."""
    rng = np.random.default_rng(20020)
    n = 20_000

    def rows(start: int, count: int) -> pa.Table:
        return pa.table(
            {
                "id": pa.array(np.arange(start, start + count, dtype=np.int64)),
                "key": pa.array(start + rng.permutation(count).astype(np.int32)),
                "x": random_floats(rng, count, pa.float64(), 0.0, special_frac=0),
                "category": choice_strings(rng, count, WORDS[:5], 0.1),
            }
        )

    ds = lance.write_dataset(rows(0, n), uri, max_rows_per_file=5000)
    for column, kind, name in [
        ("id", "ZONEMAP", "id_zonemap"),
        ("key", "BTREE", "key_btree"),
        ("category", "BITMAP", "category_bitmap"),
    ]:
        ds.create_scalar_index(column, kind, name=name, index_uuid=index_uuid("indexed", name))
    ds = append(rows(n, 1000), uri)
    ds.delete("id % 1000 = 7")


def permuted_keys(ids: np.ndarray, n: int) -> np.ndarray:
    """key = (id * 7919 mod n) * 3: a permutation of the multiples of 3 below 3n (7919 is a
    prime that divides no n used here), computable from the id, so filters can name the key of
    a given row."""
    return (ids * 7919 % n * 3).astype(np.int64)


# Strings whose order differs between UTF-16 units (Java's compareTo) and code points (UTF-8
# bytes, Arrow's and so the BTREE's order): U+FFEE sorts before U+1F600 only by code point.
LOOKUP_NAMES = [
    "\u00dcn\u00efcode",
    "\u65e5\u672c\u8a9e",
    "\uffee-halfwidth",
    "\U0001f600 emoji",
    "zz",
]

INDEX_LOOKUP_FILTERS = (
    "key = 300",
    "key IN (0, 3, 89997, 45000, 12, 7)",
    "key = 88500",
    "key = 88501",
    "grp = 4",
    "grp IN (12, 29)",
    "name = 'n000300'",
    "name IN ('\uffee-halfwidth', '\U0001f600 emoji', '\u00dcn\u00efcode', 'n999999')",
    "tag = 'beta'",
    "tag IN ('alpha', 'zeta')",
    "tag = 'nope'",
    "code = 3",
    "code IN (0, 9)",
    "grp = 4 AND tag = 'beta'",
    "key = 300 OR grp = 4",
    "key IN (300, 88501) AND id < 20000",
)


@golden_table(filters=INDEX_LOOKUP_FILTERS)
def index_lookups(uri: str) -> None:
    """BTREE and BITMAP equality and IN look-ups (format 2.2, row addresses). v1: 30,000 rows
    in 3 fragments of 10,000: id int64 0..29999, key int64 = (id * 7919 mod 30000) * 3 (the
    multiples of 3 below 90,000, shuffled), grp int32 = id // 1000 (runs of 1000 equal values,
    several across the BTREE's 4096-row pages), name string "n" + key as 6 digits except
    every row with id % 1000 = 999, which takes one of 5 non-ASCII names (ordered differently
    by UTF-16 units and by code points), tag string (6 words, 10% null), code uint8 (0..9).
    v2..v6 create, each with a fixed UUID: BTREE key_btree, grp_btree, name_btree, BITMAP
    tag_bitmap, code_bitmap (all covering fragments 0..2). v7 appends 5000 rows (fragment 3,
    no index covers it) whose keys (0, 6, .., 29994), names and groups (10..16) repeat
    indexed ones. v8 deletes id % 100 = 7 (rows the indices still name). v9 sets key = key + 1
    where id % 1000 = 500: those rows move to fragment 4 (not covered) and their old
    addresses, still in key_btree, are deleted. expected/filter<i>_v<N>.arrow holds pylance's
    to_table(filter=...) for each of info.json "filters" at every version (checked against a
    scan without scalar indices)."""
    n = 30_000

    def rows(start: int, count: int, keys: np.ndarray, groups: np.ndarray, rng) -> pa.Table:
        ids = np.arange(start, start + count, dtype=np.int64)
        names = [
            LOOKUP_NAMES[(i // 1000) % len(LOOKUP_NAMES)] if i % 1000 == 999 else f"n{k:06d}"
            for i, k in zip(ids.tolist(), keys.tolist())
        ]
        return pa.table(
            {
                "id": pa.array(ids),
                "key": pa.array(keys),
                "grp": pa.array(groups.astype(np.int32)),
                "name": pa.array(names, pa.string()),
                "tag": choice_strings(rng, count, WORDS[:6], 0.1),
                "code": pa.array(rng.integers(0, 10, count).astype(np.uint8)),
            }
        )

    rng = np.random.default_rng(25025)
    ids = np.arange(n, dtype=np.int64)
    ds = lance.write_dataset(
        rows(0, n, permuted_keys(ids, n), ids // 1000, rng), uri, max_rows_per_file=10_000
    )
    for column, kind, name in [
        ("key", "BTREE", "key_btree"),
        ("grp", "BTREE", "grp_btree"),
        ("name", "BTREE", "name_btree"),
        ("tag", "BITMAP", "tag_bitmap"),
        ("code", "BITMAP", "code_bitmap"),
    ]:
        ds.create_scalar_index(
            column, kind, name=name, index_uuid=index_uuid("index_lookups", name)
        )
    more = np.arange(n, n + 5000, dtype=np.int64)
    ds = append(rows(n, 5000, (more - n) * 6, 10 + more % 7, rng), uri)
    ds.delete("id % 100 = 7")
    ds.update({"key": "key + 1"}, where="id % 1000 = 500")
    ds = lance.dataset(uri)
    require(len(ds.versions()) == 9, "9 versions")
    require(
        [f.fragment_id for f in ds.get_fragments()] == [0, 1, 2, 3, 4],
        "fragments 0..2 indexed, 3 appended, 4 from the update",
    )


@golden_table(
    filters=(
        "key = 29250",
        "key = 29251",
        "key IN (0, 3, 28500)",
        "tag = 'alpha'",
        "tag = 'updated'",
    )
)
def index_stable_row_ids(uri: str) -> None:
    """Scalar indices of a table with stable row ids (format 2.2), where pylance 14 stores
    row ids in a BITMAP but row addresses in a BTREE, so a reader cannot tell them apart and
    must scan. v1: 10,000 rows in 2 fragments of 5000 (enable_stable_row_ids=True): id int64,
    key int64 = (id * 7919 mod 10000) * 3, tag string (4 words); v2 BTREE key_btree, v3 BITMAP
    tag_bitmap (fixed UUIDs); v4 deletes id % 100 = 7; v5 sets tag = 'updated' where
    id % 1000 = 500 and v6 key = key + 1 where id % 1000 = 250 (the rows move to new fragments
    and keep their row ids). Filters as for index_lookups."""
    n = 10_000
    rng = np.random.default_rng(26026)
    ids = np.arange(n, dtype=np.int64)
    table = pa.table(
        {
            "id": pa.array(ids),
            "key": pa.array(permuted_keys(ids, n)),
            "tag": choice_strings(rng, n, WORDS[:4]),
        }
    )
    ds = lance.write_dataset(table, uri, max_rows_per_file=5000, enable_stable_row_ids=True)
    for column, kind, name in [("key", "BTREE", "key_btree"), ("tag", "BITMAP", "tag_bitmap")]:
        ds.create_scalar_index(
            column, kind, name=name, index_uuid=index_uuid("index_stable_row_ids", name)
        )
    ds.delete("id % 100 = 7")
    ds.update({"tag": "'updated'"}, where="id % 1000 = 500")
    ds = lance.dataset(uri)
    ds.update({"key": "key + 1"}, where="id % 1000 = 250")
    ds = lance.dataset(uri)
    require(ds.has_stable_row_ids and len(ds.versions()) == 6, "6 versions with stable row ids")


@golden_table(filters=("key = 300", "key IN (0, 3, 17997, 9)", "tag = 'beta'"))
def index_remap_deferred(uri: str) -> None:
    """A compaction that defers remapping the indices (format 2.2). v1: 6000 rows in 3
    fragments of 2000: id int64, key int64 = (id * 7919 mod 6000) * 3, tag string (4 words);
    v2 BTREE key_btree, v3 BITMAP tag_bitmap (fixed UUIDs); v4 deletes id % 10 = 3; then
    optimize.compact_files(defer_index_remap=True) writes one fragment and a
    __lance_frag_reuse index (a random UUID, the one value of info.json that changes between
    runs): the BTREE and BITMAP now claim the new fragment while holding addresses in the
    old ones. Filters as for index_lookups."""
    n = 6000
    rng = np.random.default_rng(27027)
    ids = np.arange(n, dtype=np.int64)
    table = pa.table(
        {
            "id": pa.array(ids),
            "key": pa.array(permuted_keys(ids, n)),
            "tag": choice_strings(rng, n, WORDS[:4]),
        }
    )
    ds = lance.write_dataset(table, uri, max_rows_per_file=2000)
    for column, kind, name in [("key", "BTREE", "key_btree"), ("tag", "BITMAP", "tag_bitmap")]:
        ds.create_scalar_index(
            column, kind, name=name, index_uuid=index_uuid("index_remap_deferred", name)
        )
    ds.delete("id % 10 = 3")
    ds = lance.dataset(uri)
    ds.optimize.compact_files(defer_index_remap=True)
    ds = lance.dataset(uri)
    require(
        any(i["name"] == "__lance_frag_reuse" for i in ds.list_indices()),
        "the compaction left a fragment reuse index",
    )


@golden_table
def empty_versions(uri: str) -> None:
    """Versions without rows (format 2.2): v1 creates the dataset with 0 rows (id, a, f; no
    fragment, no data file), v2 appends 300 rows, v3 appends 0 rows (a version whose
    fragments are those of v2)."""
    rng = np.random.default_rng(21021)
    empty = simple_table(rng, 0, 0)
    lance.write_dataset(empty, uri)
    append(simple_table(rng, 0, 300), uri)
    append(empty, uri)


@golden_table
def overwrite_history(uri: str) -> None:
    """Overwrite with a different schema (format 2.2): v1 300 rows of id int32, value string;
    v2 appends 100; v3 mode="overwrite" with id int64, value float64, flag bool (200 rows,
    new field types, the old fragments gone); v4 appends 100 of the new schema. Time travel
    to v1/v2 must use the old schema."""
    rng = np.random.default_rng(22022)

    def old(start: int, n: int) -> pa.Table:
        return pa.table(
            {
                "id": pa.array(np.arange(start, start + n, dtype=np.int32)),
                "value": random_strings(rng, n, 0.1),
            }
        )

    def new(start: int, n: int) -> pa.Table:
        return pa.table(
            {
                "id": pa.array(np.arange(start, start + n, dtype=np.int64)),
                "value": random_floats(rng, n, pa.float64(), 0.1),
                "flag": random_bools(rng, n, 0.1),
            }
        )

    lance.write_dataset(old(0, 300), uri)
    append(old(300, 100), uri)
    lance.write_dataset(new(0, 200), uri, mode="overwrite")
    append(new(200, 100), uri)

