package io.sparklance.table

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.arrow.vector._
import org.apache.arrow.vector.types.{DateUnit, TimeUnit}
import org.apache.arrow.vector.types.pojo.ArrowType

import io.sparklance.table.expr.StringOrder
import io.sparklance.util.Errors

// BTREE and BITMAP look-ups compare an index's stored values with the literals of an
// expression for equality, so they are only used where both are the same numbers or
// strings: integers (unsigned only up to 32 bits, which fit a Long), dates as days,
// microsecond timestamps, strings and booleans. Floating point (where 0.0 = -0.0 and
// NaN = NaN for the engine but not bit for bit) and values converted on their way to the
// engine (nanosecond timestamps, millisecond dates) are left to scans. Keys take the
// expression language's literal forms: Long, String, Boolean.

object IndexKeys {

  /** Whether equality look-ups on a column of Arrow type `t` may use an index. */
  def supported(t: ArrowType): Boolean = t match {
    case i: ArrowType.Int => i.getIsSigned || i.getBitWidth <= 32
    case d: ArrowType.Date => d.getUnit == DateUnit.DAY
    case ts: ArrowType.Timestamp => ts.getUnit == TimeUnit.MICROSECOND
    case _: ArrowType.Utf8 | _: ArrowType.LargeUtf8 | _: ArrowType.Bool => true
    case _ => false
  }

  /** Whether `literal` has the form of the keys of a column of Arrow type `t`. */
  def fits(t: ArrowType, literal: Any): Boolean = (t, literal) match {
    case (_: ArrowType.Utf8 | _: ArrowType.LargeUtf8, _: String) => true
    case (_: ArrowType.Bool, _: Boolean) => true
    case (_: ArrowType.Int | _: ArrowType.Date | _: ArrowType.Timestamp, _: Long) => true
    case _ => false
  }

  /**
   * Row `i` (not null) of `v` in literal form where its type has one: integers, dates in
   * days, raw timestamps, strings, booleans; None for other types.
   */
  def literal(v: FieldVector, i: Int): Option[Any] = v match {
    case x: BigIntVector => Some(x.get(i))
    case x: IntVector => Some(x.get(i).toLong)
    case x: SmallIntVector => Some(x.get(i).toLong)
    case x: TinyIntVector => Some(x.get(i).toLong)
    case x: UInt1Vector => Some((x.get(i) & 0xff).toLong)
    case x: UInt2Vector => Some(x.get(i).toLong)
    case x: UInt4Vector => Some(x.get(i) & 0xffffffffL)
    case x: DateDayVector => Some(x.get(i).toLong)
    case x: TimeStampVector => Some(x.get(i))
    case x: VarCharVector => Some(new String(x.get(i), UTF_8))
    case x: LargeVarCharVector => Some(new String(x.get(i), UTF_8))
    case x: BitVector => Some(x.get(i) == 1)
    case _ => None
  }

  /** Row `i` of index column `v` as a key, or None when it is null. */
  def key(v: FieldVector, i: Int, where: String): Option[Any] =
    if (v.isNull(i)) None
    else Some(literal(v, i).getOrElse(
      throw Errors.corrupt(where, s"index column '${v.getName}' holds ${v.getField.getType}, not keys of the indexed column")))

  /**
   * The order of sorted indices (Arrow's): numbers by value, booleans false first, strings
   * by their UTF-8 bytes, which is code point order (Java's compareTo orders UTF-16 units,
   * which differs above U+FFFF).
   */
  val ordering: Ordering[Any] = new Ordering[Any] {
    override def compare(a: Any, b: Any): Int = (a, b) match {
      case (x: Long, y: Long) => java.lang.Long.compare(x, y)
      case (x: String, y: String) => StringOrder.compare(x, y)
      case (x: Boolean, y: Boolean) => java.lang.Boolean.compare(x, y)
      case _ => throw Errors.invalidArgument(s"index keys $a and $b are of different kinds")
    }
  }
}
