"""Every type family pylance writes reads through Spark as the nearest Spark type, with values
equal to pylance's (converted the same documented way: unsigned ints widened, timestamps,
times and durations to microseconds, fixed-size lists as arrays, maps as dicts). A session with
no extra configuration counts, filters, aggregates and collects every type."""

from __future__ import annotations

import datetime as dt
import decimal
import math

import pyarrow as pa
import pytest

from sessions import SPARK_LINE


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
    if pa.types.is_time(t):  # microseconds since midnight (a default session has no TIME type)
        if isinstance(value, int):  # nanoseconds past midnight when not representable
            return value // 1000
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
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


def test_original_lance_type_is_kept_in_metadata(spark, golden):
    df = spark.read.format("lance").load(str(golden / "types_v2_2" / "dataset"))
    meta = {f.name: f.metadata for f in df.schema.fields}
    # The Lance logical types of these columns, as pylance's schema spells them.
    assert meta["uint64_col"]["lance.logical_type"] == "uint64"
    assert meta["vector_col"]["lance.logical_type"] == "fixed_size_list:float:128"
    assert meta["large_string_col"]["lance.logical_type"] == "large_string"
    assert meta["ts_ns_ny_col"]["lance.logical_type"] == "timestamp:ns:America/New_York"
    assert meta["dictionary_col"]["lance.logical_type"] == "dict:string:int32:false"
    assert "lance.logical_type" not in meta["int64_col"]
    assert "lance.logical_type" not in meta["ts_us_utc_col"]
    types = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    assert types["uint64_col"] == "decimal(20,0)"
    assert types["uint8_col"] == "smallint"
    assert types["vector_col"] == "array<float>"
    assert types["map_col"] == "map<string,int>"


TYPES = ["types_v2_0", "types_v2_1", "types_v2_2", "types_legacy", "one_row"]
TIME_TYPE_CONF = "spark.sql.timeType.enabled"
#: Spark's TIME type and its setting came in 4.1.
HAS_TIME = SPARK_LINE >= (4, 1)


def _exercise(df, expected: pa.Table) -> None:
    """Count, a filter on every column, one aggregate over every column, and a collect."""
    from functools import reduce

    from pyspark.sql import functions as F

    assert df.count() == expected.num_rows
    every = reduce(lambda a, b: a & b, [F.col(c).isNull() | F.col(c).isNotNull() for c in df.columns])
    assert df.where(every).count() == expected.num_rows
    aggs = [F.count(F.col(c)).alias(c) for c in df.columns]
    orderable = [f.name for f in df.schema.fields if f.dataType.typeName() not in ("struct", "array", "map", "void")]
    aggs += [F.max(F.col(c)).alias("max_" + c) for c in orderable]
    row = df.agg(*aggs).first()
    for name in df.columns:
        assert row[name] == expected.num_rows - expected.column(name).null_count, name
    assert len(df.collect()) == expected.num_rows


@pytest.mark.parametrize("name", TYPES)
def test_every_type_works_in_a_default_session(spark, golden, name):
    if HAS_TIME:  # before 4.1 there is no such setting, and no TIME type
        assert spark.conf.get(TIME_TYPE_CONF) == "false"
    expected = pa.ipc.open_file(golden / name / "expected" / "v1.arrow").read_all()
    df = spark.read.format("lance").load(str(golden / name / "dataset"))
    _exercise(df, expected)
    times = [f for f in expected.schema if pa.types.is_time(f.type)]
    assert len(times) == 4
    for f in times:
        field = df.schema[f.name]
        assert field.dataType.simpleString() == "bigint"
        assert field.metadata["lance.logical_type"] == {"time32[s]": "time32:s", "time32[ms]": "time32:ms",
                                                        "time64[us]": "time64:us", "time64[ns]": "time64:ns"}[str(f.type)]
        want = [_norm(v, f.type) for v in expected.column(f.name).to_pylist()]
        assert df.where(f"{f.name} > 0").count() == sum(1 for w in want if w is not None and w > 0)


def test_time_columns_read_as_time_where_the_session_enables_it(spark, golden):
    """TIME(6) from Spark 4.1 on; on 4.0 and 3.5, which have no TIME type, the setting changes
    nothing and times stay bigint microseconds since midnight (docs/types.md)."""
    spark.conf.set(TIME_TYPE_CONF, "true")
    try:
        expected = pa.ipc.open_file(golden / "types_v2_2" / "expected" / "v1.arrow").read_all()
        df = spark.read.format("lance").load(str(golden / "types_v2_2" / "dataset"))
        _exercise(df, expected)
        times = [f for f in expected.schema if pa.types.is_time(f.type)]
        assert len(times) == 4
        for f in times:
            got = [r[0] for r in df.select(f.name).collect()]
            want = [_norm(v, f.type) for v in expected.column(f.name).to_pylist()]
            if HAS_TIME:
                assert df.schema[f.name].dataType.simpleString() == "time(6)"
                assert [None if g is None else _norm(g, f.type) for g in got] == want, f.name
            else:
                assert df.schema[f.name].dataType.simpleString() == "bigint"
                assert got == want, f.name
    finally:
        spark.conf.unset(TIME_TYPE_CONF)


def test_vector_declared_in_pyspark_reaches_the_write_schema(spark):
    """The declaration docs/types.md gives, as PySpark sends it to the JVM, makes a fixed-size list."""
    from pyspark.sql import functions as F

    df = spark.createDataFrame([(1, [0.1, 0.2, 0.3])], "id long, v array<float>")
    declared = [
        ({"arrow.fixed-size-list.size": 3}, "FixedSizeList(3)", "FloatingPoint(SINGLE)"),
        ({"arrow.fixed-size-list.size": 3, "lance.logical_type.element": "halffloat"}, "FixedSizeList(3)", "FloatingPoint(HALF)"),
        ({"lance.logical_type": "fixed_size_list:float:3"}, "FixedSizeList(3)", "FloatingPoint(SINGLE)"),
        ({}, "List", "FloatingPoint(SINGLE)"),
    ]
    jvm = spark._jvm
    for metadata, list_type, item_type in declared:
        schema = df.select("id", F.col("v").alias("v", metadata=metadata)).schema
        arrow = jvm.io.sparklance.spark.WriteSchema.arrow(jvm.org.apache.spark.sql.types.DataType.fromJson(schema.json()), "test")
        v = arrow.findField("v")
        assert (v.getType().toString(), v.getChildren().get(0).getType().toString()) == (list_type, item_type), metadata
