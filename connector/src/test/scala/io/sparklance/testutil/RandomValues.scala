package io.sparklance.testutil

import java.math.{BigDecimal => JBigDecimal, BigInteger}

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.arrow.vector.types.{DateUnit, FloatingPointPrecision, TimeUnit}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field}

/**
 * Seeded random rows for any Arrow field, in the value forms [[ArrowData]] takes, with a null
 * pattern applied at every nullable level (lists, structs, items).
 */
object RandomValues {
  sealed trait Nulls
  object Nulls {
    case object NoNulls extends Nulls
    /** About one value in `oneIn` is null, at every nullable level. */
    final case class Some(oneIn: Int) extends Nulls
    case object AllNull extends Nulls
  }

  def column(f: Field, n: Int, nulls: Nulls, rnd: Random): IndexedSeq[Any] = IndexedSeq.fill(n)(value(f, nulls, rnd))

  def value(f: Field, nulls: Nulls, rnd: Random): Any = {
    val isNull = f.isNullable && (nulls match {
      case Nulls.NoNulls => false
      case Nulls.Some(k) => rnd.nextInt(k) == 0
      case Nulls.AllNull => true
    })
    if (isNull) null else nonNull(f, nulls, rnd)
  }

  // Strings repeat a little so that a page has both repeated and distinct values.
  private val words = IndexedSeq("", "a", "lance", "spark", "🙂 unicode", "x" * 40, "the quick brown fox")

  private def nonNull(f: Field, nulls: Nulls, rnd: Random): Any = {
    // Below the top level, the all-null pattern would hide every leaf; children get "some".
    val inner = if (nulls == Nulls.AllNull) Nulls.Some(3) else nulls
    def children = f.getChildren.asScala.toIndexedSeq
    f.getType match {
      case i: ArrowType.Int => i.getBitWidth match {
        case 8 => rnd.nextInt(256).toByte
        case 16 => rnd.nextInt(65536).toShort
        case 32 => if (rnd.nextBoolean()) rnd.nextInt(1000) else rnd.nextInt()
        case _ => if (rnd.nextBoolean()) rnd.nextInt(100000).toLong else rnd.nextLong()
      }
      case fp: ArrowType.FloatingPoint => fp.getPrecision match {
        case FloatingPointPrecision.HALF => (rnd.nextInt(2048) - 1024) / 4f
        case FloatingPointPrecision.SINGLE => rnd.nextFloat() * 1000 - 500
        case FloatingPointPrecision.DOUBLE => rnd.nextGaussian() * 1e6
      }
      case _: ArrowType.Bool => rnd.nextBoolean()
      case d: ArrowType.Date => if (d.getUnit == DateUnit.DAY) rnd.nextInt(40000) else rnd.nextInt(40000).toLong * 86400000L
      case t: ArrowType.Time => t.getUnit match {
        case TimeUnit.SECOND => rnd.nextInt(86400)
        case TimeUnit.MILLISECOND => rnd.nextInt(86400000)
        case TimeUnit.MICROSECOND => (rnd.nextDouble() * 86400e6).toLong
        case TimeUnit.NANOSECOND => (rnd.nextDouble() * 86400e9).toLong
      }
      case _: ArrowType.Timestamp | _: ArrowType.Duration => 1700000000000000L + rnd.nextInt(1000000000)
      case d: ArrowType.Decimal =>
        val digits = math.min(d.getPrecision, 18)
        new JBigDecimal(BigInteger.valueOf((rnd.nextDouble() * math.pow(10, digits - 1)).toLong * (if (rnd.nextBoolean()) 1 else -1)), d.getScale)
      case b: ArrowType.FixedSizeBinary => Array.fill(b.getByteWidth)(rnd.nextInt(256).toByte)
      case _: ArrowType.Utf8 | _: ArrowType.LargeUtf8 => words(rnd.nextInt(words.length)) + (if (rnd.nextBoolean()) rnd.nextInt(1000).toString else "")
      case _: ArrowType.Binary | _: ArrowType.LargeBinary => Array.fill(rnd.nextInt(12))(rnd.nextInt(256).toByte)
      case _: ArrowType.Null => null
      case l: ArrowType.FixedSizeList => IndexedSeq.fill(l.getListSize)(value(children.head, inner, rnd))
      case _: ArrowType.List | _: ArrowType.LargeList => IndexedSeq.fill(rnd.nextInt(5))(value(children.head, inner, rnd))
      case _: ArrowType.Struct => children.map(c => value(c, inner, rnd))
      case _: ArrowType.Map =>
        val entry = children.head.getChildren.asScala
        IndexedSeq.fill(rnd.nextInt(4))((nonNull(entry(0), inner, rnd), value(entry(1), inner, rnd)))
      case other => throw new IllegalArgumentException(s"no random values for $other")
    }
  }
}
