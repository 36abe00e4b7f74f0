package io.sparklance.spark.write

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector._
import org.apache.arrow.vector.complex.{FixedSizeListVector, LargeListVector, ListVector, MapVector, StructVector}
import org.apache.arrow.vector.types.{DateUnit, FloatingPointPrecision, TimeUnit}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType, Schema}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.{LanceFileReader, LanceSchema}
import io.sparklance.spark.compat.SparkTime
import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.write.{FragmentWriter, FragmentWriterOptions}
import io.sparklance.testutil.{ArrowData, FileRoundTrip, HalfVectors}
import io.sparklance.util.LanceException

/** Spark values into each Arrow type, the checks on bad values, and batches reusing their vectors. */
class RowsToArrowSuite extends AnyFunSuite {

  private val allocator = new RootAllocator(Long.MaxValue)

  private def f(name: String, t: ArrowType, children: Field*): Field = ArrowData.field(name, t, children: _*)
  private def req(name: String, t: ArrowType, children: Field*): Field = ArrowData.required(name, t, children: _*)
  private def item(t: ArrowType, children: Field*): Field = f("item", t, children: _*)

  /** Converts `rows` (also as UnsafeRows when `unsafe`) and hands the batch to `check` before closing it. */
  private def convert(target: Seq[Field], input: StructType, rows: Seq[InternalRow], unsafe: Boolean = false)(check: VectorSchemaRoot => Unit): Unit = {
    val c = new RowsToArrow(new Schema(target.asJava), input, allocator)
    try {
      val projection = UnsafeProjection.create(input)
      rows.foreach(r => c.append(if (unsafe) projection(r) else r))
      check(c.flush())
    } finally c.close()
  }

  /** The error class of converting `row` of `input` into `target`. */
  private def refusal(target: Field, input: DataType, value: Any): LanceException = {
    val e = intercept[LanceException](convert(Seq(target), StructType(Seq(StructField(target.getName, input))), Seq(InternalRow(value)))(_ => ()))
    assert(e.getMessage.contains(s"'${target.getName}"), e.getMessage)
    e
  }

  private def vec[V](root: VectorSchemaRoot, name: String): V = root.getVector(name).asInstanceOf[V]

  test("unsigned integers come from the next wider signed type (uint64 from decimal(20,0)), range-checked") {
    val target = Seq(f("u8", new ArrowType.Int(8, false)), f("u16", new ArrowType.Int(16, false)),
      f("u32", new ArrowType.Int(32, false)), f("u64", new ArrowType.Int(64, false)), f("i8", new ArrowType.Int(8, true)))
    val input = StructType.fromDDL("u8 smallint, u16 int, u32 bigint, u64 decimal(20,0), i8 tinyint")
    val max64 = Decimal(BigDecimal("18446744073709551615"), 20, 0)
    val rows = Seq(
      InternalRow(0.toShort, 0, 0L, Decimal(0L, 20, 0), -128.toByte),
      InternalRow(255.toShort, 65535, 4294967295L, max64, 127.toByte),
      InternalRow(null, null, null, null, null),
      InternalRow(7.toShort, 300, 1L << 31, Decimal(BigDecimal(Long.MaxValue) + 1, 20, 0), 1.toByte))
    for (unsafe <- Seq(false, true)) convert(target, input, rows, unsafe) { root =>
      assert(root.getRowCount == 4)
      val u8 = vec[UInt1Vector](root, "u8"); val u16 = vec[UInt2Vector](root, "u16")
      val u32 = vec[UInt4Vector](root, "u32"); val u64 = vec[UInt8Vector](root, "u64")
      assert(Seq(0, 1, 3).map(i => u8.get(i) & 0xff) == Seq(0, 255, 7))
      assert(Seq(0, 1, 3).map(i => u16.get(i).toInt) == Seq(0, 65535, 300))
      assert(Seq(0, 1, 3).map(i => u32.get(i) & 0xffffffffL) == Seq(0L, 4294967295L, 1L << 31))
      assert(Seq(0, 1, 3).map(i => java.lang.Long.toUnsignedString(u64.get(i))) == Seq("0", "18446744073709551615", "9223372036854775808"))
      assert(u8.isNull(2) && u16.isNull(2) && u32.isNull(2) && u64.isNull(2))
      assert(vec[TinyIntVector](root, "i8").get(0) == -128)
    }
    val bad = Seq(
      (target(0), ShortType, (-1).toShort), (target(0), ShortType, 256.toShort), (target(1), IntegerType, -1),
      (target(1), IntegerType, 65536), (target(2), LongType, -1L), (target(2), LongType, 1L << 32),
      (target(3), DecimalType(20, 0), Decimal(-1L, 20, 0)),
      (target(3), DecimalType(20, 0), Decimal(BigDecimal("18446744073709551616"), 20, 0)))
    bad.foreach { case (t, dt, v) =>
      val e = refusal(t, dt, v)
      assert(e.errorClass == "LANCE_VALUE_OUT_OF_RANGE" && e.sqlState == "22003", e.getMessage)
      assert(e.getMessage.contains(v.toString), e.getMessage)
    }
  }

