"""Row-by-row comparison of a table read through Spark with pylance's reading of it."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest


def comparable(col: pa.ChunkedArray) -> list:
    """Values in a form where equal means identical: floats by bits, temporals as integers."""
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    t = col.type
    if pa.types.is_floating(t):
        width = {16: np.uint16, 32: np.uint32, 64: np.uint64}[t.bit_width]
        bits = col.fill_null(0).to_numpy(zero_copy_only=False).view(width)
        valid = col.is_valid().to_pylist()
        return [int(b) if ok else None for b, ok in zip(bits, valid)]
    if pa.types.is_timestamp(t) or pa.types.is_date(t):
        return pc.cast(col, pa.int32() if pa.types.is_date32(t) else pa.int64()).to_pylist()
    if pa.types.is_large_string(t):
        col = pc.cast(col, pa.string())
    if pa.types.is_large_binary(t):
        col = pc.cast(col, pa.binary())
    if pa.types.is_nested(t):
        return [_nan_safe(v) for v in col.to_pylist()]
    return col.to_pylist()


def _nan_safe(value):
    """A nested value where NaN equals NaN (floats inside lists, structs and maps)."""
    if isinstance(value, float) and value != value:
        return "NaN"
    if isinstance(value, list):
        return [_nan_safe(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_nan_safe(v) for v in value)
    if isinstance(value, dict):
        return {k: _nan_safe(v) for k, v in value.items()}
    return value


def assert_same(actual: pa.Table, expected: pa.Table, what: str) -> None:
    assert actual.column_names == expected.column_names, what
    assert actual.num_rows == expected.num_rows, what
    for name in expected.column_names:
        a = comparable(actual.column(name))
        e = comparable(expected.column(name))
        if a != e:
            bad = next(i for i, (x, y) in enumerate(zip(a, e)) if x != y)
            pytest.fail(f"{what}: column {name} row {bad}: spark {a[bad]!r} vs pylance {e[bad]!r}")
