#!/usr/bin/env python3
"""Golden Lance datasets, written by pinned pylance, with what pylance reads back from them.

Usage:  python dev/golden/generate.py [--out target/golden] [--force] [--list] [--old]

Layout of <out> (default <repo>/target/golden):

    .stamp                          sha256 of this file and check.py + library versions
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

One function per dataset, registered with @golden_table, in the manner of delta-io/delta
connectors/golden-tables/src/test/scala/io/delta/golden/GoldenTables.scala. The function only
writes the dataset; `generate_one` then records every version it finds, so a new dataset needs
nothing but a new function. Never edit the output by hand: change this file and re-run.

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
import decimal
import hashlib
import inspect
import json
import os
import re
import shutil
import sys
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Callable

import lance
import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check  # noqa: E402  (dev/golden/check.py: the page-encoding summaries in info.json)

# pylance is the oracle: a different version may choose different encodings or read differently,
# which would silently change what the Scala tests assert. Keep in step with
# python/requirements-dev.txt.
PYLANCE_VERSION = "14.0.2"

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO_ROOT / "target" / "golden"
STAMP_NAME = ".stamp"
OLD_DIR = "old"  # generate_old.py writes <out>/old; a regeneration here leaves it alone
OLD_ENV = "SPARK_LANCE_GOLDEN_OLD"

# Rows per record batch in expected/*.arrow. Fixed, so that the files do not depend on how
# pylance happened to batch its scan (only the contents are pylance's).
EXPECTED_BATCH_ROWS = 10_000


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GoldenTable:
    name: str
    description: str
    write: Callable[[str], None]  # writes every version of the dataset at the given URI
    row_ids: bool = False  # also write expected/rowids_v<N>.arrow (_rowid and _rowaddr)
    filters: tuple[str, ...] = ()  # also write expected/filter<i>_v<N>.arrow (each filter's rows)


GOLDEN_TABLES: list[GoldenTable] = []


def golden_table(
    fn: Callable[[str], None] | None = None, *, row_ids: bool = False, filters: tuple[str, ...] = ()
):
    """Registers `fn` as the generator of the dataset named like the function.

    Its docstring becomes the dataset's description in info.json and index.json. Use it bare
    (`@golden_table`) or with options (`@golden_table(row_ids=True)`: the driver also writes
    what pylance returns for the _rowid and _rowaddr metadata columns at every version;
    `filters=(...)`: what pylance returns for each filter at every version).
    """

    def register(fn: Callable[[str], None]) -> Callable[[str], None]:
        if not fn.__doc__:
            raise ValueError(
                f"golden table {fn.__name__} needs a docstring saying what it exercises"
            )
        if any(t.name == fn.__name__ for t in GOLDEN_TABLES):
            raise ValueError(f"golden table {fn.__name__} registered twice")
        paragraphs = inspect.cleandoc(fn.__doc__).split("\n\n")
        description = "\n\n".join(" ".join(p.split()) for p in paragraphs)  # unwrap the lines
        GOLDEN_TABLES.append(GoldenTable(fn.__name__, description, fn, row_ids, tuple(filters)))
        return fn

    return register if fn is None else register(fn)


# --------------------------------------------------------------------------------------------
# Column helpers. Each takes the Generator first and draws from it in a fixed order, so a
# dataset is a pure function of its seed. `null_frac` is the probability of a null per row.
# --------------------------------------------------------------------------------------------


def null_mask(rng: np.random.Generator, n: int, null_frac: float) -> np.ndarray | None:
    """True where the row is null; None (no draw) when the column has no nulls."""
    if null_frac <= 0:
        return None
    return rng.random(n) < null_frac


def sprinkle(rng: np.random.Generator, values: np.ndarray, specials: list, frac: float) -> None:
    """Overwrites about `frac` of `values` in place with values picked from `specials`."""
    if frac <= 0 or not specials:
        return
    pos = np.flatnonzero(rng.random(len(values)) < frac)
    pool = np.array(specials, dtype=values.dtype)
    values[pos] = pool[rng.integers(0, len(pool), len(pos))]


def random_bools(rng: np.random.Generator, n: int, null_frac: float = 0.0) -> pa.Array:
    values = rng.random(n) < 0.5
    return pa.array(values, pa.bool_(), mask=null_mask(rng, n, null_frac))


def random_ints(
    rng: np.random.Generator,
    n: int,
    type_: pa.DataType,
    null_frac: float = 0.0,
    low: int | None = None,
    high: int | None = None,
    edge_frac: float = 0.02,
) -> pa.Array:
    """Uniform integers in [low, high] (default: the type's whole range, so half are negative).

    About `edge_frac` of the rows are the extremes, 0, 1 or -1, which catch sign-extension and
    overflow mistakes in a decoder.
    """
    dtype = np.dtype(type_.to_pandas_dtype())
    info = np.iinfo(dtype)
    low = int(info.min) if low is None else low
    high = int(info.max) if high is None else high
    values = rng.integers(low, high, size=n, dtype=dtype, endpoint=True)
    edges = sorted({v for v in (low, high, 0, 1, -1) if low <= v <= high})
    sprinkle(rng, values, edges, edge_frac)
    return pa.array(values, type_, mask=null_mask(rng, n, null_frac))


def random_floats(
    rng: np.random.Generator,
    n: int,
    type_: pa.DataType,
    null_frac: float = 0.0,
    special_frac: float = 0.05,
) -> pa.Array:
    """Signed values spanning many magnitudes, with NaN, -0.0, +/-inf, the finite extremes
    and a subnormal sprinkled in (about `special_frac` of the rows). float16 (max 65504) gets
    magnitudes 1e-4..1e4 instead of 1e-6..1e6."""
    dtype = np.dtype(type_.to_pandas_dtype())
    info = np.finfo(dtype)
    exponent = 4 if dtype.itemsize == 2 else 6
    magnitudes = 10.0 ** rng.integers(-exponent, exponent + 1, n)
    values = (rng.standard_normal(n) * magnitudes).astype(dtype)
    specials = [np.nan, -0.0, 0.0, np.inf, -np.inf, info.max, info.min, info.smallest_subnormal]
    sprinkle(rng, values, specials, special_frac)
    return pa.array(values, type_, mask=null_mask(rng, n, null_frac))


# ASCII, 2-, 3- and 4-byte UTF-8 characters (the last two rows are outside the BMP, so they are
# surrogate pairs in a JVM String).
STRING_ALPHABET: list[str] = (
    list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.,;:!?/\t")
    + ["é", "ß", "ñ", "Ω", "ж", "€", "中", "文", "字", "日", "本"]
    + ["😀", "🚀", "𝄞"]
)


def random_strings(
    rng: np.random.Generator,
    n: int,
    null_frac: float = 0.0,
    min_len: int = 0,
    max_len: int = 16,
    empty_frac: float = 0.05,
    alphabet: list[str] = STRING_ALPHABET,
) -> pa.Array:
    """Strings of min_len..max_len characters (not bytes) drawn from `alphabet`; about
    `empty_frac` of them are empty, which a reader must keep distinct from null."""
    mask = null_mask(rng, n, null_frac)
    lengths = rng.integers(min_len, max_len, size=n, endpoint=True)
    if empty_frac > 0:
        lengths[rng.random(n) < empty_frac] = 0
    if mask is not None:
        lengths[mask] = 0  # draw no characters for null rows (long_string_col is 98% null)
    chars = np.array(alphabet, dtype=object)[rng.integers(0, len(alphabet), int(lengths.sum()))]
    ends = np.cumsum(lengths)
    values = ["".join(chars[end - length : end]) for end, length in zip(ends, lengths)]
    return pa.array(values, pa.string(), mask=mask)


def random_binaries(
    rng: np.random.Generator,
    n: int,
    null_frac: float = 0.0,
    max_len: int = 24,
    empty_frac: float = 0.05,
    min_len: int = 0,
) -> pa.Array:
    """Arbitrary bytes (including 0x00 and invalid UTF-8) of min_len..max_len bytes; about
    `empty_frac` are empty."""
    mask = null_mask(rng, n, null_frac)
    lengths = rng.integers(min_len, max_len, size=n, endpoint=True)
    if empty_frac > 0:
        lengths[rng.random(n) < empty_frac] = 0
    if mask is not None:
        lengths[mask] = 0
    blob = rng.bytes(int(lengths.sum()))
    ends = np.cumsum(lengths)
    values = [blob[end - length : end] for end, length in zip(ends, lengths)]
    return pa.array(values, pa.binary(), mask=mask)


def choice_strings(
    rng: np.random.Generator, n: int, choices: list[str], null_frac: float = 0.0
) -> pa.Array:
    """Strings picked from a small set: low cardinality, so pylance dictionary-encodes them."""
    values = np.array(choices, dtype=object)[rng.integers(0, len(choices), n)]
    return pa.array(values.tolist(), pa.string(), mask=null_mask(rng, n, null_frac))


# Dates and timestamps stay within 1901..2099: wide enough for negative (pre-1970) values, and
# clear of the Julian/Gregorian switch that Spark rebases for old Parquet files.
_EPOCH_DAY_LOW = int(np.datetime64("1901-01-01", "D").astype(np.int64))
_EPOCH_DAY_HIGH = int(np.datetime64("2099-12-31", "D").astype(np.int64))
_MICROS_PER_DAY = 86_400_000_000


def random_dates(rng: np.random.Generator, n: int, null_frac: float = 0.0) -> pa.Array:
    """date32 between 1901 and 2099, with the epoch and the day before it sprinkled in."""
    days = rng.integers(_EPOCH_DAY_LOW, _EPOCH_DAY_HIGH, size=n, dtype=np.int64, endpoint=True)
    sprinkle(rng, days, [0, -1], 0.02)
    return pa.array(days.astype("datetime64[D]"), pa.date32(), mask=null_mask(rng, n, null_frac))


def random_timestamps(
    rng: np.random.Generator, n: int, tz: str | None = None, null_frac: float = 0.0
) -> pa.Array:
    """timestamp[us] between 1901 and 2099 with sub-second digits. The epoch and one
    microsecond before it are sprinkled in: floor division of negative values is a classic
    off-by-one when converting to seconds + nanos."""
    micros = rng.integers(
        _EPOCH_DAY_LOW * _MICROS_PER_DAY,
        (_EPOCH_DAY_HIGH + 1) * _MICROS_PER_DAY - 1,
        size=n,
        dtype=np.int64,
        endpoint=True,
    )
    sprinkle(rng, micros, [0, -1, 946_684_800_000_000], 0.02)  # 1970-01-01, -1 us, 2000-01-01
    type_ = pa.timestamp("us", tz=tz)
    return pa.array(micros.astype("datetime64[us]"), type_, mask=null_mask(rng, n, null_frac))


def basic_columns(rng: np.random.Generator, n: int, null_frac: float = 0.1) -> dict[str, pa.Array]:
    """The 12 columns shared by basic_types and its relatives, in schema order."""
    return {
        "bool_col": random_bools(rng, n, null_frac),
        "int8_col": random_ints(rng, n, pa.int8(), null_frac),
        "int16_col": random_ints(rng, n, pa.int16(), null_frac),
        "int32_col": random_ints(rng, n, pa.int32(), null_frac),
        "int64_col": random_ints(rng, n, pa.int64(), null_frac),
        "float32_col": random_floats(rng, n, pa.float32(), null_frac),
        "float64_col": random_floats(rng, n, pa.float64(), null_frac),
        "string_col": random_strings(rng, n, null_frac),
        "binary_col": random_binaries(rng, n, null_frac),
        "date32_col": random_dates(rng, n, null_frac),
        "ts_us_col": random_timestamps(rng, n, None, null_frac),
        "ts_us_utc_col": random_timestamps(rng, n, "UTC", null_frac),
    }


def basic_table(rng: np.random.Generator, n: int, null_frac: float = 0.1) -> pa.Table:
    return pa.table(basic_columns(rng, n, null_frac))


# Helpers for the other Arrow types (types_*, encodings_*, many_pages_*, edge cases).

_TICKS_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
_SECONDS_PER_DAY = 86_400


def random_temporals(
    rng: np.random.Generator, n: int, type_: pa.DataType, null_frac: float = 0.0
) -> pa.Array:
    """Any tick-based temporal type, drawn as integers in its unit:
    timestamp (any unit, any tz): 1901..2099 with the epoch and one tick before it sprinkled in;
    date64: whole days (ms) in 1901..2099; time32/time64: the whole day, with midnight and the
    last tick of the day sprinkled in; duration: +/- 100 years with 0, 1 and -1 sprinkled in."""
    if pa.types.is_date64(type_):
        days = rng.integers(_EPOCH_DAY_LOW, _EPOCH_DAY_HIGH, size=n, dtype=np.int64, endpoint=True)
        sprinkle(rng, days, [0, -1], 0.02)
        values = days * (_SECONDS_PER_DAY * 1000)
    else:
        ticks = _TICKS_PER_SECOND[type_.unit]
        if pa.types.is_timestamp(type_):
            low = _EPOCH_DAY_LOW * _SECONDS_PER_DAY * ticks
            high = (_EPOCH_DAY_HIGH + 1) * _SECONDS_PER_DAY * ticks - 1
            specials = [0, -1]
        elif pa.types.is_time(type_):
            low, high = 0, _SECONDS_PER_DAY * ticks - 1
            specials = [low, high]
        elif pa.types.is_duration(type_):
            high = 100 * 365 * _SECONDS_PER_DAY * ticks
            low = -high
            specials = [0, 1, -1]
        else:
            raise ValueError(f"not a tick-based temporal type: {type_}")
        values = rng.integers(low, high, size=n, dtype=np.int64, endpoint=True)
        sprinkle(rng, values, specials, 0.02)
    if pa.types.is_time32(type_):
        values = values.astype(np.int32)
    return pa.array(values, type_, mask=null_mask(rng, n, null_frac))


def random_decimals(
    rng: np.random.Generator, n: int, type_: pa.DataType, null_frac: float = 0.0
) -> pa.Array:
    """Decimals with 1..precision digits (so every magnitude occurs), either sign, and the
    largest and smallest representable values and 0 sprinkled in."""
    precision, scale = type_.precision, type_.scale
    num_digits = rng.integers(1, precision, size=n, endpoint=True)
    digits = rng.integers(0, 10, size=(n, precision))
    negative = rng.random(n) < 0.5
    top = 10**precision - 1
    unscaled = []
    for row, count, neg in zip(digits, num_digits, negative):
        value = int("".join(map(str, row[:count])))
        unscaled.append(-value if neg else value)
    unscaled_arr = np.array(unscaled, dtype=object)
    sprinkle(rng, unscaled_arr, [top, -top, 0], 0.02)
    # Built from strings: Decimal(int).scaleb() would round to the context's 28 digits.
    values = [decimal.Decimal(f"{v}E-{scale}") for v in unscaled_arr]
    return pa.array(values, type_, mask=null_mask(rng, n, null_frac))


def random_fixed_binaries(
    rng: np.random.Generator, n: int, width: int, null_frac: float = 0.0
) -> pa.Array:
    blob = rng.bytes(n * width)
    values = [blob[i * width : (i + 1) * width] for i in range(n)]
    return pa.array(values, pa.binary(width), mask=null_mask(rng, n, null_frac))


def _mask_array(mask: np.ndarray | None) -> pa.Array | None:
    return None if mask is None else pa.array(mask, pa.bool_())


def random_lengths(
    rng: np.random.Generator, n: int, max_len: int, null_frac: float, empty_frac: float
) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-row lengths 1..max_len, about `empty_frac` of them 0, and the null mask (null rows
    get length 0 too, so no child values hide under a null)."""
    lengths = rng.integers(1, max_len, size=n, endpoint=True)
    if empty_frac > 0:
        lengths[rng.random(n) < empty_frac] = 0
    mask = null_mask(rng, n, null_frac)
    if mask is not None:
        lengths[mask] = 0
    return lengths, mask


def random_lists(
    rng: np.random.Generator,
    n: int,
    values: Callable[[int], pa.Array],
    null_frac: float = 0.0,
    empty_frac: float = 0.1,
    max_len: int = 5,
    large: bool = False,
) -> pa.Array:
    """list (or large_list) of `values(count)`, with about `null_frac` null lists and
    `empty_frac` empty ones; nulls among the items come from `values` itself."""
    lengths, mask = random_lengths(rng, n, max_len, null_frac, empty_frac)
    offsets = np.zeros(n + 1, dtype=np.int64 if large else np.int32)
    np.cumsum(lengths, out=offsets[1:])
    cls = pa.LargeListArray if large else pa.ListArray
    return cls.from_arrays(pa.array(offsets), values(int(offsets[-1])), mask=_mask_array(mask))


def random_structs(
    rng: np.random.Generator, n: int, children: dict[str, pa.Array], null_frac: float = 0.0
) -> pa.Array:
    """struct of `children` (already n long), with about `null_frac` null structs."""
    mask = null_mask(rng, n, null_frac)
    return pa.StructArray.from_arrays(
        list(children.values()), names=list(children), mask=_mask_array(mask)
    )


def random_fixed_size_lists(
    rng: np.random.Generator,
    n: int,
    size: int,
    values: Callable[[int], pa.Array],
    null_frac: float = 0.0,
) -> pa.Array:
    """fixed_size_list<values, size>; a null row still has `size` (arbitrary) child values."""
    mask = null_mask(rng, n, null_frac)
    return pa.FixedSizeListArray.from_arrays(values(n * size), size, mask=_mask_array(mask))


def random_vectors(rng: np.random.Generator, n: int, dim: int, null_frac: float = 0.0) -> pa.Array:
    """fixed_size_list<float32, dim>: embedding-like standard normal values."""
    return random_fixed_size_lists(
        rng, n, dim, lambda k: pa.array(rng.standard_normal(k).astype(np.float32)), null_frac
    )


def random_maps(
    rng: np.random.Generator,
    n: int,
    keys: list[str],
    null_frac: float = 0.0,
    empty_frac: float = 0.1,
    value_null_frac: float = 0.1,
) -> pa.Array:
    """map<string, int32>: each map holds distinct keys from `keys` (a Spark map must not repeat
    a key), with null maps, empty maps and null values."""
    lengths, mask = random_lengths(rng, n, len(keys), null_frac, empty_frac)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    pool = np.array(keys, dtype=object)
    map_keys = [k for length in lengths for k in pool[rng.permutation(len(keys))[:length]]]
    items = random_ints(rng, int(offsets[-1]), pa.int32(), value_null_frac, -1000, 1000)
    return pa.MapArray.from_arrays(
        pa.array(offsets), pa.array(map_keys, pa.string()), items, mask=_mask_array(mask)
    )


def random_dictionary(
    rng: np.random.Generator, n: int, words: list[str], null_frac: float = 0.0
) -> pa.Array:
    """dictionary<int32, string> with the given dictionary, some words possibly unused."""
    indices = rng.integers(0, len(words), n).astype(np.int32)
    return pa.DictionaryArray.from_arrays(
        pa.array(indices, pa.int32(), mask=null_mask(rng, n, null_frac)), pa.array(words)
    )


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
# pylance writes. See docs/src/format/file/encoding.md upstream and
# /work/shared/reference/pylance-14-on-disk.md section 3 for what each version chooses.
# --------------------------------------------------------------------------------------------

TYPES_SEED = 4004
TYPES_ROWS = 1200
TYPES_ROWS_PER_FILE = 600
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
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


def write_in_files(table: pa.Table, uri: str, rows_per_file: int, **kwargs) -> lance.LanceDataset:
    """Writes `table` as one fragment per `rows_per_file` rows. Each fragment gets freshly
    copied arrays: pylance 14.0.2 fails on a *sliced* nested struct with nulls ("null_bit_buffer
    size too small", lance-encoding/src/encodings/logical/struct.rs), which is what
    max_rows_per_file alone would hand it."""
    batches = [
        table.take(pa.array(np.arange(start, min(start + rows_per_file, table.num_rows))))
        .combine_chunks()
        .to_batches()[0]
        for start in range(0, table.num_rows, rows_per_file)
    ]
    reader = pa.RecordBatchReader.from_batches(table.schema, batches)
    return lance.write_dataset(reader, uri, max_rows_per_file=rows_per_file, **kwargs)


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


# --------------------------------------------------------------------------------------------
# The table-format corpus: what mutations, row ids, bases, clones, branches, tags and indices
# write. See /work/shared/reference/pylance-14-on-disk.md sections 4-9 and upstream
# docs/src/format/table/ (index.md, transaction.md, layout.md, branch_tag.md, row_id_lineage.md).
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


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------


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
    source = Path(__file__).read_bytes() + Path(check.__file__).read_bytes()
    return (
        f"generator_sha256={hashlib.sha256(source).hexdigest()}\n"
        f"pylance={lance.__version__}\n"
        f"pyarrow={pa.__version__}\n"
        f"numpy={np.__version__}\n"
    )


def prepare_out(out: Path) -> None:
    """Wipes <out>, but only if it is empty or was made by this script (has a .stamp), so a
    mistyped --out cannot delete anything else. <out>/old is kept: generate_old.py's output,
    with its own stamp and slow to remake."""
    if out.exists():
        if any(out.iterdir()) and not (out / STAMP_NAME).is_file():
            sys.exit(f"error: {out} is not empty and has no {STAMP_NAME}; refusing to delete it")
        for entry in out.iterdir():
            if entry.name == OLD_DIR:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    out.mkdir(parents=True, exist_ok=True)
    # A stamp that never matches: marks the directory as ours while it is incomplete.
    (out / STAMP_NAME).write_text("incomplete\n")


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

    if lance.__version__ != PYLANCE_VERSION:
        sys.exit(
            f"error: golden data must be written by pylance=={PYLANCE_VERSION}, but "
            f"lance.__version__ is {lance.__version__}. Use the project venv: "
            f"pip install -r python/requirements-dev.txt"
        )

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
    prepare_out(out)
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
    import generate_old

    return generate_old.main(["--out", str(out)] + (["--force"] if force else []))


if __name__ == "__main__":
    sys.exit(main())
