package io.sparklance.spark.write

import scala.annotation.switch
import scala.jdk.CollectionConverters._

import org.apache.arrow.vector._
import org.apache.arrow.vector.complex.{FixedSizeListVector, LargeListVector, ListVector, MapVector, StructVector}
import org.apache.arrow.vector.types.{DateUnit, FloatingPointPrecision, TimeUnit}
import org.apache.arrow.vector.types.pojo.ArrowType
import org.apache.arrow.vector.util.DecimalUtility
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{SpecializedGetters, UnsafeArrayData, UnsafeRow}
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.Platform

import io.sparklance.format.HalfFloat
import io.sparklance.format.LogicalType
import io.sparklance.spark.compat.SparkTime
import io.sparklance.util.Errors

// One writer per Arrow field, from Spark's value of the type the read side shows for it
// (spark.SparkArrow.readable), back to the original:
//   unsigned ints from the next wider signed type (uint64 from decimal(20,0)), range-checked;
//   halffloat from float (rounded to the nearest half, ties to even: format.HalfFloat);
//   timestamps, durations and times from Spark's microseconds (times also from TIME's
//   nanoseconds), to any unit: a coarser unit floors, as Spark's Parquet writer floors
//   micros to millis (DateTimeUtils.microsToMillis); a finer one must not overflow;
//   date64 from days; fixed-size binary from binary of exactly its width; decimal256 from a
//   decimal or, above 38 digits, from its exact string; fixed-size lists from arrays of
//   exactly their size (the rule of WriteSchema.checkVectorSizes, and its error);
//   large strings, binaries and lists as the small ones, with 64-bit offsets;
//   dictionary-typed columns as their values (the file writer builds the dictionary).
// A null where the table's field is not nullable is an error naming the column; a null
// parent (struct, fixed-size list) fills its members with nulls without that check, since
// they hold no value.

private[write] abstract class FieldWriter(context: WriteContext, column: String, lanceType: String, nullable: Boolean) {
  def vector: FieldVector
  /** Values written into `vector` since the last reset: the index of the next one. */
  protected var count = 0

  /** Writes value `ordinal` of `in` (a row, an array, a struct). */
  final def write(in: SpecializedGetters, ordinal: Int): Unit = {
    if (in.isNullAt(ordinal)) {
      if (!nullable) throw Errors.nullInNonNullable(context.where, column, context.row)
      setNull(count)
    } else setValue(in, ordinal, count)
    count += 1
  }

  /** A slot under a null parent: null whatever the field's nullability, as there is no value. */
  final def writeAbsent(): Unit = { setNull(count); count += 1 }

  protected def setNull(i: Int): Unit = vector.setNull(i)
  protected def setValue(in: SpecializedGetters, ordinal: Int, i: Int): Unit

  def finish(): Unit = vector.setValueCount(count)
  def reset(): Unit = { vector.reset(); count = 0 }

  protected final def outOfRange(value: String, allowed: String) =
    Errors.valueOutOfRange(context.where, column, context.row, value, lanceType, allowed)
  protected final def addBytes(n: Long): Unit = context.bytes += n
}

