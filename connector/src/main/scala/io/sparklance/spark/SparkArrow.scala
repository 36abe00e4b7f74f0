package io.sparklance.spark

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector._
import org.apache.arrow.vector.ipc.message.ArrowFieldNode
import org.apache.arrow.vector.types.{DateUnit, FloatingPointPrecision, IntervalUnit, TimeUnit}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType}
import org.apache.spark.sql.types._

import io.sparklance.format.HalfFloat
import io.sparklance.format.arrow.ArrowVectors
import io.sparklance.format.{LanceField, LogicalType}
import io.sparklance.spark.compat.SparkTime
import io.sparklance.util.Errors

// Lance columns are Arrow vectors; Spark reads them through our columns (columns.ArrowColumns),
// which read Spark's own value representations in place. This maps every Lance column to the
// nearest Spark type and converts the vectors whose values differ from Spark's (unsigned ints,
// float16, non-micro timestamps, time, durations, fixed-size binary, 256-bit decimals) into
// ones that match. Fixed-size and large lists are read in place as arrays. The original type
// is kept in the Spark field's metadata as a Lance logical type (`LogicalTypeKey`), so that a
// write restores it (WriteSchema).
//
// Times of day: Spark 4.2's TimeType is refused by a default session (counting or filtering
// a table with one fails with UNSUPPORTED_TIME_TYPE unless spark.sql.timeType.enabled), so
// `timeType` says whether the session takes it. Without it, times read as LongType
// microseconds since midnight: the unit of every other temporal type here and the precision
// of TIME(6), lossless for time32[s|ms] and time64[us]; time64[ns] is floored to
// microseconds as nanosecond timestamps are.

object SparkArrow {
  /**
   * The Spark field metadata key of a column's original Lance logical type (`uint32`,
   * `fixed_size_list:float:128`, `timestamp:ns:UTC`, ...): the strings a Lance schema stores
   * (rust/lance-core/src/datatypes.rs), so they stay stable across Arrow versions.
   */
  val LogicalTypeKey = "lance.logical_type"

  /** The key for the type at `path` below a field: "" itself, "element" its array's items, "value.element", ... */
  def logicalTypeKey(path: String): String = if (path.isEmpty) LogicalTypeKey else s"$LogicalTypeKey.$path"