  test("float16 from float; dates; timestamps, durations and times of every unit from Spark's microseconds (and TIME's nanoseconds)") {
    val ts = (u: TimeUnit, tz: String) => new ArrowType.Timestamp(u, tz)
    val target = Seq(
      f("h", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)),
      f("d32", new ArrowType.Date(DateUnit.DAY)), f("d64", new ArrowType.Date(DateUnit.MILLISECOND)),
      f("ts_s", ts(TimeUnit.SECOND, null)), f("ts_ms_ny", ts(TimeUnit.MILLISECOND, "America/New_York")),
      f("ts_us", ts(TimeUnit.MICROSECOND, "UTC")), f("ts_ns", ts(TimeUnit.NANOSECOND, null)),
      f("dur_s", new ArrowType.Duration(TimeUnit.SECOND)), f("dur_ns", new ArrowType.Duration(TimeUnit.NANOSECOND)),
      f("t32_s", new ArrowType.Time(TimeUnit.SECOND, 32)), f("t32_ms", new ArrowType.Time(TimeUnit.MILLISECOND, 32)),
      f("t64_us", new ArrowType.Time(TimeUnit.MICROSECOND, 64)), f("t64_ns", new ArrowType.Time(TimeUnit.NANOSECOND, 64)),
      f("t64_ns_time", new ArrowType.Time(TimeUnit.NANOSECOND, 64)))
    val time = 3723000456L // 01:02:03.000456
    // TIME(6) holds nanoseconds (Spark 4.1+); a line without it writes the column from bigint microseconds.
    val (timeColumn, timeValue) = if (SparkTime.supported) (SparkTime.micros, 3723000456789L) else (LongType, time)
    val input = StructType(Seq(
      StructField("h", FloatType), StructField("d32", DateType), StructField("d64", DateType),
      StructField("ts_s", TimestampNTZType), StructField("ts_ms_ny", TimestampType), StructField("ts_us", TimestampType),
      StructField("ts_ns", TimestampNTZType), StructField("dur_s", DayTimeIntervalType()), StructField("dur_ns", DayTimeIntervalType()),
      StructField("t32_s", LongType), StructField("t32_ms", LongType), StructField("t64_us", LongType), StructField("t64_ns", LongType),
      StructField("t64_ns_time", timeColumn)))
    val micros = 1700000000123456L
    val rows = Seq(
      InternalRow(1.5f, 19000, 19000, micros, micros, micros, micros, micros, micros, time, time, time, time, timeValue),
      InternalRow(-0.0f, -1, -1, -1L, -1L, -1L, -1L, -1L, -1L, 0L, 0L, 86399999999L, 86399999999L, 0L),
      InternalRow(Seq.fill(14)(null): _*))
    for (unsafe <- Seq(false, true)) convert(target, input, rows, unsafe) { root =>
      val h = root.getVector("h")
      assert(HalfVectors.get(h, 0) == 1.5f && java.lang.Float.floatToIntBits(HalfVectors.get(h, 1)) == java.lang.Float.floatToIntBits(-0.0f))
      assert(vec[DateDayVector](root, "d32").get(0) == 19000 && vec[DateMilliVector](root, "d64").get(0) == 19000L * 86400000L)
      assert(vec[DateMilliVector](root, "d64").get(1) == -86400000L)
      def longs(name: String): Seq[Long] = {
        val v = root.getVector(name)
        (0 until 2).map(i => v match {
          case t: TimeStampVector => t.get(i)
          case d: DurationVector => DurationVector.get(d.getDataBuffer, i)
          case t: TimeSecVector => t.get(i).toLong
          case t: TimeMilliVector => t.get(i).toLong
          case t: TimeMicroVector => t.get(i)
          case t: TimeNanoVector => t.get(i)
        })
      }
      // A coarser unit floors, as Spark floors micros to millis for Parquet.
      assert(longs("ts_s") == Seq(1700000000L, -1L))
      assert(longs("ts_ms_ny") == Seq(1700000000123L, -1L))
      assert(longs("ts_us") == Seq(micros, -1L))
      assert(longs("ts_ns") == Seq(micros * 1000, -1000L))
      assert(longs("dur_s") == Seq(1700000000L, -1L) && longs("dur_ns") == Seq(micros * 1000, -1000L))
      assert(longs("t32_s") == Seq(3723L, 0L) && longs("t32_ms") == Seq(3723000L, 0L))
      assert(longs("t64_us") == Seq(time, 86399999999L) && longs("t64_ns") == Seq(time * 1000, 86399999999000L))
      assert(longs("t64_ns_time") == Seq(if (SparkTime.supported) 3723000456789L else time * 1000, 0L))
      assert(root.getFieldVectors.asScala.forall(_.isNull(2)))
    }
    // Out of range: a time of day past midnight, nanoseconds past 2262, a nanosecond duration past 292 years.
    assert(refusal(target(10), LongType, 86400000000L).errorClass == "LANCE_VALUE_OUT_OF_RANGE")
    assert(refusal(target(10), LongType, -1L).errorClass == "LANCE_VALUE_OUT_OF_RANGE")
    assert(refusal(target(6), TimestampNTZType, 9300000000000000L).errorClass == "LANCE_VALUE_OUT_OF_RANGE")
    assert(refusal(target(8), DayTimeIntervalType(), Long.MinValue / 10).errorClass == "LANCE_VALUE_OUT_OF_RANGE")
    // A zone-less timestamp into a zoned column (and back) is a type mismatch, not a silent shift.
    assert(refusal(target(5), TimestampNTZType, 0L).errorClass == "LANCE_COLUMN_TYPE_MISMATCH")
    assert(refusal(target(3), TimestampType, 0L).errorClass == "LANCE_COLUMN_TYPE_MISMATCH")
  }

  test("decimals: 128 and 256 bits from Spark decimals, compact or not, and 256 above 38 digits from exact strings") {
    val target = Seq(f("d", new ArrowType.Decimal(10, 2, 128)), f("big", new ArrowType.Decimal(38, 4, 128)),
      f("d256", new ArrowType.Decimal(20, 3, 256)), f("s256", new ArrowType.Decimal(40, 5, 256)), f("wider", new ArrowType.Decimal(12, 3, 128)))
    val input = StructType.fromDDL("d decimal(10,2), big decimal(38,4), d256 decimal(20,3), s256 string, wider decimal(10,2)")
    val s40 = "12345678901234567890123456789012345.12345"
    val rows = Seq(
      InternalRow(Decimal(BigDecimal("-12345678.91"), 10, 2), Decimal(BigDecimal("1234567890123456789012345678901234.5678"), 38, 4),
        Decimal(BigDecimal("-12345678901234567.891"), 20, 3), UTF8String.fromString(s40), Decimal(BigDecimal("99999999.99"), 10, 2)),
      InternalRow(Decimal(BigDecimal("0.01"), 10, 2), Decimal(BigDecimal("-1.0000"), 38, 4), Decimal(BigDecimal("1.5"), 20, 3),
        UTF8String.fromString("-0.5"), Decimal(BigDecimal("-0.01"), 10, 2)),
      InternalRow(null, null, null, null, null))
    for (unsafe <- Seq(false, true)) convert(target, input, rows, unsafe) { root =>
      def values(name: String) = (0 until 3).map(i => Option(root.getVector(name).getObject(i)).map(_.asInstanceOf[java.math.BigDecimal].toPlainString).orNull)
      assert(values("d") == Seq("-12345678.91", "0.01", null))
      assert(values("big") == Seq("1234567890123456789012345678901234.5678", "-1.0000", null))
      assert(values("d256") == Seq("-12345678901234567.891", "1.500", null))
      assert(values("s256") == Seq(s40, "-0.50000", null))
      assert(values("wider") == Seq("99999999.990", "-0.010", null))
    }
    assert(refusal(target(3), StringType, UTF8String.fromString("1" * 36)).errorClass == "LANCE_VALUE_OUT_OF_RANGE")
    assert(refusal(target(3), StringType, UTF8String.fromString("0.000001")).errorClass == "LANCE_VALUE_OUT_OF_RANGE")
    assert(refusal(target(3), StringType, UTF8String.fromString("twelve")).errorClass == "LANCE_VALUE_OUT_OF_RANGE")
    assert(refusal(f("narrow", new ArrowType.Decimal(4, 2, 128)), DecimalType(10, 2), Decimal(BigDecimal("123.45"), 10, 2)).errorClass ==
      "LANCE_VALUE_OUT_OF_RANGE")
  }

  test("strings and binaries, large ones with 64-bit offsets, fixed-size binary of exactly its width") {
    val target = Seq(f("s", ArrowType.Utf8.INSTANCE), f("ls", ArrowType.LargeUtf8.INSTANCE), f("b", ArrowType.Binary.INSTANCE),
      f("lb", ArrowType.LargeBinary.INSTANCE), f("fsb", new ArrowType.FixedSizeBinary(3)), f("dict", ArrowType.Utf8.INSTANCE))
    val input = StructType.fromDDL("s string, ls string, b binary, lb binary, fsb binary, dict string")
    val u = (s: String) => UTF8String.fromString(s)
    val rows = Seq(
      InternalRow(u("héllo"), u(""), Array[Byte](1, 2), Array.emptyByteArray, Array[Byte](7, 8, 9), u("red")),
      InternalRow(null, null, null, null, null, null),
      InternalRow(u("x" * 1000), u("ünïcødé"), Array.fill[Byte](300)(5), Array[Byte](0), Array[Byte](0, 0, 0), u("red")))
    for (unsafe <- Seq(false, true)) convert(target, input, rows, unsafe) { root =>
      val values = FileRoundTrip.values _
      assert(values(root.getVector("s")) == Seq("héllo", null, "x" * 1000))
      assert(values(root.getVector("ls")) == Seq("", null, "ünïcødé"))
      assert(values(root.getVector("b")) == Seq(Seq[Byte](1, 2), null, Seq.fill[Byte](300)(5)))
      assert(values(root.getVector("lb")) == Seq(Seq.empty[Byte], null, Seq[Byte](0)))
      assert(values(root.getVector("fsb")) == Seq(Seq[Byte](7, 8, 9), null, Seq[Byte](0, 0, 0)))
      assert(root.getVector("ls").isInstanceOf[LargeVarCharVector] && root.getVector("lb").isInstanceOf[LargeVarBinaryVector])
    }
    assert(refusal(target(4), BinaryType, Array[Byte](1, 2)).errorClass == "LANCE_VALUE_OUT_OF_RANGE")
    assert(refusal(target(4), BinaryType, Array[Byte](1, 2, 3, 4)).errorClass == "LANCE_VALUE_OUT_OF_RANGE")
  }

  test("vectors take exactly their dimension (LANCE_VECTOR_DIMENSION_MISMATCH otherwise); a null vector still takes its item slots") {
    val vector = f("v", new ArrowType.FixedSizeList(3), item(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))
    val halfVector = f("h", new ArrowType.FixedSizeList(2), item(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)))
    val u8Vector = f("u", new ArrowType.FixedSizeList(2), item(new ArrowType.Int(8, false)))
    val input = StructType.fromDDL("v array<float>, h array<float>, u array<smallint>")
    val rows = Seq(
      InternalRow(new GenericArrayData(Array[Any](1f, 2f, 3f)), new GenericArrayData(Array[Any](0.5f, null)), new GenericArrayData(Array[Any](255.toShort, 0.toShort))),
      InternalRow(null, null, null),
      InternalRow(new GenericArrayData(Array[Any](4f, null, 6f)), new GenericArrayData(Array[Any](-2f, 65504f)), new GenericArrayData(Array[Any](1.toShort, 2.toShort))))
    for (unsafe <- Seq(false, true)) convert(Seq(vector, halfVector, u8Vector), input, rows, unsafe) { root =>
      val v = vec[FixedSizeListVector](root, "v")
      assert(v.getDataVector.getValueCount == 9)
      assert(FileRoundTrip.values(v) == Seq(Seq(1f, 2f, 3f), null, Seq(4f, null, 6f)))
      val h = vec[FixedSizeListVector](root, "h").getDataVector
      assert(Seq(0, 4, 5).map(HalfVectors.get(h, _)) == Seq(0.5f, -2f, 65504f) && h.isNull(1))
      val u = vec[FixedSizeListVector](root, "u").getDataVector.asInstanceOf[UInt1Vector]
      assert(Seq(0, 1, 4, 5).map(i => u.get(i) & 0xff) == Seq(255, 0, 1, 2))
    }
    Seq(Array[Any](1f, 2f), Array[Any](1f, 2f, 3f, 4f), Array.empty[Any]).foreach { items =>
      val e = refusal(vector, ArrayType(FloatType), new GenericArrayData(items))
      assert(e.errorClass == "LANCE_VECTOR_DIMENSION_MISMATCH", e.getMessage)
    }
    // At any depth: a list of vectors.
    val nested = f("lv", ArrowType.List.INSTANCE, item(new ArrowType.FixedSizeList(2), item(new ArrowType.Int(32, true))))
    val e = refusal(nested, ArrayType(ArrayType(IntegerType)),
      new GenericArrayData(Array[Any](new GenericArrayData(Array[Any](1, 2)), new GenericArrayData(Array[Any](3)))))
    assert(e.errorClass == "LANCE_VECTOR_DIMENSION_MISMATCH" && e.getMessage.contains("'lv.element'"), e.getMessage)
  }

  test("structs, lists, large lists, maps and the null type, nested; members of a null struct hold no value") {
    val target = Seq(
      f("st", ArrowType.Struct.INSTANCE, f("a", new ArrowType.Int(32, true)), req("b", ArrowType.Utf8.INSTANCE)),
      f("l", ArrowType.List.INSTANCE, item(new ArrowType.Int(16, false))),
      f("ll", ArrowType.LargeList.INSTANCE, item(ArrowType.Struct.INSTANCE, f("x", new ArrowType.Int(64, true)))),
      new Field("m", FieldType.nullable(new ArrowType.Map(false)), java.util.Arrays.asList(
        new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), java.util.Arrays.asList(
          req("key", ArrowType.Utf8.INSTANCE), f("value", new ArrowType.Int(32, false)))))),
      f("n", ArrowType.Null.INSTANCE))
    val input = StructType.fromDDL("st struct<a: int, b: string not null>, l array<int>, ll array<struct<x: bigint>>, m map<string, bigint>, n void")
    val u = (s: String) => UTF8String.fromString(s)
    val rows = Seq(
      InternalRow(InternalRow(1, u("one")), new GenericArrayData(Array[Any](65535, null, 0)),
        new GenericArrayData(Array[Any](InternalRow(5L), null)),
        ArrayBasedMapData(Array[Any](u("k1"), u("k2")), Array[Any](4294967295L, null)), null),
      InternalRow(null, new GenericArrayData(Array.empty[Any]), null, ArrayBasedMapData(Array.empty[Any], Array.empty[Any]), null),
      InternalRow(InternalRow(null, u("")), null, new GenericArrayData(Array.empty[Any]), null, null))
    for (unsafe <- Seq(false, true)) convert(target, input, rows, unsafe) { root =>
      val st = vec[StructVector](root, "st")
      assert(st.isNull(1) && !st.isNull(2) && st.getChild("b").isNull(1), "a null struct's members are null slots")
      assert(FileRoundTrip.values(st.getChild("a")) == Seq(1, null, null))
      val items = vec[ListVector](root, "l").getDataVector.asInstanceOf[UInt2Vector]
      assert(items.getValueCount == 3 && items.get(0).toInt == 65535 && items.isNull(1) && items.get(2).toInt == 0)
      assert(FileRoundTrip.values(vec[ListVector](root, "l")).map(x => Option(x).map(_.asInstanceOf[Seq[_]].length)) == Seq(Some(3), Some(0), None))
      val ll = vec[LargeListVector](root, "ll")
      assert(ll.getElementEndIndex(0) == 2 && ll.isNull(1) && ll.getElementEndIndex(2) == 2)
      val m = vec[MapVector](root, "m")
      assert(m.getElementEndIndex(0) == 2 && m.getElementEndIndex(1) == 2 && m.isNull(2))
      val entries = m.getDataVector.asInstanceOf[StructVector]
      assert(FileRoundTrip.values(entries.getChild("key")) == Seq("k1", "k2"))
      assert(entries.getChild("value").asInstanceOf[UInt4Vector].get(0) == -1 && entries.getChild("value").isNull(1))
      assert(root.getVector("n").getValueCount == 3 && root.getVector("n").isNull(0))
    }
  }

  test("a null in a field the table declares not nullable is refused, naming the column, at any depth") {
    val top = req("id", new ArrowType.Int(64, true))
    assert(refusal(top, LongType, null).errorClass == "LANCE_NULL_IN_NON_NULLABLE_COLUMN")
    val member = f("st", ArrowType.Struct.INSTANCE, req("b", ArrowType.Utf8.INSTANCE))
    val e1 = refusal(member, StructType.fromDDL("b string"), InternalRow(null))
    assert(e1.errorClass == "LANCE_NULL_IN_NON_NULLABLE_COLUMN" && e1.getMessage.contains("'st.b'") && e1.sqlState == "23502", e1.getMessage)
    val items = f("l", ArrowType.List.INSTANCE, req("item", new ArrowType.Int(32, true)))
    val e2 = refusal(items, ArrayType(IntegerType), new GenericArrayData(Array[Any](1, null)))
    assert(e2.errorClass == "LANCE_NULL_IN_NON_NULLABLE_COLUMN" && e2.getMessage.contains("'l.element'"), e2.getMessage)
  }

  test("a Spark type a column does not take, or another number of columns, is refused before any row") {
    assert(intercept[LanceException](new RowsToArrow(new Schema(java.util.Arrays.asList(f("a", new ArrowType.Int(32, false)))),
      StructType.fromDDL("a string"), allocator)).errorClass == "LANCE_COLUMN_TYPE_MISMATCH")
    assert(intercept[LanceException](new RowsToArrow(new Schema(java.util.Arrays.asList(f("a", new ArrowType.FixedSizeBinary(4)))),
      StructType.fromDDL("a struct<x: int>"), allocator)).errorClass == "LANCE_COLUMN_TYPE_MISMATCH")
    assert(intercept[LanceException](new RowsToArrow(new Schema(java.util.Arrays.asList(f("a", new ArrowType.Int(32, true)))),
      StructType.fromDDL("a int, b int"), allocator)).errorClass == "LANCE_INVALID_ARGUMENT")
    assert(allocator.getAllocatedMemory == 0, "nothing is left allocated by a refused converter")
  }

  test("each flush holds the rows since the last one, in vectors reused across batches; bufferedBytes counts values") {
    val target = Seq(f("id", new ArrowType.Int(64, true)), f("s", ArrowType.Utf8.INSTANCE), f("l", ArrowType.List.INSTANCE, item(new ArrowType.Int(32, true))))
    val input = StructType.fromDDL("id bigint, s string, l array<int>")
    val c = new RowsToArrow(new Schema(target.asJava), input, allocator)
    try {
      val row = (i: Int) => InternalRow(i.toLong, UTF8String.fromString("v" * (i % 5)), new GenericArrayData(Array.fill[Any](i % 3)(i)))
      (0 until 1000).foreach(i => c.append(row(i)))
      assert(c.rowCount == 1000)
      val expectedBytes = (0 until 1000).map(i => 8L + (i % 5) + 4 + 4 + 4L * (i % 3)).sum
      assert(c.bufferedBytes == expectedBytes)
      val first = c.flush()
      val idVector = first.getVector(0)
      assert(first.getRowCount == 1000 && FileRoundTrip.values(first.getVector(0)) == (0 until 1000).map(_.toLong))
      assert(c.rowCount == 0 && c.bufferedBytes == 0)
      (1000 until 1010).foreach(i => c.append(row(i)))
      val second = c.flush()
      assert(second eq first)
      assert(second.getVector(0) eq idVector)
      assert(second.getRowCount == 10)
      assert(FileRoundTrip.values(second.getVector(0)) == (1000 until 1010).map(_.toLong))
      assert(FileRoundTrip.values(second.getVector(1)) == (1000 until 1010).map(i => "v" * (i % 5)))
      assert(FileRoundTrip.values(second.getVector(2)) == (1000 until 1010).map(i => Seq.fill(i % 3)(i)))
      assert(c.flush().getRowCount == 0, "a flush with no new rows is an empty batch")
    } finally c.close()
    assert(allocator.getAllocatedMemory == 0)
  }

  test("rows from UnsafeRows are converted without allocating per row (fixed-width values, strings, binaries, vectors, structs, lists)") {
    val target = Seq(f("i", new ArrowType.Int(32, true)), f("u32", new ArrowType.Int(32, false)), f("d", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      f("h", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)), f("dec", new ArrowType.Decimal(10, 2, 128)),
      f("ts", new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC")), f("date", new ArrowType.Date(DateUnit.DAY)), f("b", ArrowType.Bool.INSTANCE),
      f("v", new ArrowType.FixedSizeList(4), item(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))),
      f("s", ArrowType.Utf8.INSTANCE), f("bin", new ArrowType.FixedSizeBinary(2)),
      f("st", ArrowType.Struct.INSTANCE, f("a", new ArrowType.Int(32, true)), f("l", ArrowType.LargeList.INSTANCE, item(ArrowType.Utf8.INSTANCE))))
    val input = StructType.fromDDL("i int, u32 bigint, d double, h float, dec decimal(10,2), ts timestamp, date date, b boolean, v array<float>, " +
      "s string, bin binary, st struct<a: int, l: array<string>>")
    val row = UnsafeProjection.create(input)(InternalRow(1, 4000000000L, 2.5, 1.5f, Decimal(12345L, 10, 2), 1700000000000000L, 19000, true,
      new GenericArrayData(Array[Any](1f, 2f, 3f, 4f)), UTF8String.fromString("a string"), Array[Byte](1, 2),
      InternalRow(7, new GenericArrayData(Array[Any](UTF8String.fromString("x"), null)))))
    val c = new RowsToArrow(new Schema(target.asJava), input, allocator)
    val threads = java.lang.management.ManagementFactory.getThreadMXBean.asInstanceOf[com.sun.management.ThreadMXBean]
    try {
      val n = 200000
      def batch(): Unit = { var i = 0; while (i < n) { c.append(row); i += 1 }; c.flush() }
      batch(); batch() // vectors grown and code warmed up
      val before = threads.getThreadAllocatedBytes(Thread.currentThread().getId)
      batch()
      val perRow = (threads.getThreadAllocatedBytes(Thread.currentThread().getId) - before).toDouble / n
      assert(perRow < 1.0, s"$perRow bytes allocated per row")
    } finally c.close()
  }

  test("a blob column takes the bytes, which the file writer stores out of line") {
    val work = Files.createTempDirectory("rows-blob").toFile
    val blobMeta = java.util.Map.of("lance-encoding:blob", "true")
    val arrow = new Schema(java.util.Arrays.asList(f("id", new ArrowType.Int(64, true)),
      new Field("blob", new FieldType(true, ArrowType.LargeBinary.INSTANCE, null, blobMeta), java.util.Arrays.asList())))
    val lance = LanceSchema.fromArrow(arrow, "blob test")
    assert(lance.fields(1).blobVersion.nonEmpty)
    val payloads = IndexedSeq(Array.fill[Byte](100000)(3), null, Array.emptyByteArray, Array.tabulate[Byte](777)(_.toByte))
    val writer = new FragmentWriter(new HadoopObjectStore(new Configuration()), work.getPath, lance, FragmentWriterOptions(io.sparklance.format.write.FileWriterOptions(io.sparklance.format.FileVersion.V2_1)))
    val c = new RowsToArrow(lance.toArrowForWrite("blob test"), StructType.fromDDL("id bigint, blob binary"), allocator)
    val fragments = try {
      payloads.zipWithIndex.foreach { case (p, i) => c.append(InternalRow(i.toLong, p)) }
      writer.write(c.flush())
      writer.finish()
    } finally c.close()
    val file = new File(new File(work, "data"), fragments.head.files.head.path)
    val r = LanceFileReader.open(new HadoopObjectStore(new Configuration()), file.getPath)
    try {
      val columnOf = fragments.head.files.head.fields.zip(fragments.head.files.head.columnIndices).toMap
      val descriptors = r.scan(lance.fields(1), columnOf.get).next(payloads.length, allocator)
      try assert(FileRoundTrip.blobBytes(file, descriptors) == payloads.map(p => Option(p).map(_.toSeq).orNull))
      finally descriptors.close()
    } finally r.close()
  }
}
