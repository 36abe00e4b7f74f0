package io.sparklance.testutil

import org.apache.arrow.vector.types.{DateUnit, FloatingPointPrecision, TimeUnit}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field}

import io.sparklance.testutil.ArrowData.field

/** Fields of every type the file writers store, shared by their round-trip suites. */
object WriterFields {

  /** One nullable field of every fixed-width, boolean, string and binary Arrow type. */
  val primitives: Seq[Field] = Seq(
    field("i8", new ArrowType.Int(8, true)), field("u8", new ArrowType.Int(8, false)),
    field("i16", new ArrowType.Int(16, true)), field("u16", new ArrowType.Int(16, false)),
    field("i32", new ArrowType.Int(32, true)), field("u32", new ArrowType.Int(32, false)),
    field("i64", new ArrowType.Int(64, true)), field("u64", new ArrowType.Int(64, false)),
    field("f16", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)),
    field("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
    field("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
    field("b", ArrowType.Bool.INSTANCE),
    field("d32", new ArrowType.Date(DateUnit.DAY)), field("d64", new ArrowType.Date(DateUnit.MILLISECOND)),
    field("t32s", new ArrowType.Time(TimeUnit.SECOND, 32)), field("t32ms", new ArrowType.Time(TimeUnit.MILLISECOND, 32)),
    field("t64us", new ArrowType.Time(TimeUnit.MICROSECOND, 64)), field("t64ns", new ArrowType.Time(TimeUnit.NANOSECOND, 64)),
    field("ts_s", new ArrowType.Timestamp(TimeUnit.SECOND, null)), field("ts_ms_ny", new ArrowType.Timestamp(TimeUnit.MILLISECOND, "America/New_York")),
    field("ts_us_utc", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")), field("ts_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)),
    field("dur", new ArrowType.Duration(TimeUnit.MICROSECOND)),
    field("dec", new ArrowType.Decimal(10, 2, 128)), field("dec256", new ArrowType.Decimal(40, 5, 256)),
    field("fsb", new ArrowType.FixedSizeBinary(16)),
    field("s", ArrowType.Utf8.INSTANCE), field("ls", ArrowType.LargeUtf8.INSTANCE),
    field("bin", ArrowType.Binary.INSTANCE), field("lbin", ArrowType.LargeBinary.INSTANCE))
}
