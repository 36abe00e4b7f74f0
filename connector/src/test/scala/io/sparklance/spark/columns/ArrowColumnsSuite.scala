package io.sparklance.spark.columns

import java.math.{BigDecimal => JBigDecimal, BigInteger}

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector._
import org.apache.arrow.vector.types.{DateUnit, FloatingPointPrecision, TimeUnit}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType}
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ArrowColumnVector, ColumnVector, ColumnarBatch}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.spark.compat.SparkTime
import io.sparklance.testutil.ArrowData.{field, required}
import io.sparklance.testutil.{ArrowData, Canonical}
import io.sparklance.util.UnsupportedFeatureException

/**
 * Our columns answer every Spark getter as Spark's ArrowColumnVector does on the same Arrow
 * data: every type, with and without nulls, sliced at an unaligned row, nested, and empty.
 * Fixed-size and large lists, which ArrowColumnVector cannot read, are compared with it
 * reading the same values as plain lists.
 */
class ArrowColumnsSuite extends AnyFunSuite with BeforeAndAfterAll {
  private val allocator = new RootAllocator(Long.MaxValue)

  override protected def afterAll(): Unit = {
    try allocator.close() // fails if a test leaked Arrow memory
    finally super.afterAll()
  }

  private val int32 = new ArrowType.Int(32, true)

  /** A column type and the value of its row `i` (null, or a Scala value; lists and structs as Seq, maps as Seq of pairs). */
  private final case class Case(field: Field, value: Int => Any)

