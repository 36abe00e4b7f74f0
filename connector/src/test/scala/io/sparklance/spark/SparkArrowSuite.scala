package io.sparklance.spark

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.types.FloatingPointPrecision
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType}
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.LanceField
import io.sparklance.spark.columns.ArrowColumns
import io.sparklance.spark.compat.SparkTime
import io.sparklance.testutil.ArrowData.{field, required}
import io.sparklance.testutil.{ArrowData, Canonical, Golden}
import io.sparklance.util.LanceException

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
    assert(f.metadata.getString(SparkArrow.LogicalTypeKey) == "fixed_size_list:float:4")
    val large = field("l", ArrowType.LargeList.INSTANCE, field("item", ArrowType.Utf8.INSTANCE))
    assert(SparkArrow.sparkField(large, "test", timeType = false).metadata.getString(SparkArrow.LogicalTypeKey) == "large_list")
    val plain = field("p", ArrowType.List.INSTANCE, field("item", ArrowType.Utf8.INSTANCE))
    assert(!SparkArrow.sparkField(plain, "test", timeType = false).metadata.contains(SparkArrow.LogicalTypeKey))
  }

  test("struct members keep their own original Arrow types, times and timestamps among them") {
    val time = new ArrowType.Time(org.apache.arrow.vector.types.TimeUnit.MILLISECOND, 32)
    val nanos = new ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.NANOSECOND, null)
    val s = field("s", ArrowType.Struct.INSTANCE, field("t", time), field("ts", nanos), field("u", uint8),
      field("inner", ArrowType.Struct.INSTANCE, field("t2", time)), field("plain", ArrowType.Utf8.INSTANCE))
    timeTypes.foreach { timeType =>
      val st = SparkArrow.sparkField(s, "test", timeType).dataType.asInstanceOf[org.apache.spark.sql.types.StructType]
      def original(f: org.apache.spark.sql.types.StructField) = f.metadata.getString(SparkArrow.LogicalTypeKey)
      assert(original(st("t")) == "time32:ms", timeType)
      assert(original(st("ts")) == "timestamp:ns:-")
      assert(original(st("u")) == "uint8")
      assert(original(st("inner").dataType.asInstanceOf[org.apache.spark.sql.types.StructType]("t2")) == "time32:ms")
      assert(!st("plain").metadata.contains(SparkArrow.LogicalTypeKey))
      assert(st("t").dataType == (if (timeType) SparkTime.micros else org.apache.spark.sql.types.LongType))
    }
  }

  // ---- the write direction: Spark schema (with the read side's metadata) to Arrow and Lance ----

  private val where = "test"
  private val store = new io.sparklance.storage.hadoop.HadoopObjectStore(new org.apache.hadoop.conf.Configuration())

  /** `f` without field metadata (Lance field metadata is not a type; Spark does not carry it). */
  private def bare(f: Field): Field =
    new Field(f.getName, new FieldType(f.isNullable, f.getType, f.getDictionary), f.getChildren.asScala.map(bare).asJava)

  private def tree(f: LanceField): Any = (f.id, f.name, f.logicalType, f.nullable, f.children.map(tree))

  /** The Spark field a Lance column reads as, then the Arrow field that is written back. */
  private def roundTrip(f: Field, timeType: Boolean): (StructField, Field) = {
    val sf = SparkArrow.sparkField(f, where, timeType)
    (sf, WriteSchema.field(sf, sf.name, where))
  }

  /** Reading with and without TIME, where the line has a TIME type at all (compat.SparkTime). */
  private val timeTypes: Seq[Boolean] = false +: Seq(true).filter(_ => SparkTime.supported)

  for (name <- Seq("types_v2_2", "types_v2_1", "types_v2_0", "types_legacy"); timeType <- timeTypes)
    test(s"$name${if (timeType) " (TIME enabled)" else ""}: every column read into Spark is written back as its Lance type") {
      val schema = io.sparklance.table.Snapshot.open(store, Golden.dataset(name).uri, None).manifest.schema
      val spark = StructType(schema.fields.map(f => SparkArrow.sparkField(f.toArrow(where), where, timeType, Some(f))))
      val arrow = WriteSchema.arrow(spark, where)
      schema.fields.zip(arrow.getFields.asScala).foreach { case (lf, af) =>
        assert(af == bare(lf.toArrow(where)), lf.name) // types, names and nullability at every depth
      }
      val lance = WriteSchema.lance(spark, where)
      schema.fields.zip(lance.fields).foreach { case (a, b) => assert(tree(b) == tree(a), a.name) } // ids too
      assert(lance.toArrow(where) == arrow)
      if (name == "types_v2_2") {
        assert(spark("dictionary_col").dataType == StringType)
        assert(spark("dictionary_col").metadata.getString(SparkArrow.LogicalTypeKey) == "dict:string:int32:false")
        assert(spark("uint32_col").metadata.getString(SparkArrow.LogicalTypeKey) == "uint32")
        assert(spark("decimal256_col").metadata.getString(SparkArrow.LogicalTypeKey) == "decimal:256:40:5")
        assert(spark("ts_ms_ny_col").metadata.getString(SparkArrow.LogicalTypeKey) == "timestamp:ms:America/New_York")
        assert(spark("fixed_binary_col").metadata.getString(SparkArrow.LogicalTypeKey) == "fixed_size_binary:16")
        // What Spark shows as itself records nothing.
        Seq("int32_col", "string_col", "ts_us_utc_col", "ts_us_col", "date32_col", "decimal128_col", "list_int32_col",
          "map_col", "struct_col", "duration_us_col", "null_col").foreach(c => assert(spark(c).metadata == Metadata.empty, c))
      }
    }

  private val u8 = new ArrowType.Int(8, false)
  private val u16 = new ArrowType.Int(16, false)
  private val i16 = new ArrowType.Int(16, true)
  private val utf8 = ArrowType.Utf8.INSTANCE
  private val float32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)
  private def entries(k: Field, v: Field) = new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), java.util.Arrays.asList(k, v))
  private def map(name: String, k: Field, v: Field) = field(name, new ArrowType.Map(false), entries(k, v))
  private def key(t: ArrowType, children: Field*) = required("key", t, children: _*)

  /** Types Spark lacks below list items and map keys and values, where Spark fields have no metadata of their own. */
  private val nested = Seq(
    field("list_u32", ArrowType.List.INSTANCE, field("item", uint32)) -> Map("lance.logical_type.element" -> "uint32"),
    field("list_list_u16", ArrowType.List.INSTANCE, field("item", ArrowType.LargeList.INSTANCE, field("item", u16))) ->
      Map("lance.logical_type.element" -> "large_list", "lance.logical_type.element.element" -> "uint16"),
    field("large_large", ArrowType.LargeList.INSTANCE, field("item", ArrowType.LargeUtf8.INSTANCE)) ->
      Map("lance.logical_type" -> "large_list", "lance.logical_type.element" -> "large_string"),
    map("map_u8_vec", key(u8), field("value", new ArrowType.FixedSizeList(3), field("item", float16))) ->
      Map("lance.logical_type.key" -> "uint8", "lance.logical_type.value" -> "fixed_size_list:halffloat:3"),
    map("map_list", key(utf8), field("value", ArrowType.List.INSTANCE, field("item", new ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.NANOSECOND, "UTC")))) ->
      Map("lance.logical_type.value.element" -> "timestamp:ns:UTC"),
    field("vec_of_vec", new ArrowType.FixedSizeList(3), field("item", new ArrowType.FixedSizeList(2), field("item", i16))) ->
      Map("lance.logical_type" -> "fixed_size_list:fixed_size_list:int16:2:3"),
    field("list_binary16", ArrowType.List.INSTANCE, field("item", new ArrowType.FixedSizeBinary(16))) ->
      Map("lance.logical_type.element" -> "fixed_size_binary:16"),
    field("not_null_items", ArrowType.List.INSTANCE, required("item", new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.MILLISECOND))) ->
      Map("lance.logical_type.element" -> "date64:ms"))

  nested.foreach { case (f, keys) =>
    test(s"${f.getName}: item, key and value types ride on the enclosing field and are written back") {
      Seq(false, true).foreach { timeType =>
        val (sf, back) = roundTrip(f, timeType)
        keys.foreach { case (k, v) => assert(sf.metadata.getString(k) == v, k) }
        assert(back == f)
      }
    }
  }

  test("struct members in lists and maps keep their own types and are written back") {
    val f = field("ls", ArrowType.List.INSTANCE, field("item", ArrowType.Struct.INSTANCE, field("x", u8),
      field("m", new ArrowType.Map(false), entries(key(utf8), field("value", ArrowType.Struct.INSTANCE,
        field("d", new ArrowType.Decimal(40, 5, 256)), field("t", new ArrowType.Time(org.apache.arrow.vector.types.TimeUnit.SECOND, 32)))))))
    timeTypes.foreach { timeType =>
      val (sf, back) = roundTrip(f, timeType)
      assert(sf.metadata == Metadata.empty)
      val item = sf.dataType.asInstanceOf[ArrayType].elementType.asInstanceOf[StructType]
      assert(item("x").metadata.getString(SparkArrow.LogicalTypeKey) == "uint8")
      val value = item("m").dataType.asInstanceOf[MapType].valueType.asInstanceOf[StructType]
      assert(value("d").dataType == StringType && value("d").metadata.getString(SparkArrow.LogicalTypeKey) == "decimal:256:40:5")
      assert(value("t").metadata.getString(SparkArrow.LogicalTypeKey) == "time32:s")
      assert(back == f)
    }
  }

  test("Spark types without metadata are written as their natural Arrow types") {
    import org.apache.arrow.vector.types.{DateUnit, TimeUnit}
    val cases: Seq[(DataType, Field)] = Seq(
      BooleanType -> field("c", ArrowType.Bool.INSTANCE),
      ByteType -> field("c", new ArrowType.Int(8, true)),
      ShortType -> field("c", i16),
      IntegerType -> field("c", new ArrowType.Int(32, true)),
      LongType -> field("c", new ArrowType.Int(64, true)),
      FloatType -> field("c", float32),
      DoubleType -> field("c", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      StringType -> field("c", utf8),
      BinaryType -> field("c", ArrowType.Binary.INSTANCE),
      DecimalType(38, 10) -> field("c", new ArrowType.Decimal(38, 10, 128)),
      DateType -> field("c", new ArrowType.Date(DateUnit.DAY)),
      TimestampType -> field("c", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
      TimestampNTZType -> field("c", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
      DayTimeIntervalType() -> field("c", new ArrowType.Duration(TimeUnit.MICROSECOND)),
      NullType -> field("c", ArrowType.Null.INSTANCE),
      ArrayType(StringType, containsNull = false) -> field("c", ArrowType.List.INSTANCE, required("item", utf8)),
      MapType(StringType, LongType) -> map("c", key(utf8), field("value", new ArrowType.Int(64, true))),
      StructType(Seq(StructField("a", IntegerType, nullable = false), StructField("b", ArrayType(FloatType)))) ->
        field("c", ArrowType.Struct.INSTANCE, required("a", new ArrowType.Int(32, true)),
          field("b", ArrowType.List.INSTANCE, field("item", float32)))) ++
      (if (SparkTime.supported) Seq(SparkTime.micros -> field("c", new ArrowType.Time(TimeUnit.MICROSECOND, 64))) else Nil)
    cases.foreach { case (dt, want) => assert(WriteSchema.field(StructField("c", dt), "c", where) == want, dt) }
    assert(WriteSchema.field(StructField("c", LongType, nullable = false), "c", where) == required("c", new ArrowType.Int(64, true)))
    val e = intercept[LanceException](WriteSchema.field(StructField("c", CalendarIntervalType), "c", where))
    assert(e.errorClass == "LANCE_UNSUPPORTED_FEATURE")
  }

  private def withMeta(dt: DataType, entries: (String, Any)*): StructField = {
    val b = new MetadataBuilder()
    entries.foreach {
      case (k, v: String) => b.putString(k, v)
      case (k, v: Long) => b.putLong(k, v)
      case (k, v: Int) => b.putLong(k, v.toLong)
      case (k, v) => fail(s"metadata $k = $v")
    }
    StructField("v", dt, nullable = true, b.build())
  }

  private def vectorOf(n: Int, item: ArrowType) = field("v", new ArrowType.FixedSizeList(n), field("item", item))

  test("an array of fixed-width numbers with a declared dimension is written as a vector") {
    val size = WriteSchema.VectorSizeKey
    assert(size == "arrow.fixed-size-list.size") // lance-spark's key
    assert(WriteSchema.field(withMeta(ArrayType(FloatType), size -> 128L), "v", where) == vectorOf(128, float32))
    // Items are nullable in a Lance vector whatever Spark says; the dimension may be a string.
    assert(WriteSchema.field(withMeta(ArrayType(DoubleType, containsNull = false), size -> "3"), "v", where) ==
      vectorOf(3, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)))
    assert(WriteSchema.field(withMeta(ArrayType(ByteType), size -> 4), "v", where) == vectorOf(4, new ArrowType.Int(8, true)))
    // The item type may itself be declared: a float16 or uint8 vector.
    assert(WriteSchema.field(withMeta(ArrayType(FloatType), size -> 8, "lance.logical_type.element" -> "halffloat"), "v", where) ==
      vectorOf(8, float16))
    assert(WriteSchema.field(withMeta(ArrayType(ShortType), size -> 2, "lance.logical_type.element" -> "uint8"), "v", where) ==
      vectorOf(2, u8))
    // Declared both ways, consistently.
    assert(WriteSchema.field(withMeta(ArrayType(FloatType), size -> 4, SparkArrow.LogicalTypeKey -> "fixed_size_list:float:4"), "v", where) ==
      vectorOf(4, float32))
    // In a struct, and through the Lance schema.
    val s = StructType(Seq(StructField("s", StructType(Seq(withMeta(ArrayType(FloatType), size -> 16L))))))
    assert(WriteSchema.lance(s, where).fields.head.children.head.logicalType == "fixed_size_list:float:16")
  }

  private def errorClass(f: => Any): String = intercept[LanceException](f).errorClass

  test("metadata that contradicts the Spark type is refused") {
    val lt = SparkArrow.LogicalTypeKey
    val size = WriteSchema.VectorSizeKey
    def write(sf: StructField) = WriteSchema.arrow(StructType(Seq(sf)), where)
    Seq(
      withMeta(StringType, lt -> "fixed_size_list:float:128"),
      withMeta(ArrayType(DoubleType), lt -> "fixed_size_list:float:128"),
      withMeta(IntegerType, lt -> "uint32"), // uint32 reads as bigint
      withMeta(TimestampNTZType, lt -> "timestamp:ns:UTC"),
      withMeta(TimestampType, lt -> "timestamp:ns:-"),
      withMeta(MapType(StringType, StringType), lt -> "large_list"),
      withMeta(ArrayType(StringType), lt -> "struct"),
      withMeta(StringType, lt -> "list"),
      withMeta(ArrayType(LongType), "lance.logical_type.element" -> "uint8"),
      withMeta(StringType, size -> 4L),
      withMeta(ArrayType(StringType), size -> 4L),
      withMeta(ArrayType(FloatType), size -> 4L, lt -> "fixed_size_list:float:8"),
      withMeta(ArrayType(FloatType), size -> 4L, lt -> "large_list"),
      StructField("s", StructType(Seq(withMeta(DateType, lt -> "date32:day"), withMeta(BinaryType, lt -> "decimal:128:10:2"))))
    ).foreach(sf => assert(errorClass(write(sf)) == "LANCE_COLUMN_TYPE_MISMATCH", sf))
    Seq(
      withMeta(LongType, lt -> "uint33"),
      withMeta(LongType, lt -> "fixed_size_list:float:0"),
      withMeta(LongType, lt -> 5L),
      withMeta(LongType, "lance.logical_type.element" -> "uint8"), // no array here
      withMeta(ArrayType(FloatType), size -> 0L),
      withMeta(ArrayType(FloatType), size -> "many"),
      withMeta(ArrayType(FloatType), size -> (1L << 31))
    ).foreach(sf => assert(errorClass(write(sf)) == "LANCE_INVALID_COLUMN_METADATA", sf))
  }

  test("vector lengths are checked per batch, at any depth") {
    val target = WriteSchema.field(withMeta(ArrayType(FloatType), WriteSchema.VectorSizeKey -> 3L), "v", where)
    val list = field("v", ArrowType.List.INSTANCE, field("item", float32))
    def check(f: Field, target: Field, rows: IndexedSeq[Any]): Unit = {
      val v = ArrowData.vector(f, rows, allocator)
      try WriteSchema.checkVectorSizes(v, target, where) finally v.close()
    }
    check(list, target, IndexedSeq(Seq(1f, 2f, 3f), null, Seq(4f, null, 6f)))
    check(list, target, IndexedSeq.empty)
    assert(errorClass(check(list, target, IndexedSeq(Seq(1f, 2f, 3f), null, Seq(4f, 5f)))) == "LANCE_VECTOR_DIMENSION_MISMATCH")
    assert(errorClass(check(list, target, IndexedSeq(Seq.empty[Float]))) == "LANCE_VECTOR_DIMENSION_MISMATCH")
    // Vectors as array items and as struct members.
    val listOfLists = field("v", ArrowType.List.INSTANCE, field("item", ArrowType.List.INSTANCE, field("item", float32)))
    val nestedTarget = WriteSchema.field(withMeta(ArrayType(ArrayType(FloatType)), "lance.logical_type.element" -> "fixed_size_list:float:2"), "v", where)
    check(listOfLists, nestedTarget, IndexedSeq(Seq(Seq(1f, 2f), Seq(3f, 4f)), Seq()))
    assert(errorClass(check(listOfLists, nestedTarget, IndexedSeq(Seq(Seq(1f, 2f)), Seq(Seq(3f, 4f, 5f))))) == "LANCE_VECTOR_DIMENSION_MISMATCH")
    val struct = field("s", ArrowType.Struct.INSTANCE, field("v", ArrowType.List.INSTANCE, field("item", float32)))
    val structTarget = WriteSchema.field(StructField("s", StructType(Seq(withMeta(ArrayType(FloatType), WriteSchema.VectorSizeKey -> 2L)))), "s", where)
    check(struct, structTarget, IndexedSeq(Seq(Seq(1f, 2f)), null))
    assert(errorClass(check(struct, structTarget, IndexedSeq(Seq(Seq(1f))))) == "LANCE_VECTOR_DIMENSION_MISMATCH")
  }
}