private[write] object FieldWriters {

  /** The writer of `v`'s field from Spark values of type `dt`; `column` names it in errors. */
  def create(v: FieldVector, dt: DataType, column: String, context: WriteContext): FieldWriter = {
    val f = v.getField
    val lanceType = LogicalType.of(f, context.where)
    val nullable = f.isNullable
    def mismatch = Errors.writeTypeMismatch(context.where, column, lanceType, dt.simpleString)
    def child(cv: FieldVector, cdt: DataType, name: String) = create(cv, cdt, s"$column.$name", context)
    (f.getType, dt) match {
      case (_: ArrowType.Bool, BooleanType) => new BoolWriter(v.asInstanceOf[BitVector], context, column, lanceType, nullable)
      case (i: ArrowType.Int, ByteType | ShortType | IntegerType | LongType) =>
        new IntWriter(v.asInstanceOf[BaseFixedWidthVector], i.getBitWidth, i.getIsSigned, dt.defaultSize, context, column, lanceType, nullable)
      case (i: ArrowType.Int, d: DecimalType) if i.getBitWidth == 64 && !i.getIsSigned && d.scale == 0 =>
        new UInt64Writer(v.asInstanceOf[UInt8Vector], d, context, column, lanceType, nullable)
      case (fp: ArrowType.FloatingPoint, FloatType) if fp.getPrecision == FloatingPointPrecision.HALF =>
        new HalfFloatWriter(v.asInstanceOf[BaseFixedWidthVector], context, column, lanceType, nullable)
      case (fp: ArrowType.FloatingPoint, FloatType) if fp.getPrecision == FloatingPointPrecision.SINGLE =>
        new FloatWriter(v.asInstanceOf[Float4Vector], context, column, lanceType, nullable)
      case (fp: ArrowType.FloatingPoint, DoubleType) if fp.getPrecision == FloatingPointPrecision.DOUBLE =>
        new DoubleWriter(v.asInstanceOf[Float8Vector], context, column, lanceType, nullable)
      case (_: ArrowType.Utf8 | _: ArrowType.LargeUtf8, _: StringType) =>
        new StringWriter(v, offsetWidth(f.getType), context, column, lanceType, nullable)
      case (_: ArrowType.Binary | _: ArrowType.LargeBinary, BinaryType) =>
        new BinaryWriter(v, offsetWidth(f.getType), context, column, lanceType, nullable)
      case (b: ArrowType.FixedSizeBinary, BinaryType) =>
        new FixedBinaryWriter(v.asInstanceOf[FixedSizeBinaryVector], b.getByteWidth, context, column, lanceType, nullable)
      case (d: ArrowType.Decimal, in: DecimalType) =>
        new DecimalWriter(v.asInstanceOf[BaseFixedWidthVector], d, in, context, column, lanceType, nullable)
      case (d: ArrowType.Decimal, _: StringType) if d.getBitWidth == 256 =>
        new DecimalStringWriter(v.asInstanceOf[BaseFixedWidthVector], d, context, column, lanceType, nullable)
      case (d: ArrowType.Date, DateType) =>
        // Spark's dates are the int days of date32.
        if (d.getUnit == DateUnit.DAY) new IntWriter(v.asInstanceOf[BaseFixedWidthVector], 32, true, 4, context, column, lanceType, nullable)
        else new DateMilliWriter(v.asInstanceOf[DateMilliVector], context, column, lanceType, nullable)
      case (t: ArrowType.Timestamp, TimestampType | TimestampNTZType) if (t.getTimezone == null) == (dt == TimestampNTZType) =>
        new TickWriter(v.asInstanceOf[BaseFixedWidthVector], 8, TickWriter.Micros, ticksPerSecond(t.getUnit), false, context, column, lanceType, nullable)
      case (d: ArrowType.Duration, _: DayTimeIntervalType) =>
        new TickWriter(v.asInstanceOf[BaseFixedWidthVector], 8, TickWriter.Micros, ticksPerSecond(d.getUnit), false, context, column, lanceType, nullable)
      case (t: ArrowType.Time, LongType | SparkTime()) =>
        // Spark's TIME holds nanoseconds since midnight; a bigint time column microseconds (SparkArrow).
        val in = if (dt == LongType) TickWriter.Micros else TickWriter.Nanos
        new TickWriter(v.asInstanceOf[BaseFixedWidthVector], t.getBitWidth / 8, in, ticksPerSecond(t.getUnit), true, context, column, lanceType, nullable)
      case (_: ArrowType.Null, NullType) => new NullWriter(v, context, column, lanceType)
      case (_: ArrowType.List, a: ArrayType) =>
        val l = v.asInstanceOf[ListVector]
        new ListWriter(l, child(l.getDataVector, a.elementType, "element"), context, column, lanceType, nullable)
      case (_: ArrowType.LargeList, a: ArrayType) =>
        val l = v.asInstanceOf[LargeListVector]
        new LargeListWriter(l, child(l.getDataVector, a.elementType, "element"), context, column, lanceType, nullable)
      case (fsl: ArrowType.FixedSizeList, a: ArrayType) =>
        val l = v.asInstanceOf[FixedSizeListVector]
        new FixedSizeListWriter(l, fsl.getListSize, child(l.getDataVector, a.elementType, "element"), context, column, lanceType, nullable)
      case (_: ArrowType.Struct, s: StructType) if s.length == f.getChildren.size =>
        val sv = v.asInstanceOf[StructVector]
        val members = s.fields.indices.map(k => child(sv.getChildByOrdinal(k).asInstanceOf[FieldVector], s(k).dataType, f.getChildren.get(k).getName))
        new StructWriter(sv, members.toArray, context, column, lanceType, nullable)
      case (_: ArrowType.Map, m: MapType) =>
        val mv = v.asInstanceOf[MapVector]
        val entries = mv.getDataVector.asInstanceOf[StructVector]
        new MapWriter(mv, entries, child(entries.getChildByOrdinal(0).asInstanceOf[FieldVector], m.keyType, "key"),
          child(entries.getChildByOrdinal(1).asInstanceOf[FieldVector], m.valueType, "value"), context, column, lanceType, nullable)
      case _ => throw mismatch
    }
  }

  private def offsetWidth(t: ArrowType): Int = t match {
    case _: ArrowType.LargeUtf8 | _: ArrowType.LargeBinary | _: ArrowType.LargeList => 8
    case _ => 4
  }

  private def ticksPerSecond(u: TimeUnit): Long = u match {
    case TimeUnit.SECOND => 1L
    case TimeUnit.MILLISECOND => 1000L
    case TimeUnit.MICROSECOND => 1000000L
    case TimeUnit.NANOSECOND => 1000000000L
  }

  /** Puts `x` as a `width`-byte little-endian value at slot `i` of `v`, growing it as needed and marking the slot valid. */
  def putFixed(v: BaseFixedWidthVector, width: Int, i: Int, x: Long): Unit = {
    v.setIndexDefined(i)
    val buf = v.getDataBuffer
    (width: @switch) match {
      case 1 => buf.setByte(i.toLong, x.toInt)
      case 2 => buf.setShort(i.toLong * 2, x.toShort)
      case 4 => buf.setInt(i.toLong * 4, x.toInt)
      case _ => buf.setLong(i.toLong * 8, x)
    }
  }
}