  private val cases: Seq[Case] = Seq(
    Case(field("bool", ArrowType.Bool.INSTANCE), i => i % 3 == 0),
    Case(field("int8", new ArrowType.Int(8, true)), i => (i * 37 - 100).toByte),
    Case(field("int16", new ArrowType.Int(16, true)), i => (i * 1000 - 17000).toShort),
    Case(field("int32", int32), i => i * 123456789),
    Case(field("int64", new ArrowType.Int(64, true)), i => if (i == 0) Long.MinValue else i * 1234567890123L),
    Case(field("float32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), i => Seq(Float.NaN, -0.0f, Float.MaxValue, i * 0.25f)(i % 4)),
    Case(field("float64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), i => Seq(Double.NaN, -0.0, Double.MinPositiveValue, i * -1.5)(i % 4)),
    Case(field("date", new ArrowType.Date(DateUnit.DAY)), i => i * 1000 - 20000),
    Case(field("timestamp", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")), i => i * 86400000000L - 1),
    Case(field("timestamp_ntz", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)), i => -i * 3600000001L),
    Case(field("time", new ArrowType.Time(TimeUnit.NANOSECOND, 64)), i => i * 1000000007L),
    Case(field("duration", new ArrowType.Duration(TimeUnit.MICROSECOND)), i => -i * 999L),
    Case(field("decimal_10_2", new ArrowType.Decimal(10, 2, 128)), i => JBigDecimal.valueOf(i * 12345L - 99999L, 2)),
    Case(field("decimal_20_0", new ArrowType.Decimal(20, 0, 128)), i =>
      new JBigDecimal(if (i % 2 == 0) BigInteger.ONE.shiftLeft(64).add(BigInteger.valueOf(i)) else BigInteger.valueOf(-i))),
    Case(field("decimal_38_6", new ArrowType.Decimal(38, 6, 128)), i =>
      if (i % 3 == 0) new JBigDecimal("-12345678901234567890123456789.123456").add(JBigDecimal.valueOf(i))
      else JBigDecimal.valueOf(i * 1000001L, 6)),
    Case(field("string", ArrowType.Utf8.INSTANCE), i => Seq("", "a", "héllo wörld", "日本語")(i % 4) + i),
    Case(field("large_string", ArrowType.LargeUtf8.INSTANCE), i => if (i % 5 == 0) "" else "x" * i),
    Case(field("binary", ArrowType.Binary.INSTANCE), i => Array.tabulate[Byte](i % 5)(j => (i * j).toByte)),
    Case(field("large_binary", ArrowType.LargeBinary.INSTANCE), i => Array.tabulate[Byte](i % 3)(j => (i - j).toByte)),
    Case(field("null", ArrowType.Null.INSTANCE), _ => null),
    Case(field("list", ArrowType.List.INSTANCE, field("item", int32)), i => (0 until i % 4).map(j => if (j == 2) null else i * j)),
    Case(field("large_list", ArrowType.LargeList.INSTANCE, field("item", ArrowType.Utf8.INSTANCE)),
      i => (0 until i % 3).map(j => if ((i + j) % 4 == 0) null else s"$i.$j")),
    Case(field("vector", new ArrowType.FixedSizeList(3), field("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))),
      i => (0 until 3).map(j => i * 3 + j + 0.5f)),
    Case(field("map", new ArrowType.Map(false), required("entries", ArrowType.Struct.INSTANCE,
      required("key", ArrowType.Utf8.INSTANCE), field("value", int32))),
      i => (0 until i % 3).map(j => (s"k$j", if (j == 1) null else i + j))),
    Case(field("struct", ArrowType.Struct.INSTANCE, field("a", int32), field("b", ArrowType.Utf8.INSTANCE)),
      i => Seq(i, if (i % 5 == 0) null else s"s$i")),
    Case(field("list_of_structs", ArrowType.List.INSTANCE, field("item", ArrowType.Struct.INSTANCE,
      field("x", new ArrowType.Int(64, true)), field("y", ArrowType.List.INSTANCE, field("item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))))),
      i => (0 until i % 3).map(j => if (j == 1 && i % 2 == 0) null else Seq(i * 10L + j, if (j == 2) null else (0 until j + 1).map(k => k * 0.5 + i))))
  )

  /** `f` with fixed-size and large lists as plain lists, the form ArrowColumnVector reads. */
  private def asPlainLists(f: Field): Field = {
    val t = f.getType match {
      case _: ArrowType.FixedSizeList | _: ArrowType.LargeList => ArrowType.List.INSTANCE
      case other => other
    }
    new Field(f.getName, new FieldType(f.isNullable, t, null), f.getChildren.asScala.map(asPlainLists).asJava)
  }

  /** Our column and ArrowColumnVector give the same answers on `ours` and `reference`. */
  private def compare(ours: FieldVector, reference: FieldVector): Unit = {
    val column = ArrowColumns.of(ours, "test")
    val expected = new ArrowColumnVector(reference)
    val n = ours.getValueCount
    assert(reference.getValueCount == n)
    assert(column.hasNull == expected.hasNull)
    assert(column.numNulls == expected.numNulls)
    val (a, b) = (new ColumnarBatch(Array(column), n), new ColumnarBatch(Array[ColumnVector](expected), n))
    (0 until n).foreach { i =>
      val value = Canonical.fromSpark(a.getRow(i), 0, column.dataType)
      assert(value == Canonical.fromSpark(b.getRow(i), 0, column.dataType), s"${ours.getName} row $i")
      // A copy of an array (what Spark keeps of one) reads through the bulk getters; Spark's
      // ArrowColumnVector cannot copy null items (Arrow's checked getters throw on them).
      column.dataType match {
        case ArrayType(t, _) if value != null =>
          val items = column.getArray(i)
          if ((0 until items.numElements).forall(j => !items.isNullAt(j))) assert(Canonical.elements(items.copy(), t) == value)
        case _ =>
      }
    }
  }

  private def rows(c: Case, n: Int, nulls: Boolean): IndexedSeq[Any] =
    (0 until n).map(i => if (nulls && i % 4 == 1) null else c.value(i))

  private def withVectors(c: Case, values: IndexedSeq[Any])(body: (FieldVector, FieldVector) => Unit): Unit = {
    val ours = ArrowData.vector(c.field, values, allocator)
    try {
      val reference = ArrowData.vector(asPlainLists(c.field), values, allocator)
      try body(ours, reference) finally reference.close()
    } finally ours.close()
  }

  private def sliced(v: FieldVector, start: Int, length: Int): FieldVector = {
    val tp = v.getTransferPair(allocator)
    tp.splitAndTransfer(start, length)
    tp.getTo.asInstanceOf[FieldVector]
  }

  // A time column is read as TIME only on lines that have it (compat.SparkTime).
  cases.filter(c => SparkTime.supported || !c.field.getType.isInstanceOf[ArrowType.Time]).foreach { c =>
    val name = c.field.getName
    Seq(false, true).foreach { nulls =>
      test(s"$name ${if (nulls) "with" else "without"} nulls") {
        withVectors(c, rows(c, 37, nulls)) { (ours, reference) =>
          if (name != "null") assert(ArrowColumns.of(ours, "test").hasNull == nulls)
          compare(ours, reference)
        }
      }
    }

    test(s"$name sliced at an unaligned row") {
      withVectors(c, rows(c, 37, nulls = true)) { (ours, reference) =>
        val (a, b) = (sliced(ours, 3, 29), sliced(reference, 3, 29))
        try compare(a, b) finally { a.close(); b.close() }
      }
    }

    test(s"$name empty batch") {
      withVectors(c, IndexedSeq.empty) { (ours, reference) =>
        assert(!ArrowColumns.of(ours, "test").hasNull)
        compare(ours, reference)
      }
    }
  }

  test("a struct's members are columns of their own") {
    val c = cases.find(_.field.getName == "struct").get
    withVectors(c, rows(c, 9, nulls = true)) { (ours, _) =>
      val column = ArrowColumns.of(ours, "test")
      assert(column.getChild(0).getInt(4) == 4)
      assert(column.getChild(1).getUTF8String(4).toString == "s4")
      assert(column.getStruct(1) == null)
    }
  }

  test("a vector SparkArrow should have converted is an error, not wrong values") {
    val v = new DateMilliVector("d", allocator)
    try {
      v.allocateNew(1)
      v.setSafe(0, 86400000L)
      v.setValueCount(1)
      val e = intercept[UnsupportedFeatureException](ArrowColumns.of(v, "test"))
      assert(e.getMessage.contains("column 'd'"))
    } finally v.close()
  }

  test("a getter of another type throws") {
    val c = cases.find(_.field.getName == "string").get
    withVectors(c, rows(c, 3, nulls = false)) { (ours, _) =>
      intercept[UnsupportedOperationException](ArrowColumns.of(ours, "test").getInt(0))
    }
  }

  /** `damage` applied to a vector of `c` with `n` rows, which wrapping must then refuse. */
  private def refused(name: String, n: Int)(damage: FieldVector => Unit): Unit = {
    val c = cases.find(_.field.getName == name).get
    withVectors(c, rows(c, n, nulls = false)) { (ours, _) =>
      damage(ours)
      val e = intercept[io.sparklance.util.CorruptFileException](ArrowColumns.of(ours, "batch source"))
      assert(e.errorClass == "LANCE_CORRUPT_FILE")
      assert(e.getMessage.contains("batch source"))
    }
  }

  test("vectors whose buffers cannot hold their rows are refused when wrapped, before any read") {
    // Fixed width: a row count the data buffer cannot hold.
    val v = new IntVector("i", allocator)
    try {
      val (validity, data) = (allocator.buffer(64), allocator.buffer(16))
      try v.loadFieldBuffers(new org.apache.arrow.vector.ipc.message.ArrowFieldNode(100, 0), java.util.Arrays.asList(validity, data))
      finally { validity.close(); data.close() }
      val e = intercept[io.sparklance.util.CorruptFileException](ArrowColumns.of(v, "batch source"))
      assert(e.getMessage.contains("400 needed"))
    } finally v.close()
    // Strings: offsets that go back, or past the data buffer.
    refused("string", 9)(v => v.getOffsetBuffer.setInt(4L * 5, 0))
    refused("string", 9)(v => v.getOffsetBuffer.setInt(4L * 9, v.getDataBuffer.capacity().toInt + 1))
    refused("large_binary", 9)(v => v.getOffsetBuffer.setLong(8L * 9, -1L))
    // Lists and maps: offsets past their items.
    refused("list", 9)(v => v.getOffsetBuffer.setInt(4L * 9, v.getChildrenFromFields.get(0).getValueCount + 1))
    refused("large_list", 9)(v => v.getOffsetBuffer.setLong(8L * 3, 0L))
    refused("map", 9)(v => v.getOffsetBuffer.setInt(4L * 9, 1000))
    // Fixed-size lists and structs: members shorter than their rows need.
    refused("vector", 9)(v => v.getChildrenFromFields.get(0).setValueCount(20))
    refused("struct", 9)(v => v.getChildrenFromFields.get(1).setValueCount(4))
  }
}
