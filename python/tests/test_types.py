"""Every type family pylance writes reads through Spark as the nearest Spark type, with values
equal to pylance's (converted the same documented way: unsigned ints widened, timestamps,
times and durations to microseconds, fixed-size lists as arrays, maps as dicts)."""

from __future__ import annotations

import datetime as dt
import decimal
import math

import pyarrow as pa
import pytest


def _norm(value, t: pa.DataType):
    """pylance's Python value of type `t`, as Spark returns it."""
    if value is None:
        return None
    if pa.types.is_floating(t):
        return "nan" if math.isnan(value) else float(value)
    if pa.types.is_decimal(t) and t.precision > 38:
        return decimal.Decimal(value)
    if pa.types.is_fixed_size_binary(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return bytes(value)
    if pa.types.is_timestamp(t):
        if hasattr(value, "to_pydatetime"):
            value = value.floor("us").to_pydatetime()
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return value
    if pa.types.is_time(t):
        if isinstance(value, int):  # nanoseconds past midnight when not representable
            value = (dt.datetime.min + dt.timedelta(microseconds=value // 1000)).time()
        return value
    if pa.types.is_duration(t):
        if hasattr(value, "to_pytimedelta"):
            value = value.floor("us").to_pytimedelta()
        return value
    if pa.types.is_map(t):
        return {k: _norm(v, t.item_type) for k, v in value}
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return [_norm(v, t.value_type) for v in value]
    if pa.types.is_struct(t):
        return {f.name: _norm(value[f.name], f.type) for f in t}
    if pa.types.is_dictionary(t):
        return _norm(value, t.value_type)
    return value


def _spark_norm(value):
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, list):
        return [_spark_norm(v) for v in value]
    if isinstance(value, dict):
        return {k: _spark_norm(v) for k, v in value.items()}
    if hasattr(value, "asDict"):
        return {k: _spark_norm(v) for k, v in value.asDict(recursive=False).items()}
    return value


@pytest.mark.parametrize("name", ["types_v2_0", "types_v2_1", "types_v2_2", "types_legacy", "one_row", "edge_cases_v2_2"])
def test_every_type_through_spark(spark, golden, name):
    expected = pa.ipc.open_file(golden / name / "expected" / "v1.arrow").read_all()
    df = spark.read.format("lance").load(str(golden / name / "dataset"))
    assert df.columns == expected.column_names
    rows = df.collect()
    assert len(rows) == expected.num_rows
    for field in expected.schema:
        want = [_norm(v, field.type) for v in expected.column(field.name).to_pylist()]
        got = [_spark_norm(r[field.name]) for r in rows]
        if pa.types.is_decimal(field.type) and field.type.precision > 38:  # read as exact strings
            got = [None if g is None else decimal.Decimal(g) for g in got]
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                pytest.fail(f"{name}.{field.name} ({field.type}) row {i}: spark {g!r} vs pylance {w!r}")


def test_original_arrow_type_is_kept_in_metadata(spark, golden):
    df = spark.read.format("lance").load(str(golden / "types_v2_2" / "dataset"))
    meta = {f.name: f.metadata for f in df.schema.fields}
    assert meta["uint64_col"]["lance.arrow.type"] == "Int(64, false)"
    assert meta["vector_col"]["lance.arrow.type"] == "FixedSizeList(128)"
    assert "lance.arrow.type" not in meta["int64_col"]
    types = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    assert types["uint64_col"] == "decimal(20,0)"
    assert types["uint8_col"] == "smallint"
    assert types["vector_col"] == "array<float>"
    assert types["map_col"] == "map<string,int>"
