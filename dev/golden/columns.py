"""Seeded column helpers shared by the dataset definitions.

Each helper takes the Generator first and draws from it in a fixed order, so a dataset is a
pure function of its seed. `null_frac` is the probability of a null per row.
"""

from __future__ import annotations

import decimal
from typing import Callable

import lance
import numpy as np
import pyarrow as pa


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


WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]


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