private final class BoolWriter(val vector: BitVector, c: WriteContext, col: String, lt: String, nullable: Boolean)
    extends FieldWriter(c, col, lt, nullable) {
  protected def setValue(in: SpecializedGetters, o: Int, i: Int): Unit = { vector.setSafe(i, if (in.getBoolean(o)) 1 else 0); addBytes(1) }
}

/** Any Arrow integer from a Spark integral of `inputBytes` bytes, checked against the Arrow type's range where it is narrower. */
private final class IntWriter(val vector: BaseFixedWidthVector, bits: Int, signed: Boolean, inputBytes: Int,
    c: WriteContext, col: String, lt: String, nullable: Boolean) extends FieldWriter(c, col, lt, nullable) {
  private val width = bits / 8
  private val min = if (signed) -(1L << (bits - 1)) else 0L
  private val max = if (signed) (1L << (bits - 1)) - 1 else if (bits == 64) Long.MaxValue else (1L << bits) - 1
  private val inputMax = if (inputBytes == 8) Long.MaxValue else (1L << (inputBytes * 8 - 1)) - 1
  private val checked = min > -inputMax - 1 || max < inputMax

  protected def setValue(in: SpecializedGetters, o: Int, i: Int): Unit = {
    val x: Long = (inputBytes: @switch) match {
      case 1 => in.getByte(o)
      case 2 => in.getShort(o)
      case 4 => in.getInt(o)
      case _ => in.getLong(o)
    }
    if (checked && (x < min || x > max)) throw outOfRange(x.toString, s"integers from $min to $max")
    FieldWriters.putFixed(vector, width, i, x)
    addBytes(width)
  }
}

