"""The file-reader corpus: every file version, Arrow type and page encoding pylance writes.

Each function writes every version of one dataset to `uri` and is registered with
@golden_table (registry.py); generate.py records what pylance reads back. Keep seeds unique
unless two datasets are meant to hold the same rows (and say so).
"""

from __future__ import annotations

from pathlib import Path

import lance
import numpy as np
import pyarrow as pa

from columns import (
    WORDS,
    basic_columns,
    basic_table,
    choice_strings,
    null_mask,
    random_binaries,
    random_bools,
    random_dates,
    random_decimals,
    random_dictionary,
    random_fixed_binaries,
    random_fixed_size_lists,
    random_floats,
    random_ints,
    random_lists,
    random_maps,
    random_strings,
    random_structs,
    random_temporals,
    random_vectors,
    write_in_files,
)
from registry import golden_table

# --------------------------------------------------------------------------------------------
# Datasets. Each function writes all versions of one dataset to `uri`; keep seeds unique unless
# two datasets are meant to hold the same rows (and say so).
# --------------------------------------------------------------------------------------------

BASIC_SEED = 1001


def _write_basic_versions(uri: str, rows_per_version: list[int], **create_kwargs) -> None:
    """basic_types' recipe: create with the first count (1000 rows per fragment), then one
    append per further count. Same seed, so every user of it writes the same rows."""
    rng = np.random.default_rng(BASIC_SEED)
    first, *appends = rows_per_version
    lance.write_dataset(basic_table(rng, first), uri, max_rows_per_file=1000, **create_kwargs)
    for n in appends:
        lance.write_dataset(basic_table(rng, n), uri, mode="append")


@golden_table
def basic_types(uri: str) -> None:
    """The primitive types the reader supports first, in the default format (2.2), with about
    10% nulls per column: bool, int8..int64 (full range, extremes), float32/64 (NaN, -0.0,
    +/-inf, subnormal), unicode strings and binary (empty values distinct from null), date32,
    timestamp[us] without and with tz=UTC (pre-1970 values). Three versions: v1 creates 3000
    rows in 3 fragments (max_rows_per_file=1000), v2 appends 1500 rows, v3 appends 700 rows,
    so time travel must see 3000, 4500 and 5200 rows."""
    _write_basic_versions(uri, [3000, 1500, 700])