  /** The Arrow field whose values are Spark's that `f` is converted to (often `f` itself). */
  def readable(f: Field, timeType: Boolean): Field = {
    val children = f.getChildren.asScala.map(readable(_, timeType)).asJava
    def as(t: ArrowType, ch: java.util.List[Field] = children): Field =
      new Field(f.getName, new FieldType(f.isNullable, t, null, f.getMetadata), ch)
    f.getType match {
      case i: ArrowType.Int if !i.getIsSigned => i.getBitWidth match {
        case 8 => as(new ArrowType.Int(16, true))
        case 16 => as(new ArrowType.Int(32, true))
        case 32 => as(new ArrowType.Int(64, true))
        case _ => as(new ArrowType.Decimal(20, 0, 128))
      }
      case fp: ArrowType.FloatingPoint if fp.getPrecision == FloatingPointPrecision.HALF =>
        as(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))
      case d: ArrowType.Decimal if d.getBitWidth == 256 =>
        if (d.getPrecision <= 38) as(new ArrowType.Decimal(d.getPrecision, d.getScale, 128)) else as(ArrowType.Utf8.INSTANCE)
      case _: ArrowType.FixedSizeBinary => as(ArrowType.Binary.INSTANCE)
      case d: ArrowType.Date if d.getUnit == DateUnit.MILLISECOND => as(new ArrowType.Date(DateUnit.DAY))
      case t: ArrowType.Timestamp if t.getUnit != TimeUnit.MICROSECOND => as(new ArrowType.Timestamp(TimeUnit.MICROSECOND, t.getTimezone))
      case _: ArrowType.Time =>
        if (timeType) as(new ArrowType.Time(TimeUnit.NANOSECOND, 64)) else as(new ArrowType.Int(64, true))
      case d: ArrowType.Duration if d.getUnit != TimeUnit.MICROSECOND => as(new ArrowType.Duration(TimeUnit.MICROSECOND))
      case _ => as(f.getType)
    }
  }

  /**
   * The Spark field of a Lance column: `f` is its Arrow field, `lance` its Lance field where
   * known (only it tells a dictionary-typed column from its values). Where Spark shows a type
   * that is not the original (see WriteSchema.naturalLogicalType), the field's metadata keeps
   * the original Lance logical type.
   */
  def sparkField(f: Field, where: String, timeType: Boolean, lance: Option[LanceField] = None): StructField =
    member(f, readable(f, timeType), lance, where)

  private def member(f: Field, r: Field, lance: Option[LanceField], where: String): StructField = {
    val dataType = dataTypeOf(f, r, lance, where)
    val meta = new MetadataBuilder()
    recordOriginals(f, lance, dataType, "", meta, where)
    StructField(f.getName, dataType, f.isNullable, meta.build())
  }

  /** The Spark type of `f` read as `r`: `sparkType(r)`, its struct members (at any depth) with their originals. */
  private def dataTypeOf(f: Field, r: Field, lance: Option[LanceField], where: String): DataType = r.getType match {
    case _: ArrowType.Struct => StructType(children(f, r, lance).map { case (fc, rc, lc) => member(fc, rc, lc, where) })
    case _: ArrowType.List | _: ArrowType.FixedSizeList | _: ArrowType.LargeList =>
      val (fi, ri, li) = children(f, r, lance).head
      ArrayType(dataTypeOf(fi, ri, li, where), ri.isNullable)
    case _: ArrowType.Map =>
      val (fe, re, le) = children(f, r, lance).head
      val kv = children(fe, re, le)
      val ((fk, rk, lk), (fv, rv, lv)) = (kv(0), kv(1))
      MapType(dataTypeOf(fk, rk, lk, where), dataTypeOf(fv, rv, lv, where), rv.isNullable)
    case _ => sparkType(r, where)
  }

  /** The children of `f`, of its readable form `r` and of its Lance field (fixed-size lists have none there). */
  private def children(f: Field, r: Field, lance: Option[LanceField]): Seq[(Field, Field, Option[LanceField])] =
    f.getChildren.asScala.zip(r.getChildren.asScala).zipWithIndex.map { case ((fc, rc), i) =>
      (fc, rc, lance.flatMap(_.children.lift(i)).filter(_.name == fc.getName))
    }.toSeq

  /**
   * Puts the logical type of `f` (shown as `dt`) under the key of `path` where Spark's type
   * would be written back as another, then does the same for list items and map keys and
   * values, which have no Spark field of their own. Struct members record on their own
   * fields; a fixed-size list's logical type names its items.
   */
  private def recordOriginals(f: Field, lance: Option[LanceField], dt: DataType, path: String, meta: MetadataBuilder, where: String): Unit = {
    val original = lance.map(_.logicalType).filter(_.startsWith("dict:")).getOrElse(LogicalType.of(f, where))
    if (original != WriteSchema.naturalLogicalType(dt, where)) meta.putString(logicalTypeKey(path), original)
    def below(role: String) = if (path.isEmpty) role else s"$path.$role"
    (f.getType, dt) match {
      case (_: ArrowType.List | _: ArrowType.LargeList, a: ArrayType) =>
        val (item, _, lanceItem) = children(f, f, lance).head
        recordOriginals(item, lanceItem, a.elementType, below("element"), meta, where)
      case (_: ArrowType.Map, m: MapType) =>
        val (entries, _, lanceEntries) = children(f, f, lance).head
        val kv = children(entries, entries, lanceEntries)
        val ((k, _, lk), (v, _, lv)) = (kv(0), kv(1))
        recordOriginals(k, lk, m.keyType, below("key"), meta, where)
        recordOriginals(v, lv, m.valueType, below("value"), meta, where)
      case _ => ()
    }
  }

  /** The Spark type of a readable Arrow field (as `readable` returns). */
  def sparkType(f: Field, where: String): DataType = f.getType match {
    case _: ArrowType.Bool => BooleanType
    case i: ArrowType.Int => i.getBitWidth match { case 8 => ByteType; case 16 => ShortType; case 32 => IntegerType; case _ => LongType }
    case fp: ArrowType.FloatingPoint => if (fp.getPrecision == FloatingPointPrecision.SINGLE) FloatType else DoubleType
    case _: ArrowType.Utf8 | _: ArrowType.LargeUtf8 => StringType
    case _: ArrowType.Binary | _: ArrowType.LargeBinary => BinaryType
    case d: ArrowType.Decimal => DecimalType(d.getPrecision, d.getScale)
    case _: ArrowType.Date => DateType
    case t: ArrowType.Timestamp => if (t.getTimezone == null) TimestampNTZType else TimestampType
    case _: ArrowType.Time => SparkTime.micros
    case _: ArrowType.Duration => DayTimeIntervalType()
    case _: ArrowType.Null => NullType
    case _: ArrowType.List | _: ArrowType.FixedSizeList | _: ArrowType.LargeList =>
      val item = f.getChildren.get(0)
      ArrayType(sparkType(item, where), item.isNullable)
    case _: ArrowType.Map =>
      val entries = f.getChildren.get(0)
      val (k, v) = (entries.getChildren.get(0), entries.getChildren.get(1))
      MapType(sparkType(k, where), sparkType(v, where), v.isNullable)
    // Members are readable already, their original types unknown here (see `member`).
    case _: ArrowType.Struct => StructType(f.getChildren.asScala.map(c => StructField(c.getName, sparkType(c, where), c.isNullable)).toSeq)
    case other => throw Errors.unsupported(s"column '${f.getName}' of Arrow type $other in Spark", where)
  }

  /** `v` as a vector of `readable(v.getField, timeType)`; converted vectors replace (and close) `v`. */
  def convert(v: FieldVector, allocator: BufferAllocator, timeType: Boolean): FieldVector = {
    val target = readable(v.getField, timeType)
    if (target == v.getField) v
    else try convertTo(v, target, allocator) finally v.close()
  }

  /** A new vector of field `target` with the values of `v` (which the caller still owns). */
  private def convertTo(v: FieldVector, target: Field, allocator: BufferAllocator): FieldVector = {
    if (target == v.getField) {
      val copy = ArrowVectors.create(target, allocator)
      v.makeTransferPair(copy).transfer()
      return copy
    }
    val out = ArrowVectors.create(target, allocator)
    val n = v.getValueCount
    try {
      if (v.getClass == out.getClass && !v.getChildrenFromFields.isEmpty) {
        // A struct, list or map whose members change: it keeps its own buffers (validity,
        // offsets), which the members' item positions refer to, and gets converted members.
        out.loadFieldBuffers(new ArrowFieldNode(n, v.getNullCount), v.getFieldBuffers)
        v.getChildrenFromFields.asScala.zipWithIndex.foreach { case (c, k) =>
          val conv = convertTo(c, target.getChildren.get(k), allocator)
          try conv.makeTransferPair(out.getChildrenFromFields.get(k)).transfer() finally conv.close()
        }
      } else {
        out.setInitialCapacity(n)
        out.allocateNew()
        try { (0 until n).foreach(i => if (!v.isNull(i)) copyScalar(v, i, out)) }
        catch {
          // Seconds or milliseconds past what a Long of microseconds holds (about 292,000 years).
          case e: ArithmeticException => throw Errors.unsupported(
            s"a value of Arrow type ${v.getField.getType} beyond the range of Spark's microsecond ${target.getType} (${e.getMessage})",
            s"column '${v.getName}'")
        }
        out.setValueCount(n)
      }
      out
    } catch { case t: Throwable => out.close(); throw t }
  }

  private val microsPer: Map[TimeUnit, Long] =
    Map(TimeUnit.SECOND -> 1000000L, TimeUnit.MILLISECOND -> 1000L, TimeUnit.MICROSECOND -> 1L)

  /** Converts one non-null value of a primitive vector. */
  private def copyScalar(src: FieldVector, i: Int, out: FieldVector): Unit = (src, out) match {
    case (s: UInt1Vector, o: SmallIntVector) => o.set(i, (s.get(i) & 0xff).toShort)
    case (s: UInt2Vector, o: IntVector) => o.set(i, s.get(i).toInt)
    case (s: UInt4Vector, o: BigIntVector) => o.set(i, s.get(i) & 0xffffffffL)
    case (s: UInt8Vector, o: DecimalVector) =>
      o.set(i, new java.math.BigDecimal(new java.math.BigInteger(java.lang.Long.toUnsignedString(s.get(i)))))
    case (s: BaseFixedWidthVector, o: Float4Vector) if s.getTypeWidth == 2 => o.set(i, HalfFloat.toFloat(s.getDataBuffer.getShort(i.toLong * 2)))
    case (s: Decimal256Vector, o: DecimalVector) => o.set(i, s.getObject(i))
    case (s: Decimal256Vector, o: VarCharVector) => o.setSafe(i, s.getObject(i).toPlainString.getBytes("UTF-8"))
    case (s: FixedSizeBinaryVector, o: VarBinaryVector) => o.setSafe(i, s.get(i))
    case (s: DateMilliVector, o: DateDayVector) => o.set(i, Math.floorDiv(s.get(i), 86400000L).toInt)
    case (s: TimeStampVector, o: TimeStampVector) =>
      val unit = s.getField.getType.asInstanceOf[ArrowType.Timestamp].getUnit
      o.set(i, if (unit == TimeUnit.NANOSECOND) Math.floorDiv(s.get(i), 1000L) else Math.multiplyExact(s.get(i), microsPer(unit)))
    case (s: TimeSecVector, o: TimeNanoVector) => o.set(i, s.get(i) * 1000000000L)
    case (s: TimeMilliVector, o: TimeNanoVector) => o.set(i, s.get(i) * 1000000L)
    case (s: TimeMicroVector, o: TimeNanoVector) => o.set(i, s.get(i) * 1000L)
    case (s: TimeSecVector, o: BigIntVector) => o.set(i, s.get(i) * 1000000L)
    case (s: TimeMilliVector, o: BigIntVector) => o.set(i, s.get(i) * 1000L)
    case (s: TimeMicroVector, o: BigIntVector) => o.set(i, s.get(i))
    case (s: TimeNanoVector, o: BigIntVector) => o.set(i, Math.floorDiv(s.get(i), 1000L))
    case (s: DurationVector, o: DurationVector) =>
      val unit = s.getUnit
      val raw = DurationVector.get(s.getDataBuffer, i)
      o.set(i, if (unit == TimeUnit.NANOSECOND) Math.floorDiv(raw, 1000L) else Math.multiplyExact(raw, microsPer(unit)))
    case _ => throw Errors.unsupported(s"converting Arrow ${src.getField.getType} to ${out.getField.getType}", src.getName)
  }
}