/** uint64 from Spark's decimal(20,0): 0 to 2^64 - 1, stored as the two's complement of its low 64 bits. */
private final class UInt64Writer(val vector: UInt8Vector, in: DecimalType, c: WriteContext, col: String, lt: String, nullable: Boolean)
    extends FieldWriter(c, col, lt, nullable) {
  protected def setValue(g: SpecializedGetters, o: Int, i: Int): Unit = {
    val d = g.getDecimal(o, in.precision, in.scale)
    val x =
      if (d.precision <= Decimal.MAX_LONG_DIGITS && d.scale == 0) {
        val l = d.toUnscaledLong
        if (l < 0) throw outOfRange(d.toString, "integers from 0 to 18446744073709551615")
        l
      } else {
        val b = d.toJavaBigDecimal
        val n = try b.toBigIntegerExact catch { case _: ArithmeticException => throw outOfRange(d.toString, "integers from 0 to 18446744073709551615") }
        if (n.signum < 0 || n.bitLength > 64) throw outOfRange(d.toString, "integers from 0 to 18446744073709551615")
        n.longValue
      }
    FieldWriters.putFixed(vector, 8, i, x)
    addBytes(8)
  }
}

private final class HalfFloatWriter(val vector: BaseFixedWidthVector, c: WriteContext, col: String, lt: String, nullable: Boolean)
    extends FieldWriter(c, col, lt, nullable) {
  protected def setValue(in: SpecializedGetters, o: Int, i: Int): Unit = {
    FieldWriters.putFixed(vector, 2, i, HalfFloat.fromFloat(in.getFloat(o)).toLong)
    addBytes(2)
  }
}

private final class FloatWriter(val vector: Float4Vector, c: WriteContext, col: String, lt: String, nullable: Boolean)
    extends FieldWriter(c, col, lt, nullable) {
  protected def setValue(in: SpecializedGetters, o: Int, i: Int): Unit = { vector.setSafe(i, in.getFloat(o)); addBytes(4) }
}

private final class DoubleWriter(val vector: Float8Vector, c: WriteContext, col: String, lt: String, nullable: Boolean)
    extends FieldWriter(c, col, lt, nullable) {
  protected def setValue(in: SpecializedGetters, o: Int, i: Int): Unit = { vector.setSafe(i, in.getDouble(o)); addBytes(8) }
}

/**
 * A variable-width value copied from Spark's bytes: straight out of an on-heap UnsafeRow or
 * UnsafeArrayData (UnsafeValues), else through the getter (`putFrom`).
 */
private abstract class BytesWriter(c: WriteContext, col: String, lt: String, nullable: Boolean) extends FieldWriter(c, col, lt, nullable) {
  /** Stores bytes `[start, start + n)` of `bytes` as value `i`. */
  protected def put(bytes: Array[Byte], start: Int, n: Int, i: Int): Unit
  /** Stores value `o` of `g` as value `i`, through the getter. */
  protected def putFrom(g: SpecializedGetters, o: Int, i: Int): Unit

  protected final def setValue(g: SpecializedGetters, o: Int, i: Int): Unit = {
    val base = UnsafeValues.heapBase(g)
    if (base == null) putFrom(g, o, i)
    else {
      val offsetAndSize = g.getLong(o)
      put(base, UnsafeValues.start(g, offsetAndSize), UnsafeValues.size(offsetAndSize), i)
    }
  }
}