@golden_table
def basic_types_large(uri: str) -> None:
    """120,000 rows in 2 fragments of 60,000 (one version, format 2.2), shaped so pylance picks
    a variety of page encodings. The 12 basic_types columns (10% nulls) come first, then:
    id (sorted int64: inline bitpacking), small_int32_col (0..15: bitpacking),
    small_int32_nullable_col (0..4095, 10% nulls: bitpacking plus definition levels),
    small_range_int64_col (1000 distinct values: dictionary of integers), runs_int32_col (runs of
    200 equal values: RLE), category_col (8 words, 10% nulls: string dictionary, lz4-wrapped in
    2.2), url_col (~45-byte URLs: FSST), const_int32_col (constant layout with an inline value),
    const_string_col (constant layout with the value in a page buffer), all_null_int32_col
    (constant layout, all null) and long_string_col (98% null, the rest 300..600 characters:
    full-zip layout). Run dev/golden/check.py on it to see what was actually chosen."""
    rng = np.random.default_rng(2002)
    n = 120_000
    hosts = ["example.com", "lance.dev", "data.example.org", "spark.apache.org", "github.com"]
    host_idx = rng.integers(0, len(hosts), n)
    page_ids = rng.integers(0, 1_000_000, n)
    item_ids = rng.integers(0, 100_000, n)
    urls = [
        f"https://{hosts[h]}/p/{p:06d}/item?id={i}" for h, p, i in zip(host_idx, page_ids, item_ids)
    ]
    runs = np.repeat(rng.integers(-1000, 1000, n // 200, dtype=np.int32, endpoint=True), 200)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    columns = basic_columns(rng, n, null_frac=0.1)
    columns |= {
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "small_int32_col": random_ints(rng, n, pa.int32(), low=0, high=15, edge_frac=0),
        "small_int32_nullable_col": random_ints(
            rng, n, pa.int32(), null_frac=0.1, low=0, high=4095, edge_frac=0
        ),
        "small_range_int64_col": random_ints(rng, n, pa.int64(), low=-500, high=499, edge_frac=0),
        "runs_int32_col": pa.array(runs, pa.int32()),
        "category_col": choice_strings(rng, n, words, null_frac=0.1),
        "url_col": pa.array(urls, pa.string(), mask=null_mask(rng, n, 0.1)),
        "const_int32_col": pa.repeat(pa.scalar(42, pa.int32()), n),
        "const_string_col": pa.repeat(pa.scalar("same", pa.string()), n),
        "all_null_int32_col": pa.nulls(n, pa.int32()),
        "long_string_col": random_strings(
            rng, n, null_frac=0.98, min_len=300, max_len=600, empty_frac=0
        ),
    }
    lance.write_dataset(pa.table(columns), uri, max_rows_per_file=60_000)


@golden_table
def no_nulls(uri: str) -> None:
    """The 12 basic_types columns (still declared nullable) without a single null, so every
    page has the all-valid layer and no definition levels. v1 creates 5000 rows; v2 replaces
    them (mode="overwrite") with 5000 different rows, so v1 must still read the old rows."""
    rng = np.random.default_rng(3003)
    lance.write_dataset(basic_table(rng, 5000, null_frac=0.0), uri)
    lance.write_dataset(basic_table(rng, 5000, null_frac=0.0), uri, mode="overwrite")


@golden_table
def projection_and_count(uri: str) -> None:
    """Ten hand-written rows a quickstart or test can assert literally: id int64 0..9, name
    string, score float64; 2 fragments of 5 rows, one version. For projection (select one
    column, reorder columns), count(*) and simple filters."""
    names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"]
    table = pa.table(
        {
            "id": pa.array(range(10), pa.int64()),
            "name": pa.array(names, pa.string()),
            "score": pa.array([i * 10 + 0.5 for i in range(10)], pa.float64()),  # 0.5 .. 90.5
        }
    )
    lance.write_dataset(table, uri, max_rows_per_file=5)


@golden_table
def legacy_manifest_names(uri: str) -> None:
    """basic_types' first two versions (same seed, so identical rows) written with
    enable_v2_manifest_paths=False: manifests are _versions/1.manifest and 2.manifest instead of
    the default zero-padded u64::MAX - version names. v1 has 3000 rows, v2 appends 1500."""
    _write_basic_versions(uri, [3000, 1500], enable_v2_manifest_paths=False)


@golden_table
def format_v2_0(uri: str) -> None:
    """basic_types' v1 (3000 rows, 3 fragments, identical rows) in file format 2.0: footer
    version 0.3, ArrayEncoding pages, one column per field. The reader may reject it with
    UnsupportedFeature until 2.0 is implemented."""
    _write_basic_versions(uri, [3000], data_storage_version="2.0")


@golden_table
def format_v2_1(uri: str) -> None:
    """basic_types' v1 (3000 rows, 3 fragments, identical rows) in file format 2.1: the same
    page layouts as 2.2 but with has_large_chunk unset (u16 mini-block chunk sizes); 2.1 also
    lacks the constant layout and lz4 around dictionaries, which these columns do not reach.
    The reader may reject it until 2.1 is implemented."""
    _write_basic_versions(uri, [3000], data_storage_version="2.1")


# --------------------------------------------------------------------------------------------
# The complete file reader's corpus: every file version, Arrow type and page encoding that
# pylance writes. See docs/src/format/file/encoding.md upstream; dev/golden/check.py prints
# what each version chooses.
# --------------------------------------------------------------------------------------------

TYPES_SEED = 4004
TYPES_ROWS = 1200
TYPES_ROWS_PER_FILE = 600
COLORS = ["red", "green", "blue", "cyan", "magenta"]
MAP_KEYS = ["k0", "k1", "k2", "k3", "k4", "k5"]


def types_columns(
    rng: np.random.Generator,
    n: int,
    *,
    null_frac: float,
    struct_null_frac: float,
    empty_strings: bool,
    with_map: bool,
) -> dict[str, pa.Array]:
    """One column per Arrow type family, in schema order (see types_v2_2's docstring).

    `null_frac` applies to every nullable level (values, list items, lists, fixed-size lists);
    `struct_null_frac` to struct levels only (2.0 cannot encode struct validity). About 10% of
    the lists are empty; strings and binaries are empty about 10% of the time if
    `empty_strings`, else never (legacy files read empty values back as null)."""
    nf, snf, ef = null_frac, struct_null_frac, 0.1
    s_min, s_ef = (0, ef) if empty_strings else (1, 0.0)

    def strings(k: int, max_len: int = 16) -> pa.Array:
        return random_strings(rng, k, nf, min_len=s_min, max_len=max_len, empty_frac=s_ef)

    def binaries(k: int) -> pa.Array:
        return random_binaries(rng, k, nf, min_len=s_min, empty_frac=s_ef)

    def ints(type_: pa.DataType, low: int | None = None, high: int | None = None):
        return lambda k: random_ints(rng, k, type_, nf, low, high)

    cols: dict[str, pa.Array] = {
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "bool_col": random_bools(rng, n, nf),
    }
    for name, type_ in [
        ("int8", pa.int8()), ("int16", pa.int16()), ("int32", pa.int32()), ("int64", pa.int64()),
        ("uint8", pa.uint8()), ("uint16", pa.uint16()), ("uint32", pa.uint32()),
        ("uint64", pa.uint64()),
    ]:  # fmt: skip
        cols[f"{name}_col"] = random_ints(rng, n, type_, nf)
    for name, type_ in [("float16", pa.float16()), ("float32", pa.float32()),
                        ("float64", pa.float64())]:  # fmt: skip
        cols[f"{name}_col"] = random_floats(rng, n, type_, nf)
    cols |= {
        "decimal128_col": random_decimals(rng, n, pa.decimal128(10, 2), nf),
        "decimal256_col": random_decimals(rng, n, pa.decimal256(40, 5), nf),
        "string_col": strings(n),
        "large_string_col": strings(n).cast(pa.large_string()),
        "binary_col": binaries(n),
        "large_binary_col": binaries(n).cast(pa.large_binary()),
        "fixed_binary_col": random_fixed_binaries(rng, n, 16, nf),
        "date32_col": random_dates(rng, n, nf),
        "date64_col": random_temporals(rng, n, pa.date64(), nf),
    }
    for unit, tz in [("s", None), ("ms", None), ("us", None), ("ns", None),
                     ("s", "UTC"), ("ms", "America/New_York"), ("us", "UTC"),
                     ("ns", "America/New_York")]:  # fmt: skip
        suffix = {None: "", "UTC": "_utc", "America/New_York": "_ny"}[tz]
        cols[f"ts_{unit}{suffix}_col"] = random_temporals(rng, n, pa.timestamp(unit, tz), nf)
    for name, type_ in [
        ("time32_s", pa.time32("s")), ("time32_ms", pa.time32("ms")),
        ("time64_us", pa.time64("us")), ("time64_ns", pa.time64("ns")),
    ]:  # fmt: skip
        cols[f"{name}_col"] = random_temporals(rng, n, type_, nf)
    for unit in ["s", "ms", "us", "ns"]:
        cols[f"duration_{unit}_col"] = random_temporals(rng, n, pa.duration(unit), nf)
    cols |= {
        "null_col": pa.nulls(n),
        "vector_col": random_vectors(rng, n, 128, nf),
        "fsl_int8_col": random_fixed_size_lists(rng, n, 4, ints(pa.int8()), nf),
        "list_int32_col": random_lists(rng, n, ints(pa.int32()), nf, ef),
        "large_list_string_col": random_lists(
            rng, n, lambda k: choice_strings(rng, k, WORDS, nf), nf, ef, large=True
        ),
        "list_list_int16_col": random_lists(
            rng, n, lambda k: random_lists(rng, k, ints(pa.int16()), nf, ef, max_len=3), nf, ef,
            max_len=3,
        ),
        "struct_col": random_structs(
            rng, n, {"a": ints(pa.int32())(n), "b": strings(n)}, snf
        ),
        "nested_struct_col": random_structs(
            rng,
            n,
            {
                "inner": random_structs(
                    rng,
                    n,
                    {"x": ints(pa.int64())(n), "y": choice_strings(rng, n, WORDS, nf)},
                    snf,
                ),
                "flag": random_bools(rng, n, nf),
            },
            snf,
        ),
        "list_struct_col": random_lists(
            rng,
            n,
            lambda k: random_structs(
                rng,
                k,
                {"k": ints(pa.int32(), -100, 100)(k), "v": strings(k, max_len=8)},
                snf,
            ),
            nf,
            ef,
        ),
        "struct_list_col": random_structs(
            rng,
            n,
            {
                "tags": random_lists(rng, n, lambda k: choice_strings(rng, k, COLORS, nf), nf, ef),
                "n": ints(pa.int64())(n),
            },
            snf,
        ),
    }
    if with_map:
        cols["map_col"] = random_maps(rng, n, MAP_KEYS, nf, ef)
    cols["dictionary_col"] = random_dictionary(rng, n, COLORS, nf)
    return cols

def _write_types(uri: str, version: str) -> None:
    """types_*' recipe: TYPES_ROWS rows of types_columns in 2 fragments, in `version`."""
    legacy = version == "legacy"
    columns = types_columns(
        np.random.default_rng(TYPES_SEED),
        TYPES_ROWS,
        null_frac=0.0 if legacy else 0.1,
        struct_null_frac=0.0 if version in ("2.0", "legacy") else 0.1,
        empty_strings=not legacy,
        with_map=version not in ("2.0", "2.1", "legacy"),
    )
    write_in_files(pa.table(columns), uri, TYPES_ROWS_PER_FILE, data_storage_version=version)


@golden_table
def types_v2_2(uri: str) -> None:
    """One column per Arrow type family in file format 2.2, 1200 rows in 2 fragments of 600,
    about 10% nulls at every level (values, list items, null and empty lists, null structs):
    id (0..1199), bool, int8..int64 and uint8..uint64 (full range, extremes), float16/32/64
    (NaN, -0.0, +/-inf, extremes, subnormal), decimal128(10,2) and decimal256(40,5) (every
    magnitude up to the largest), string, large_string, binary, large_binary (empty values
    distinct from null), fixed_size_binary(16), date32, date64, timestamp s/ms/us/ns without tz,
    timestamp s and us with UTC, ms and ns with America/New_York, time32 s/ms, time64 us/ns,
    duration s/ms/us/ns (negative too), null, fixed_size_list<float32,128> (full-zip),
    fixed_size_list<int8,4> (null items), list<int32>, large_list<string> (dictionary items),
    list<list<int16>>, struct<a:int32,b:string>, struct<inner:struct<x:int64,y:string>,
    flag:bool>, list<struct<k:int32,v:string>>, struct<tags:list<string>,n:int64>,
    map<string,int32> (distinct keys per map, null values, null and empty maps; 2.2 only) and
    dictionary<int32,string>."""
    _write_types(uri, "2.2")


@golden_table
def types_v2_1(uri: str) -> None:
    """types_v2_2's columns and recipe (same seed) in file format 2.1, without map_col:
    pylance 14.0.2 refuses it ("Map data type is not enabled by the selected file format").
    Mini-block chunk sizes are u16 and dictionaries are not wrapped in lz4."""
    _write_types(uri, "2.1")


@golden_table
def types_v2_0(uri: str) -> None:
    """types_v2_2's columns and recipe (same seed) in file format 2.0 (footer version 0.3,
    lance.encodings.ArrayEncoding pages, one column per field including list and struct
    parents), without map_col ("Lance v2.0 has no field encoding for 'map_col' with data type
    Map") and with no null structs at
    any level: 2.0 cannot encode struct validity ("Lance file version 2.0 does not encode
    struct validity"), so the structs are all valid, with nullable children that do hold
    nulls. Lists, list items and all other values still have ~10% nulls."""
    _write_types(uri, "2.0")


@golden_table
def types_legacy(uri: str) -> None:
    """types_v2_2's columns and recipe (same seed) in the legacy v1 file format
    (data_storage_version "legacy", reported as "0.1"; data files with footer version 0.2),
    null-free and with no empty strings or binaries, because the legacy writer does not keep
    them: pylance 14.0.2 reads nulls back as values (or empty lists) and empty strings and
    binaries back as null. Empty lists do round-trip and are kept. Dropped: map_col ("unsupported
    data type: Map"). Every other type round-trips. The reader may reject the legacy format
    with a clear error instead of reading it."""
    _write_types(uri, "legacy")


WIDE_VECTORS_SEED = 5005


def _write_wide_vectors(uri: str, version: str) -> None:
    rng = np.random.default_rng(WIDE_VECTORS_SEED)
    n = 48
    null_frac = 0.0 if version == "legacy" else 0.1
    table = pa.table(
        {
            "id": pa.array(np.arange(n, dtype=np.int64)),
            "vector768_col": random_vectors(rng, n, 768, null_frac),
            "vector1536_col": random_vectors(rng, n, 1536, null_frac),
        }
    )
    write_in_files(table, uri, n // 2, data_storage_version=version)


@golden_table
def wide_vectors_v2_2(uri: str) -> None:
    """fixed_size_list<float32,768> and <float32,1536> (3 KiB and 6 KiB per value: full-zip
    pages in 2.1+), about 10% null, 48 rows in 2 fragments of 24, format 2.2. Kept apart from
    types_* so those stay small."""
    _write_wide_vectors(uri, "2.2")


@golden_table
def wide_vectors_v2_1(uri: str) -> None:
    """wide_vectors_v2_2's rows (same seed) in file format 2.1."""
    _write_wide_vectors(uri, "2.1")


@golden_table
def wide_vectors_v2_0(uri: str) -> None:
    """wide_vectors_v2_2's rows (same seed) in file format 2.0."""
    _write_wide_vectors(uri, "2.0")


@golden_table
def wide_vectors_legacy(uri: str) -> None:
    """wide_vectors_v2_2's recipe (same seed) in the legacy format, without nulls."""
    _write_wide_vectors(uri, "legacy")


ONE_PAGE_VECTORS_SEED = 6005


@golden_table
def one_page_vectors_v2_2(uri: str) -> None:
    """20,000 rows of fixed_size_list<float32,128> (a 10 MB full-zip page), and with ~10%
    nulls (a control word before each value) fixed_size_list<float32,64> and
    fixed_size_binary(256), written in ONE write_dataset call, so that each column is one
    page: the reader must fetch the rows a task reads, not the whole page."""
    rng = np.random.default_rng(ONE_PAGE_VECTORS_SEED)
    n = 20_000
    table = pa.table(
        {
            "id": pa.array(np.arange(n, dtype=np.int64)),
            "vec": random_vectors(rng, n, 128, 0.0),
            "vec_nulls": random_vectors(rng, n, 64, 0.1),
            "fsb": random_fixed_binaries(rng, n, 256, 0.1),
        }
    )
    lance.write_dataset(table, uri, data_storage_version="2.2")


ENCODINGS_SEED = 6006
ENCODINGS_ROWS = 5000


def hinted(name: str, array: pa.Array, **hints: str) -> tuple[pa.Field, pa.Array]:
    """A field carrying `lance-encoding:<hint>` metadata (underscores in a keyword become
    dashes: compression_level= sets lance-encoding:compression-level)."""
    metadata = {f"lance-encoding:{k.replace('_', '-')}": v for k, v in hints.items()}
    return pa.field(name, array.type, metadata=metadata or None), array


def encodings_table(version: str) -> pa.Table:
    """See encodings_v2_2's docstring. The columns are the same in both versions except
    packed_var_struct (2.2 only)."""
    rng = np.random.default_rng(ENCODINGS_SEED)
    n = ENCODINGS_ROWS
    hosts = ["example.com", "lance.dev", "data.example.org", "spark.apache.org", "github.com"]
    urls = pa.array(
        [
            f"https://{hosts[h]}/p/{p:04d}/item?id={i}"
            for h, p, i in zip(
                rng.integers(0, len(hosts), n), rng.integers(0, 1000, n), rng.integers(0, 10**5, n)
            )
        ]
    )
    long_strings = random_strings(rng, n, 0.1, min_len=200, max_len=400, empty_frac=0)
    ints = random_ints(rng, n, pa.int64(), 0.1, -(10**6), 10**6, edge_frac=0)
    smooth32 = pa.array((20 + np.cumsum(rng.normal(0, 0.01, n))).astype(np.float32))
    rounded64 = pa.array(np.round(rng.normal(100, 10, n), 2))
    uniform64 = pa.array(rng.random(n))
    users = pa.array([f"user_{i:05d}" for i in rng.integers(0, 2500, n)])
    blob_values = random_binaries(rng, n, 0.1, max_len=600).cast(pa.large_binary())
    fields = [
        hinted("id", pa.array(np.arange(n, dtype=np.int64))),
        # general-purpose compression around the mini-block values
        hinted("s_zstd", urls, compression="zstd"),
        hinted("s_zstd_level9", urls, compression="zstd", compression_level="9"),
        hinted("s_lz4", urls, compression="lz4"),
        hinted("s_none", urls, compression="none"),
        hinted("s_fsst", urls, compression="fsst"),
        hinted("i_zstd_level3", ints, compression="zstd", compression_level="3"),
        hinted("i_lz4", ints, compression="lz4"),
        # byte stream split
        hinted("f32_bss_on_zstd", smooth32, bss="on", compression="zstd"),
        hinted("f64_bss_auto_lz4", rounded64, bss="auto", compression="lz4"),
        hinted("f64_bss_off_zstd", rounded64, bss="off", compression="zstd"),
        hinted("f64_uniform_zstd", uniform64, compression="zstd"),
        # bit packing and RLE, chosen by the data
        hinted("i64_bitpack", random_ints(rng, n, pa.int64(), 0.0, 0, 4095, edge_frac=0)),
        hinted("i32_negative", random_ints(rng, n, pa.int32(), 0.0, -50, 50, edge_frac=0)),
        hinted("i32_runs", pa.array(np.repeat(rng.integers(-1000, 1000, n // 50), 50), pa.int32())),
        hinted(
            "i64_rle_threshold",
            pa.array(np.repeat(rng.integers(0, 1 << 40, n // 2), 2), pa.int64()),
            rle_threshold="0.9",
        ),
        # structural encoding
        hinted(
            "i32_fullzip", random_ints(rng, n, pa.int32(), 0.1), structural_encoding="fullzip"
        ),
        hinted("s_fullzip", random_strings(rng, n, 0.1), structural_encoding="fullzip"),
        # compression=none: with FSST the chunk count of this column varies between runs
        hinted(
            "s_long_miniblock", long_strings, structural_encoding="miniblock", compression="none"
        ),
        hinted("s_long", long_strings),
        hinted("s_long_zstd", long_strings, compression="zstd"),
        # mini-block chunk size
        hinted("s_minichunk_1k", urls, minichunk_size="1024"),
        hinted("s_minichunk_64k", urls, minichunk_size="65536"),
        # packed struct (fixed-width children)
        hinted(
            "packed_struct",
            random_structs(
                rng,
                n,
                {"a": random_ints(rng, n, pa.int32()), "b": random_floats(rng, n, pa.float64())},
            ),
            packed="true",
        ),
    ]
    if version != "2.1":  # "Variable packed struct encoding is not enabled" in 2.1
        fields.append(
            hinted(
                "packed_var_struct",
                random_structs(
                    rng, n, {"a": random_ints(rng, n, pa.int32()), "s": random_strings(rng, n)}
                ),
                packed="true",
            )
        )
    fields += [
        # dictionaries
        hinted("s_dict", choice_strings(rng, n, WORDS, 0.1)),
        hinted("s_dict_high_cardinality", users),
        hinted("s_dict_off_ratio", users, dict_size_ratio="0.01"),
        hinted("s_dict_off_divisor", users, dict_divisor="100000"),
        hinted("s_dict_values_zstd", users, dict_values_compression="zstd"),
        hinted("i64_dict", pa.array(rng.choice([-7, 0, 1 << 40], n), pa.int64())),
        # constants, all-null-ish and runs
        hinted("const_string", pa.repeat(pa.scalar("same", pa.string()), n)),
        hinted("const_float64", pa.repeat(pa.scalar(3.25, pa.float64()), n)),
        hinted("const_bool", pa.repeat(pa.scalar(True, pa.bool_()), n)),
        hinted("bool_runs", pa.array(np.repeat(rng.random(n // 100) < 0.5, 100), pa.bool_())),
        hinted("mostly_null_int64", random_ints(rng, n, pa.int64(), 0.99)),
        hinted("mostly_null_string", random_strings(rng, n, 0.99, min_len=1)),
        # small fixed-size lists (mini-block)
        hinted("vector16_f32", random_vectors(rng, n, 16)),
        hinted(
            "vector32_f16",
            random_fixed_size_lists(
                rng, n, 32, lambda k: pa.array(rng.standard_normal(k).astype(np.float16))
            ),
        ),
        hinted(
            "vector64_u8",
            random_fixed_size_lists(rng, n, 64, lambda k: random_ints(rng, k, pa.uint8())),
        ),
        # blob: in 2.1 a BlobLayout page read back as struct<position, size>; in 2.2 the field
        # becomes a lance.blob.v2 struct<kind, position, size, blob_id, blob_uri>
        hinted("blob", blob_values, blob="true"),
    ]
    return pa.Table.from_arrays([a for _, a in fields], schema=pa.schema([f for f, _ in fields]))


@golden_table
def encodings_v2_2(uri: str) -> None:
    """5000 rows (one fragment, format 2.2), one column per encoding forced through
    `lance-encoding:*` field metadata, next to columns whose data makes pylance choose an
    encoding itself. What pylance 14.0.2 made of them (info.json "encodings" has the details):

    Hints that take effect: compression=zstd|lz4 (general[...] around mini-block values, also
    around byte-stream-split int64 and bit-packed float64), compression-level=9|3
    (general[zstd@9]), compression=none (plain variable), bss=on with zstd (smooth float32),
    bss=auto with lz4 (float64 rounded to 2 decimals), bss=off with zstd,
    structural-encoding=fullzip (int32, short strings) and miniblock (long strings, with
    compression=none: FSST made its chunk count vary between runs), compression=zstd on long
    strings (full-zip with zstd per value), minichunk-size=1024 (78 chunks instead of 20) and
    65536 (2 chunks of about 33 KB; 2.2 only, no effect in 2.1), packed=true on
    struct<a:int32,b:float64> (packedStruct) and on struct<a:int32,s:string>
    (variablePackedStruct under full-zip, 2.2 only), dict-size-ratio=0.01 and
    dict-divisor=100000 (both switch a 2181-entry dictionary off: FSST instead),
    dict-values-compression=zstd (general[zstd] dictionary instead of lz4) and blob=true on
    large_binary (10% null, empty values, up to 600 bytes; becomes a lance.blob.v2 struct).
    Hints that change nothing here because the default is the same: compression=fsst on URLs
    and rle-threshold=0.9 on int64 runs of 2.

    Chosen by the data: bit packing, plain negative int32, RLE runs, FSST and full-zip long
    strings, string dictionaries of 9 and 2181 entries, an int64 dictionary (rle in 2.1),
    constant string/float64/bool (constant layout), bool runs, 99% null int64 and string
    (RLE definition levels) and fixed_size_list<float32,16>, <float16,32>, <uint8,64>.
    expected/blobs_v1.arrow holds the blob bytes. packed=true is refused when the struct or
    its children hold nulls ("Per-value compression not yet supported for block type
    Nullable"), so both packed structs are null-free."""
    lance.write_dataset(encodings_table("2.2"), uri, data_storage_version="2.2")


@golden_table
def encodings_v2_1(uri: str) -> None:
    """encodings_v2_2's rows and hints (same seed) in file format 2.1, without
    packed_var_struct ("Variable packed struct encoding is not enabled by the selected file
    format"; a nullable packed struct is refused with the same message). Differences from
    2.2: no constant layout (constants are RLE or a 1-entry dictionary), dictionaries are not
    wrapped in lz4 and ignore dict-values-compression, minichunk-size=65536 has no effect
    (u16 chunk sizes), definition levels are never RLE, and the blob column is a blob v1
    BlobLayout read back as struct<position:uint64,size:uint64>. expected/blobs_v1.arrow
    holds the blob bytes."""
    lance.write_dataset(encodings_table("2.1"), uri, data_storage_version="2.1")


BLOBS_SEED = 7007


@golden_table
def blobs_v2_2(uri: str) -> None:
    """Blob v2 (format 2.2) in every storage kind, through lance.blob.blob_field with
    inline_size_threshold=64 and dedicated_size_threshold=1024: 48 rows in 2 fragments of 24,
    cycling through null, empty, inline (kind 0, <= 64 bytes, in the data file), packed
    (kind 1, 65..1024 bytes, in a shared .blob sidecar under data/<file>/), dedicated (kind 2,
    > 1024 bytes, one .blob file each) and external (kind 3: a file:// URI into ../external/,
    once with a position and size and once for the whole file). pylance reads the column back
    as struct<kind, position, size, blob_id, blob_uri>; expected/blobs_v1.arrow holds the
    bytes. The external URI is absolute, so this dataset cannot be moved, and its expected
    files depend on --out."""
    from lance.blob import Blob, blob_array, blob_field

    rng = np.random.default_rng(BLOBS_SEED)
    external = Path(uri).parent / "external" / "blobs.bin"
    external.parent.mkdir(parents=True, exist_ok=True)
    external.write_bytes(rng.bytes(3000))
    external_uri = external.resolve().as_uri()
    n = 48
    values: list = []
    for i in range(n):
        kind = i % 8
        if kind == 0:
            values.append(None)
        elif kind == 1:
            values.append(Blob.empty())
        elif kind == 2:
            values.append(rng.bytes(int(rng.integers(1, 64, endpoint=True))))
        elif kind == 3:
            values.append(rng.bytes(int(rng.integers(65, 1024, endpoint=True))))
        elif kind in (4, 5):
            values.append(rng.bytes(int(rng.integers(1025, 5000, endpoint=True))))
        elif kind == 6:
            position = int(rng.integers(0, 2000))
            values.append(Blob(uri=external_uri, position=position, size=500 + i))
        else:
            values.append(Blob(uri=external_uri))
    field = blob_field("blob", inline_size_threshold=64, dedicated_size_threshold=1024)
    schema = pa.schema([pa.field("id", pa.int64()), field])
    ids = pa.array(np.arange(n, dtype=np.int64))
    table = pa.table({"id": ids, "blob": blob_array(values)}, schema=schema)
    lance.write_dataset(table, uri, max_rows_per_file=24, allow_external_blob_outside_bases=True)


MANY_PAGES_SEED = 8008
MANY_PAGES_ROWS = 200_000
MANY_PAGES_CACHE_BYTES = 4 << 20


def _write_many_pages(uri: str, version: str) -> None:
    """many_pages_*' recipe. The writer cuts a page when a column's buffered data reaches its
    share of data_cache_bytes, and only between input batches; so the rows go in as a stream
    of irregular batches (500..2999 rows). max_page_bytes (write_dataset and LanceFileWriter)
    and LANCE_FILE_WRITER_MAX_PAGE_BYTES had no visible effect in pylance 14.0.2, and a whole
    pa.Table is written as one page per column."""
    rng = np.random.default_rng(MANY_PAGES_SEED)
    n = MANY_PAGES_ROWS
    table = pa.table(
        {
            "id": pa.array(np.arange(n, dtype=np.int64)),
            "int64_col": random_ints(rng, n, pa.int64(), 0.1),
            "float64_col": random_floats(rng, n, pa.float64(), 0.1),
            "string_col": random_strings(rng, n, 0.1, max_len=12),
            "list_int32_col": random_lists(
                rng, n, lambda k: random_ints(rng, k, pa.int32(), 0.1, -1000, 1000), 0.1
            ),
            "vector8_col": random_vectors(rng, n, 8, 0.1),
            "long_string_col": random_strings(
                rng, n, 0.98, min_len=300, max_len=600, empty_frac=0
            ),
        }
    )
    fullzip = random_ints(rng, n, pa.int32(), 0.1)
    table = table.append_column(
        *hinted("int32_fullzip_col", fullzip, structural_encoding="fullzip")
    )
    sizes = rng.integers(500, 3000, size=n // 500)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    starts = starts[starts < n].tolist() + [n]
    batches = [
        batch
        for start, end in zip(starts, starts[1:])
        for batch in table.slice(start, end - start).to_batches()
    ]
    reader = pa.RecordBatchReader.from_batches(table.schema, batches)
    lance.write_dataset(
        reader,
        uri,
        max_rows_per_file=n // 2,
        data_cache_bytes=MANY_PAGES_CACHE_BYTES,
        data_storage_version=version,
    )


@golden_table
def many_pages_v2_2(uri: str) -> None:
    """200,000 rows in 2 fragments of 100,000 (format 2.2) written so that every column has
    many pages, each of several mini-block chunks: id (sequential int64), int64_col,
    float64_col, string_col, list_int32_col (null and empty lists, null items: repetition
    index across pages), vector8_col (fixed_size_list<float32,8>), all but id ~10% null, plus
    two full-zip columns over many pages: long_string_col (98% null, 300..600 characters) and
    int32_fullzip_col (structural-encoding=fullzip, 10% null). The page and chunk counts of
    the first file are in info.json "encodings"."""
    _write_many_pages(uri, "2.2")


@golden_table
def many_pages_v2_1(uri: str) -> None:
    """many_pages_v2_2's rows and recipe (same seed) in file format 2.1 (u16 chunk sizes)."""
    _write_many_pages(uri, "2.1")


@golden_table
def many_pages_v2_0(uri: str) -> None:
    """many_pages_v2_2's rows and recipe (same seed) in file format 2.0: every column, the
    list offsets and their item column included, in many pages whose boundaries differ from
    column to column (the list items page by item count); the structural-encoding hint does not
    apply to 2.0."""
    _write_many_pages(uri, "2.0")


EDGE_SEED = 9009


@golden_table
def edge_cases_v2_2(uri: str) -> None:
    """Degenerate columns in format 2.2, 100 rows in 2 fragments of 50: all-null bool, int32,
    float64, string, binary, timestamp[us], decimal128(10,2), list<int32>,
    fixed_size_list<float32,4> and struct<a:int32,b:string>; all-empty string, binary and
    list<int32>; lists that are only null or empty (no items at all); all-NaN float64; and an
    all-false bool."""
    n = 100
    rng = np.random.default_rng(EDGE_SEED)
    null_or_empty = rng.random(n) < 0.5
    table = pa.table(
        {
            "id": pa.array(np.arange(n, dtype=np.int64)),
            "all_null_bool": pa.nulls(n, pa.bool_()),
            "all_null_int32": pa.nulls(n, pa.int32()),
            "all_null_float64": pa.nulls(n, pa.float64()),
            "all_null_string": pa.nulls(n, pa.string()),
            "all_null_binary": pa.nulls(n, pa.binary()),
            "all_null_timestamp": pa.nulls(n, pa.timestamp("us", "UTC")),
            "all_null_decimal": pa.nulls(n, pa.decimal128(10, 2)),
            "all_null_list": pa.nulls(n, pa.list_(pa.int32())),
            "all_null_vector": pa.nulls(n, pa.list_(pa.float32(), 4)),
            "all_null_struct": pa.nulls(n, pa.struct([("a", pa.int32()), ("b", pa.string())])),
            "empty_strings": pa.array([""] * n, pa.string()),
            "empty_binaries": pa.array([b""] * n, pa.binary()),
            "empty_lists": pa.array([[]] * n, pa.list_(pa.int32())),
            "null_or_empty_lists": pa.array(
                [None if x else [] for x in null_or_empty], pa.list_(pa.int32())
            ),
            "all_nan_float64": pa.array(np.full(n, np.nan)),
            "all_false_bool": pa.array(np.zeros(n, dtype=bool)),
        }
    )
    write_in_files(table, uri, n // 2)


@golden_table
def empty_table(uri: str) -> None:
    """types_v2_2's schema (every type family, map included) with 0 rows, format 2.2.
    pylance writes a manifest holding the schema and no fragments, and no data file."""
    columns = types_columns(
        np.random.default_rng(TYPES_SEED),
        0,
        null_frac=0.1,
        struct_null_frac=0.1,
        empty_strings=True,
        with_map=True,
    )
    lance.write_dataset(pa.table(columns), uri, data_storage_version="2.2")


@golden_table
def one_row(uri: str) -> None:
    """A single row of types_v2_2's columns (every type family, map included), without
    nulls except null_col, format 2.2: one fragment of one row, so every page holds one value."""
    columns = types_columns(
        np.random.default_rng(TYPES_SEED + 1),
        1,
        null_frac=0.0,
        struct_null_frac=0.0,
        empty_strings=True,
        with_map=True,
    )
    lance.write_dataset(pa.table(columns), uri, data_storage_version="2.2")


@golden_table
def long_strings(uri: str) -> None:
    """Very long values, format 2.2, 6 rows in one fragment: string_col holds two values of
    1 MiB characters (about 1.3 MiB of UTF-8, multi-byte characters included), "", null, a
    short string and one of 2^20 + 1 ASCII characters; large_binary_col holds 1 MiB and
    2^20 + 1 random bytes among empty, null and short values. Full-zip pages of a few huge
    values."""
    rng = np.random.default_rng(EDGE_SEED + 1)
    mib = 1 << 20
    big = random_strings(rng, 2, min_len=mib, max_len=mib, empty_frac=0).to_pylist()
    ascii_big = "".join(np.array(list("abcdefghij"))[rng.integers(0, 10, mib + 1)].tolist())
    strings = [big[0], "", None, "short", big[1], ascii_big]
    binaries = [rng.bytes(mib), None, b"", b"\x00\xff", rng.bytes(mib + 1), b"x"]
    table = pa.table(
        {
            "id": pa.array(np.arange(6, dtype=np.int64)),
            "string_col": pa.array(strings, pa.string()),
            "large_binary_col": pa.array(binaries, pa.large_binary()),
        }
    )
    lance.write_dataset(table, uri, data_storage_version="2.2")


@golden_table
def next_v2_3(uri: str) -> None:
    """The 12 basic_types columns (1000 rows, 10% nulls, own seed) written with
    data_storage_version="next", i.e. the unstable file format 2.3 (footer 2.3,
    lance.encodings23.PlanarLayout pages). The reader must refuse it with a clear error;
    expected/ is what pylance itself reads."""
    rng = np.random.default_rng(10010)
    lance.write_dataset(basic_table(rng, 1000), uri, data_storage_version="next")
