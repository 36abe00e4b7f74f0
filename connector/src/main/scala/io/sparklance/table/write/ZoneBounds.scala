package io.sparklance.table.write


import org.apache.arrow.memory.ArrowBuf
import org.apache.arrow.vector.{BaseFixedWidthVector, BaseLargeVariableWidthVector, BaseVariableWidthVector, BitVector, BitVectorHelper, FieldVector}
import org.apache.arrow.vector.types.FloatingPointPrecision
import org.apache.arrow.vector.types.pojo.ArrowType

import io.sparklance.format.HalfFloat
import io.sparklance.util.Errors
import io.sparklance.util.ScalaCompat._

// Spec: rust/arrow-stats/src/lib.rs (StatisticsAccumulator, find_min_max) and
// rust/lance-index/src/scalar/zonemap.rs (ZoneMapProcessor), which pylance 14 uses for a
// zone's min and max: the smallest and largest non-null value in the column's own order
// (signed or unsigned integers, dates, times, timestamps and durations by their stored
// number, decimals as signed integers of their scale, floats by IEEE total order without
// NaN, so -0.0 < 0.0; booleans false < true; strings and binaries by their bytes, unsigned);
// fixed-size binaries get no bounds. A bound is kept as its value's little-endian bytes (one
// byte 0/1 for a boolean), as the index file stores it.

/** The bounds of the values of one zone seen so far; nulls are counted by the caller. */
private[write] sealed abstract class ZoneBounds {
  /** Adds the values `[from, until)` of `v`; `hasNulls` says whether any value of `v` is null. */
  def add(v: FieldVector, from: Int, until: Int, hasNulls: Boolean): Unit
  /** Non-null NaN values seen (floats only). */
  def nans: Long = 0L
  def min: Option[ArraySeq[Byte]]
  def max: Option[ArraySeq[Byte]]
  def reset(): Unit
}