/**
 * `setSafe` of a string or binary vector, 32- or 64-bit offsets: the two classes share no
 * interface before Arrow 15 (VariableWidthFieldVector), and Spark 3.5 ships Arrow 12.
 */
private trait SetBytes { def apply(i: Int, bytes: Array[Byte], start: Int, n: Int): Unit }

private object SetBytes {
  def of(v: FieldVector): SetBytes = v match {
    case s: BaseVariableWidthVector => (i, bytes, start, n) => s.setSafe(i, bytes, start, n)
    case l: BaseLargeVariableWidthVector => (i, bytes, start, n) => l.setSafe(i, bytes, start, n)
    case other => throw new IllegalStateException(s"not a string or binary vector: ${other.getClass.getName}")
  }
}

/** utf8 and large_utf8 from Spark strings. */
private final class StringWriter(val vector: FieldVector, offsetBytes: Int, c: WriteContext, col: String, lt: String, nullable: Boolean)
    extends BytesWriter(c, col, lt, nullable) {
  private val setBytes = SetBytes.of(vector)
  private var scratch = new Array[Byte](64)
  protected def put(bytes: Array[Byte], start: Int, n: Int, i: Int): Unit = {
    setBytes(i, bytes, start, n)
    addBytes(n.toLong + offsetBytes)
  }
  protected def putFrom(g: SpecializedGetters, o: Int, i: Int): Unit = {
    val s = g.getUTF8String(o)
    val n = s.numBytes
    s.getBaseObject match {
      case bytes: Array[Byte] => put(bytes, (s.getBaseOffset - Platform.BYTE_ARRAY_OFFSET).toInt, n, i)
      case _ => // off-heap: through a buffer kept across values
        if (scratch.length < n) scratch = new Array[Byte](math.max(n, scratch.length * 2))
        s.writeToMemory(scratch, Platform.BYTE_ARRAY_OFFSET)
        put(scratch, 0, n, i)
    }
  }
}

/** binary and large_binary (blob columns too) from Spark binaries. */
private final class BinaryWriter(val vector: FieldVector, offsetBytes: Int, c: WriteContext, col: String, lt: String, nullable: Boolean)
    extends BytesWriter(c, col, lt, nullable) {
  private val setBytes = SetBytes.of(vector)
  protected def put(bytes: Array[Byte], start: Int, n: Int, i: Int): Unit = {
    setBytes(i, bytes, start, n)
    addBytes(n.toLong + offsetBytes)
  }
  protected def putFrom(g: SpecializedGetters, o: Int, i: Int): Unit = { val b = g.getBinary(o); put(b, 0, b.length, i) }
}

private final class FixedBinaryWriter(val vector: FixedSizeBinaryVector, width: Int, c: WriteContext, col: String, lt: String, nullable: Boolean)
    extends BytesWriter(c, col, lt, nullable) {
  protected def put(bytes: Array[Byte], start: Int, n: Int, i: Int): Unit = {
    if (n != width) throw outOfRange(s"a binary of $n bytes", s"binaries of exactly $width bytes")
    vector.setIndexDefined(i)
    vector.getDataBuffer.setBytes(i.toLong * width, bytes, start, width)
    addBytes(width)
  }
  protected def putFrom(g: SpecializedGetters, o: Int, i: Int): Unit = { val b = g.getBinary(o); put(b, 0, b.length, i) }
}

/**
 * decimal128 and decimal256 from a Spark decimal. The common case, the same scale and at most
 * 18 digits, takes the unscaled long without building a Decimal where the row keeps it so
 * (UnsafeRow, UnsafeArrayData store such decimals as longs).
 */
