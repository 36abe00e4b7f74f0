package io.sparklance.spark

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.types.FloatingPointPrecision
import org.apache.arrow.vector.types.pojo.{ArrowType, Field}
import org.apache.spark.sql.types.{ArrayType, FloatType}
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.spark.columns.ArrowColumns
import io.sparklance.testutil.ArrowData.{field, required}
import io.sparklance.testutil.{ArrowData, Canonical}

/**
 * Values Spark has no type for, inside structs, lists and maps: the container keeps its rows
 * (validity, offsets) and its members are converted; fixed-size and large lists are read as
 * arrays in place.
 */
class SparkArrowSuite extends AnyFunSuite with BeforeAndAfterAll {
  private val allocator = new RootAllocator(Long.MaxValue)

  override protected def afterAll(): Unit = {
    try allocator.close() // fails if a conversion leaked Arrow memory
    finally super.afterAll()
  }

  private val uint8 = new ArrowType.Int(8, false)
  private val uint32 = new ArrowType.Int(32, false)
  private val float16 = new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)
  private def widen8(b: Byte): Short = (b & 0xff).toShort
  private def widen32(i: Int): Long = i & 0xffffffffL

  /** A column, its rows as stored and as Spark reads them (null every fourth row). */
  private final case class Case(field: Field, stored: Int => Any, read: Int => Any)

  private val cases = Seq(
    Case(field("struct", ArrowType.Struct.INSTANCE, field("u", uint8), field("s", ArrowType.Utf8.INSTANCE)),
      i => Seq((i * 50).toByte, s"s$i"), i => Seq(widen8((i * 50).toByte), s"s$i")),
    Case(field("list", ArrowType.List.INSTANCE, field("item", uint32)),
      i => (0 until i % 3).map(j => if (j == 1) null else -i * j), i => (0 until i % 3).map(j => if (j == 1) null else widen32(-i * j))),
    Case(field("large_list", ArrowType.LargeList.INSTANCE, field("item", uint8)),
      i => (0 until i % 4).map(j => (i * 70 + j).toByte), i => (0 until i % 4).map(j => widen8((i * 70 + j).toByte))),
    Case(field("vector", new ArrowType.FixedSizeList(2), field("item", float16)),
      i => Seq(i * 0.5f, -i.toFloat), i => Seq(i * 0.5f, -i.toFloat)),
    Case(field("map", new ArrowType.Map(false), required("entries", ArrowType.Struct.INSTANCE,
      required("key", ArrowType.Utf8.INSTANCE), field("value", uint8))),
      i => (0 until i % 3).map(j => (s"k$j", (i * 90).toByte)), i => (0 until i % 3).map(j => (s"k$j", widen8((i * 90).toByte)))),
    Case(field("list_of_structs", ArrowType.List.INSTANCE, field("item", ArrowType.Struct.INSTANCE, field("x", uint8))),
      i => (0 until i % 3).map(j => Seq((i + j * 100).toByte)), i => (0 until i % 3).map(j => Seq(widen8((i + j * 100).toByte))))
  )

  cases.foreach { c =>
    test(s"${c.field.getName}: members converted, rows kept") {
      val n = 21
      def rows(f: Int => Any) = (0 until n).map(i => if (i % 4 == 1) null else f(i))
      val target = SparkArrow.readable(c.field, timeType = false)
      val converted = SparkArrow.convert(ArrowData.vector(c.field, rows(c.stored), allocator), allocator, timeType = false)
      val expected = ArrowData.vector(target, rows(c.read), allocator)
      try {
        val (a, b) = (ArrowColumns.of(converted, "test"), ArrowColumns.of(expected, "test"))
        assert(a.dataType == b.dataType) // Arrow names the new list items its own way: compare types
        val (ra, rb) = (new ColumnarBatch(Array(a), n), new ColumnarBatch(Array(b), n))
        (0 until n).foreach { i =>
          assert(Canonical.fromSpark(ra.getRow(i), 0, a.dataType) == Canonical.fromSpark(rb.getRow(i), 0, b.dataType), s"row $i")
        }
      } finally { converted.close(); expected.close() }
    }
  }

  test("fixed-size and large lists are Spark arrays that remember their Arrow type") {
    val vector = field("v", new ArrowType.FixedSizeList(4), field("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))
    assert(SparkArrow.readable(vector, timeType = false) == vector) // read in place
    val f = SparkArrow.sparkField(vector, "test", timeType = false)
    assert(f.dataType == ArrayType(FloatType, containsNull = true))
    assert(f.metadata.getString(SparkArrow.ArrowTypeKey) == "FixedSizeList(4)")
    val large = field("l", ArrowType.LargeList.INSTANCE, field("item", ArrowType.Utf8.INSTANCE))
    assert(SparkArrow.sparkField(large, "test", timeType = false).metadata.getString(SparkArrow.ArrowTypeKey) == "LargeList")
    val plain = field("p", ArrowType.List.INSTANCE, field("item", ArrowType.Utf8.INSTANCE))
    assert(!SparkArrow.sparkField(plain, "test", timeType = false).metadata.contains(SparkArrow.ArrowTypeKey))
  }

  test("struct members keep their own original Arrow types, times and timestamps among them") {
    val time = new ArrowType.Time(org.apache.arrow.vector.types.TimeUnit.MILLISECOND, 32)
    val nanos = new ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.NANOSECOND, null)
    val s = field("s", ArrowType.Struct.INSTANCE, field("t", time), field("ts", nanos), field("u", uint8),
      field("inner", ArrowType.Struct.INSTANCE, field("t2", time)), field("plain", ArrowType.Utf8.INSTANCE))
    Seq(false, true).foreach { timeType =>
      val st = SparkArrow.sparkField(s, "test", timeType).dataType.asInstanceOf[org.apache.spark.sql.types.StructType]
      def original(f: org.apache.spark.sql.types.StructField) = f.metadata.getString(SparkArrow.ArrowTypeKey)
      assert(original(st("t")) == time.toString, timeType)
      assert(original(st("ts")) == nanos.toString)
      assert(original(st("u")) == uint8.toString)
      assert(original(st("inner").dataType.asInstanceOf[org.apache.spark.sql.types.StructType]("t2")) == time.toString)
      assert(!st("plain").metadata.contains(SparkArrow.ArrowTypeKey))
      assert(st("t").dataType == (if (timeType) org.apache.spark.sql.types.TimeType(6) else org.apache.spark.sql.types.LongType))
    }
  }
}