private[write] object ZoneBounds {

  /** Bounds for a column of `t`, or None for a type Lance's zone maps do not bound. */
  def of(t: ArrowType): Option[() => ZoneBounds] = t match {
    case i: ArrowType.Int => Some(() => new Integers(i.getBitWidth / 8, i.getIsSigned))
    case _: ArrowType.Date | _: ArrowType.Time | _: ArrowType.Timestamp | _: ArrowType.Duration =>
      Some(() => new Integers(0, signed = true))
    case f: ArrowType.FloatingPoint => Some(() => new Floats(f.getPrecision))
    case _: ArrowType.Bool => Some(() => new Booleans)
    case _: ArrowType.Utf8 | _: ArrowType.LargeUtf8 | _: ArrowType.Binary | _: ArrowType.LargeBinary => Some(() => new Bytes)
    case _: ArrowType.Decimal => Some(() => new Decimals)
    case _: ArrowType.FixedSizeBinary => Some(() => Unbounded)
    case _ => None
  }

  /** Sets row `i` of a min or max column (of the bounded column's type) to `bound`, or null. */
  def set(v: FieldVector, i: Int, bound: Option[ArraySeq[Byte]]): Unit = (v, bound) match {
    case (b: BitVector, Some(x)) => b.setSafe(i, x.head.toInt)
    case (f: BaseFixedWidthVector, Some(x)) =>
      if (x.length != f.getTypeWidth) throw Errors.invalidArgument(s"a ${x.length}-byte zone bound for ${f.getField}")
      while (f.getValueCapacity <= i) f.reAlloc()
      f.getDataBuffer.setBytes(i.toLong * f.getTypeWidth, x.toArray)
      BitVectorHelper.setBit(f.getValidityBuffer, i)
    case (s: BaseVariableWidthVector, Some(x)) => s.setSafe(i, x.toArray)
    case (s: BaseLargeVariableWidthVector, Some(x)) => s.setSafe(i, x.toArray)
    case (f: BaseFixedWidthVector, None) => f.setNull(i)
    case (s: BaseVariableWidthVector, None) => s.setNull(i)
    case (s: BaseLargeVariableWidthVector, None) => s.setNull(i)
    case _ => throw Errors.unsupported(s"zone bounds of ${v.getField.getType}", "the zone map writer")
  }

  /** The `width`-byte little-endian value at `at`, sign- or zero-extended. */
  private def fixed(buf: ArrowBuf, at: Long, width: Int, signed: Boolean): Long = width match {
    case 8 => buf.getLong(at)
    case 4 => if (signed) buf.getInt(at).toLong else buf.getInt(at) & 0xffffffffL
    case 2 => if (signed) buf.getShort(at).toLong else buf.getShort(at) & 0xffffL
    case _ => if (signed) buf.getByte(at).toLong else buf.getByte(at) & 0xffL
  }

  private def littleEndian(x: Long, width: Int): ArraySeq[Byte] = {
    val out = new Array[Byte](width)
    var i = 0
    while (i < width) { out(i) = (x >>> (8 * i)).toByte; i += 1 }
    ArraySeq.unsafeWrapArray(out)
  }

  /** Fixed-width integers of 1, 2, 4 or 8 bytes (width 0: the vector's own width). */
  private final class Integers(declaredWidth: Int, signed: Boolean) extends ZoneBounds {
    private var width = declaredWidth
    private var lo = 0L
    private var hi = 0L
    private var any = false

    private def less(a: Long, b: Long): Boolean = if (signed) a < b else java.lang.Long.compareUnsigned(a, b) < 0

    override def add(v: FieldVector, from: Int, until: Int, hasNulls: Boolean): Unit = {
      val fv = v.asInstanceOf[BaseFixedWidthVector]
      if (width == 0) width = fv.getTypeWidth
      val buf = fv.getDataBuffer
      var i = from
      while (i < until) {
        if (!hasNulls || !v.isNull(i)) {
          val at = i.toLong * width
          val x = fixed(buf, at, width, signed)
          if (!any) { lo = x; hi = x; any = true }
          else { if (less(x, lo)) lo = x; if (less(hi, x)) hi = x }
        }
        i += 1
      }
    }
    override def min: Option[ArraySeq[Byte]] = if (any) Some(littleEndian(lo, width)) else None
    override def max: Option[ArraySeq[Byte]] = if (any) Some(littleEndian(hi, width)) else None
    override def reset(): Unit = any = false
  }

  /**
   * Floats of 2, 4 or 8 bytes. NaN is never a bound but counted; a zone holding one has NaN
   * (the canonical quiet NaN) as its max, as DataFusion's max accumulator had it and
   * pylance 14 still writes (ZoneMapProcessor::max_value_from_stats).
   */
  private final class Floats(precision: FloatingPointPrecision) extends ZoneBounds {
    private val width = precision match {
      case FloatingPointPrecision.HALF => 2
      case FloatingPointPrecision.SINGLE => 4
      case _ => 8
    }
    private var lo = 0.0
    private var hi = 0.0
    private var loBits = 0L
    private var hiBits = 0L
    private var any = false
    private var nanCount = 0L

    override def nans: Long = nanCount

    override def add(v: FieldVector, from: Int, until: Int, hasNulls: Boolean): Unit = {
      val buf: ArrowBuf = v.asInstanceOf[BaseFixedWidthVector].getDataBuffer
      var i = from
      while (i < until) {
        if (!hasNulls || !v.isNull(i)) {
          val at = i.toLong * width
          val bits = fixed(buf, at, width, signed = false)
          val x = width match {
            case 8 => java.lang.Double.longBitsToDouble(bits)
            case 4 => java.lang.Float.intBitsToFloat(bits.toInt).toDouble
            case _ => HalfFloat.toFloat(bits.toShort).toDouble
          }
          if (x.isNaN) nanCount += 1
          else if (!any) { lo = x; hi = x; loBits = bits; hiBits = bits; any = true }
          else {
            // Double.compare orders -0.0 below 0.0, as Rust's total_cmp does for non-NaN values.
            if (java.lang.Double.compare(x, lo) < 0) { lo = x; loBits = bits }
            if (java.lang.Double.compare(x, hi) > 0) { hi = x; hiBits = bits }
          }
        }
        i += 1
      }
    }
    override def min: Option[ArraySeq[Byte]] = if (any) Some(littleEndian(loBits, width)) else None
    override def max: Option[ArraySeq[Byte]] =
      if (nanCount > 0) Some(littleEndian(width match { case 8 => 0x7ff8000000000000L; case 4 => 0x7fc00000L; case _ => 0x7e00L }, width))
      else if (any) Some(littleEndian(hiBits, width))
      else None
    override def reset(): Unit = { any = false; nanCount = 0 }
  }

  private final class Booleans extends ZoneBounds {
    private var seen = 0 // bit 0: false seen, bit 1: true seen
    override def add(v: FieldVector, from: Int, until: Int, hasNulls: Boolean): Unit = {
      val b = v.asInstanceOf[BitVector]
      var i = from
      while (i < until && seen != 3) {
        if (!hasNulls || !b.isNull(i)) seen |= (if (b.get(i) == 1) 2 else 1)
        i += 1
      }
    }
    private def one(x: Int) = Some(ArraySeq(x.toByte))
    override def min: Option[ArraySeq[Byte]] = if ((seen & 1) != 0) one(0) else if (seen != 0) one(1) else None
    override def max: Option[ArraySeq[Byte]] = if ((seen & 2) != 0) one(1) else if (seen != 0) one(0) else None
    override def reset(): Unit = seen = 0
  }

  /** Strings and binaries, by their bytes compared unsigned; a new bound is copied out of the vector. */
  private final class Bytes extends ZoneBounds {
    private var lo: Array[Byte] = _
    private var hi: Array[Byte] = _

    /** Compares bytes `[start, start + len)` of `buf` with `b`, unsigned, shorter first on a tie. */
    private def compare(buf: ArrowBuf, start: Long, len: Int, b: Array[Byte]): Int = {
      val n = math.min(len, b.length)
      var i = 0
      while (i < n) {
        val c = (buf.getByte(start + i) & 0xff) - (b(i) & 0xff)
        if (c != 0) return c
        i += 1
      }
      len - b.length
    }

    override def add(v: FieldVector, from: Int, until: Int, hasNulls: Boolean): Unit = {
      val (offsets, large) = v match {
        case x: BaseVariableWidthVector => (x.getOffsetBuffer, false)
        case x: BaseLargeVariableWidthVector => (x.getOffsetBuffer, true)
        case other => throw new IllegalArgumentException(s"${other.getField} is not a string or binary vector")
      }
      val data = v.getDataBuffer
      var i = from
      while (i < until) {
        if (!hasNulls || !v.isNull(i)) {
          val start = if (large) offsets.getLong(i.toLong * 8) else offsets.getInt(i.toLong * 4).toLong
          val end = if (large) offsets.getLong((i + 1).toLong * 8) else offsets.getInt((i + 1).toLong * 4).toLong
          val len = (end - start).toInt
          def copy() = { val a = new Array[Byte](len); data.getBytes(start, a); a }
          if (lo == null) { lo = copy(); hi = lo }
          else {
            if (compare(data, start, len, lo) < 0) lo = copy()
            if (compare(data, start, len, hi) > 0) hi = copy()
          }
        }
        i += 1
      }
    }
    override def min: Option[ArraySeq[Byte]] = Option(lo).map(ArraySeq.unsafeWrapArray(_))
    override def max: Option[ArraySeq[Byte]] = Option(hi).map(ArraySeq.unsafeWrapArray(_))
    override def reset(): Unit = { lo = null; hi = null }
  }

  /** Decimals of 16 or 32 bytes: two's complement little-endian integers of the column's scale. */
  private final class Decimals extends ZoneBounds {
    private var lo: Array[Byte] = _
    private var hi: Array[Byte] = _

    /** Compares the value at `at` in `buf` with `b`: the top word signed, the others unsigned. */
    private def compare(buf: ArrowBuf, at: Long, b: Array[Byte]): Int = {
      val bb = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN)
      var w = b.length / 8 - 1
      var c = java.lang.Long.compare(buf.getLong(at + 8L * w), bb.getLong(8 * w))
      while (c == 0 && w > 0) {
        w -= 1
        c = java.lang.Long.compareUnsigned(buf.getLong(at + 8L * w), bb.getLong(8 * w))
      }
      c
    }

    override def add(v: FieldVector, from: Int, until: Int, hasNulls: Boolean): Unit = {
      val fv = v.asInstanceOf[BaseFixedWidthVector]
      val width = fv.getTypeWidth
      val buf = fv.getDataBuffer
      var i = from
      while (i < until) {
        if (!hasNulls || !v.isNull(i)) {
          val at = i.toLong * width
          def copy() = { val a = new Array[Byte](width); buf.getBytes(at, a); a }
          if (lo == null) { lo = copy(); hi = lo }
          else {
            if (compare(buf, at, lo) < 0) lo = copy()
            if (compare(buf, at, hi) > 0) hi = copy()
          }
        }
        i += 1
      }
    }
    override def min: Option[ArraySeq[Byte]] = Option(lo).map(ArraySeq.unsafeWrapArray(_))
    override def max: Option[ArraySeq[Byte]] = Option(hi).map(ArraySeq.unsafeWrapArray(_))
    override def reset(): Unit = { lo = null; hi = null }
  }

  /** Types whose zones have a null count but no bounds (pylance 14: fixed-size binary). */
  private object Unbounded extends ZoneBounds {
    override def add(v: FieldVector, from: Int, until: Int, hasNulls: Boolean): Unit = ()
    override def min: Option[ArraySeq[Byte]] = None
    override def max: Option[ArraySeq[Byte]] = None
    override def reset(): Unit = ()
  }
}