private final class DecimalWriter(val vector: BaseFixedWidthVector, target: ArrowType.Decimal, in: DecimalType,
    c: WriteContext, col: String, lt: String, nullable: Boolean) extends FieldWriter(c, col, lt, nullable) {
  private val width = target.getBitWidth / 8
  private val fits = in.scale == target.getScale && in.precision <= target.getPrecision
  private val compact = fits && in.precision <= Decimal.MAX_LONG_DIGITS

  protected def setValue(g: SpecializedGetters, o: Int, i: Int): Unit = {
    if (compact) {
      val unscaled = g match {
        case r: UnsafeRow => r.getLong(o)
        case a: UnsafeArrayData => a.getLong(o)
        case _ => g.getDecimal(o, in.precision, in.scale).toUnscaledLong
      }
      vector.setIndexDefined(i)
      DecimalUtility.writeLongToArrowBuf(unscaled, vector.getDataBuffer, i, width)
    } else {
      val d = g.getDecimal(o, in.precision, in.scale)
      val value =
        if (fits) d
        else {
          val changed = d.clone()
          if (!changed.changePrecision(target.getPrecision, target.getScale))
            throw outOfRange(d.toString, s"decimals of at most ${target.getPrecision - target.getScale} digits before the point")
          changed
        }
      vector.setIndexDefined(i)
      DecimalUtility.writeBigDecimalToArrowBuf(value.toJavaBigDecimal, vector.getDataBuffer, i, width)
    }
    addBytes(width)
  }
}

/** decimal256 above 38 digits, which Spark reads as the exact decimal string. */
private final class DecimalStringWriter(val vector: BaseFixedWidthVector, target: ArrowType.Decimal,
    c: WriteContext, col: String, lt: String, nullable: Boolean) extends FieldWriter(c, col, lt, nullable) {
  private def allowed = s"decimal strings of at most ${target.getPrecision - target.getScale} digits before the point and ${target.getScale} after"
  protected def setValue(g: SpecializedGetters, o: Int, i: Int): Unit = {
    val s = g.getUTF8String(o).toString
    val value =
      try new java.math.BigDecimal(s.trim).setScale(target.getScale)
      catch { case _: NumberFormatException | _: ArithmeticException => throw outOfRange(s"'$s'", allowed) }
    if (value.precision > target.getPrecision) throw outOfRange(s"'$s'", allowed)
    vector.setIndexDefined(i)
    DecimalUtility.writeBigDecimalToArrowBuf(value, vector.getDataBuffer, i, 32)
    addBytes(32)
  }
}

private final class DateMilliWriter(val vector: DateMilliVector, c: WriteContext, col: String, lt: String, nullable: Boolean)
    extends FieldWriter(c, col, lt, nullable) {
  protected def setValue(in: SpecializedGetters, o: Int, i: Int): Unit = { vector.setSafe(i, in.getInt(o) * 86400000L); addBytes(8) }
}

/**
 * A count of ticks (timestamps, durations, times of day) from Spark's long of `inPerSecond`
 * ticks into `outPerSecond` ticks of `width` bytes: floored to a coarser unit, multiplied
 * (without overflow) to a finer one. Times of day must lie within the day.
 */
private final class TickWriter(val vector: BaseFixedWidthVector, width: Int, inPerSecond: Long, outPerSecond: Long, timeOfDay: Boolean,
    c: WriteContext, col: String, lt: String, nullable: Boolean) extends FieldWriter(c, col, lt, nullable) {
  private val divisor = if (inPerSecond > outPerSecond) inPerSecond / outPerSecond else 1L
  private val factor = if (outPerSecond > inPerSecond) outPerSecond / inPerSecond else 1L
  private val dayTicks = 86400L * inPerSecond
  private val unit = TickWriter.unitName(inPerSecond)

  protected def setValue(in: SpecializedGetters, o: Int, i: Int): Unit = {
    val x = in.getLong(o)
    if (timeOfDay && (x < 0 || x >= dayTicks)) throw outOfRange(s"$x $unit", s"times of day from 0 to ${dayTicks - 1} $unit")
    val out =
      if (factor > 1) {
        val hi = Long.MaxValue / factor
        if (x > hi || x < -hi) throw outOfRange(s"$x $unit", s"values from ${-hi} to $hi $unit, what its unit holds in 64 bits")
        x * factor
      } else if (divisor > 1) Math.floorDiv(x, divisor)
      else x
    FieldWriters.putFixed(vector, width, i, out)
    addBytes(width)
  }
}

private object TickWriter {
  val Micros = 1000000L
  val Nanos = 1000000000L
  def unitName(perSecond: Long): String = if (perSecond == Nanos) "nanoseconds" else "microseconds"
}

private final class NullWriter(val vector: FieldVector, c: WriteContext, col: String, lt: String) extends FieldWriter(c, col, lt, true) {
  override protected def setNull(i: Int): Unit = ()
  // Spark's NullType has only nulls.
  protected def setValue(in: SpecializedGetters, o: Int, i: Int): Unit = ()
}

/** Arrays: `begin` a value of `n` items, write the items, `end` it (offsets, where the list type has them). */
private abstract class ArrayWriter(element: FieldWriter, c: WriteContext, col: String, lt: String, nullable: Boolean)
    extends FieldWriter(c, col, lt, nullable) {
  private val view = new UnsafeArrayData
  protected def begin(i: Int, n: Int): Unit
  protected def end(i: Int, n: Int): Unit
  protected final def setValue(in: SpecializedGetters, o: Int, i: Int): Unit = {
    val a = UnsafeValues.array(in, o, view)
    val n = a.numElements
    begin(i, n)
    var j = 0
    while (j < n) { element.write(a, j); j += 1 }
    end(i, n)
  }
  override def finish(): Unit = { element.finish(); super.finish() }
  override def reset(): Unit = { super.reset(); element.reset() }
}

private final class ListWriter(val vector: ListVector, element: FieldWriter, c: WriteContext, col: String, lt: String, nullable: Boolean)
    extends ArrayWriter(element, c, col, lt, nullable) {
  protected def begin(i: Int, n: Int): Unit = vector.startNewValue(i)
  protected def end(i: Int, n: Int): Unit = { vector.endValue(i, n); addBytes(4) }
}

private final class LargeListWriter(val vector: LargeListVector, element: FieldWriter, c: WriteContext, col: String, lt: String, nullable: Boolean)
    extends ArrayWriter(element, c, col, lt, nullable) {
  protected def begin(i: Int, n: Int): Unit = vector.startNewValue(i.toLong)
  protected def end(i: Int, n: Int): Unit = { vector.endValue(i, n.toLong); addBytes(8) }
}

/** A vector: exactly `size` items per non-null value; a null vector still takes `size` (null) item slots. */
private final class FixedSizeListWriter(val vector: FixedSizeListVector, size: Int, element: FieldWriter,
    c: WriteContext, col: String, lt: String, nullable: Boolean) extends ArrayWriter(element, c, col, lt, nullable) {
  override protected def setNull(i: Int): Unit = {
    vector.setNull(i)
    var j = 0
    while (j < size) { element.writeAbsent(); j += 1 }
  }
  protected def begin(i: Int, n: Int): Unit = {
    if (n != size) throw Errors.vectorDimensionMismatch(c.where, col, i, n, size)
    vector.setNotNull(i)
  }
  protected def end(i: Int, n: Int): Unit = ()
}

private final class StructWriter(val vector: StructVector, members: Array[FieldWriter], c: WriteContext, col: String, lt: String, nullable: Boolean)
    extends FieldWriter(c, col, lt, nullable) {
  private val view = new UnsafeRow(members.length)
  override protected def setNull(i: Int): Unit = {
    vector.setNull(i)
    var k = 0
    while (k < members.length) { members(k).writeAbsent(); k += 1 }
  }
  protected def setValue(in: SpecializedGetters, o: Int, i: Int): Unit = {
    val s = UnsafeValues.struct(in, o, view)
    vector.setIndexDefined(i)
    var k = 0
    while (k < members.length) { members(k).write(s, k); k += 1 }
  }
  override def finish(): Unit = { members.foreach(_.finish()); super.finish() }
  override def reset(): Unit = { super.reset(); members.foreach(_.reset()) }
}

/** A map: a list of non-null `entries` structs of key and value. */
private final class MapWriter(val vector: MapVector, entries: StructVector, key: FieldWriter, value: FieldWriter,
    c: WriteContext, col: String, lt: String, nullable: Boolean) extends FieldWriter(c, col, lt, nullable) {
  private var entryCount = 0
  protected def setValue(in: SpecializedGetters, o: Int, i: Int): Unit = {
    val m = in.getMap(o)
    val keys = m.keyArray
    val values = m.valueArray
    val n = m.numElements
    vector.startNewValue(i)
    var j = 0
    while (j < n) {
      entries.setIndexDefined(entryCount)
      key.write(keys, j)
      value.write(values, j)
      entryCount += 1
      j += 1
    }
    vector.endValue(i, n)
    addBytes(4)
  }
  override def finish(): Unit = {
    key.finish(); value.finish()
    entries.setValueCount(entryCount)
    super.finish()
  }
  override def reset(): Unit = { super.reset(); key.reset(); value.reset(); entryCount = 0 }
}

/**
 * Spark's UnsafeRow and UnsafeArrayData keep each variable-length value (string, binary,
 * array, struct) as a long of `offset << 32 | size`, the offset relative to their base, and
 * their getters wrap every such value in a new object (UnsafeRow.getUTF8String, getArray,
 * getStruct do this arithmetic). Reading the long here lets a writer copy bytes straight from
 * the row and point one reused view at each array or struct, so that converting a row of
 * such values allocates nothing.
 */
private object UnsafeValues {
  /** The byte array an UnsafeRow or UnsafeArrayData lies in, or null for other rows and off-heap data. */
  def heapBase(g: SpecializedGetters): Array[Byte] = g match {
    case r: UnsafeRow => r.getBaseObject match { case b: Array[Byte] => b; case _ => null }
    case a: UnsafeArrayData => a.getBaseObject match { case b: Array[Byte] => b; case _ => null }
    case _ => null
  }

  private def baseOffset(g: SpecializedGetters): Long = g match {
    case r: UnsafeRow => r.getBaseOffset
    case a: UnsafeArrayData => a.getBaseOffset
  }

  /** The index in `heapBase(g)` of the value whose `offset << 32 | size` is `offsetAndSize`. */
  def start(g: SpecializedGetters, offsetAndSize: Long): Int = (baseOffset(g) + (offsetAndSize >> 32) - Platform.BYTE_ARRAY_OFFSET).toInt
  def size(offsetAndSize: Long): Int = offsetAndSize.toInt

  /** Array `o` of `g`, as `view` pointed at it when `g` is unsafe. */
  def array(g: SpecializedGetters, o: Int, view: UnsafeArrayData): ArrayData = g match {
    case r: UnsafeRow => val os = r.getLong(o); view.pointTo(r.getBaseObject, r.getBaseOffset + (os >> 32), os.toInt); view
    case a: UnsafeArrayData => val os = a.getLong(o); view.pointTo(a.getBaseObject, a.getBaseOffset + (os >> 32), os.toInt); view
    case _ => g.getArray(o)
  }

  /** Struct `o` of `g`, as `view` pointed at it when `g` is unsafe. */
  def struct(g: SpecializedGetters, o: Int, view: UnsafeRow): InternalRow = g match {
    case r: UnsafeRow => val os = r.getLong(o); view.pointTo(r.getBaseObject, r.getBaseOffset + (os >> 32), os.toInt); view
    case a: UnsafeArrayData => val os = a.getLong(o); view.pointTo(a.getBaseObject, a.getBaseOffset + (os >> 32), os.toInt); view
    case _ => g.getStruct(o, view.numFields)
  }
}
