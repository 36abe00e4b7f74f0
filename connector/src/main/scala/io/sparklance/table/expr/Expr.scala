package io.sparklance.table.expr

import io.sparklance.util.ScalaCompat._

// The table layer's own predicate language (after Apache Iceberg's expressions): what a
// query engine pushes down, bound to top-level columns by name, so that statistics (zone
// maps, page statistics) can decide which rows may match. Evaluation here is only ever
// "may match" (inclusive); the engine still filters the rows it gets.

/** A literal: Long (integers, dates as days, timestamps as microseconds), Double, String, Boolean. */
sealed trait Expr

object Expr {
  sealed trait CmpOp
  case object Eq extends CmpOp
  case object Lt extends CmpOp
  case object LtEq extends CmpOp
  case object Gt extends CmpOp
  case object GtEq extends CmpOp

  final case class Compare(column: String, op: CmpOp, value: Any) extends Expr
  final case class In(column: String, values: Seq[Any]) extends Expr {
    /**
     * The values in ascending order when they are all of one kind (Long, Double without NaN,
     * String): a long list (the keys of a MERGE source) is then checked against a zone's
     * bounds by one binary search instead of one comparison per value.
     */
    private[expr] lazy val ordered: Option[IndexedSeq[Any]] =
      if (values.forall(_.isInstanceOf[Long])) Some(values.map(_.asInstanceOf[Long]).sorted.toIndexedSeq)
      else if (values.forall { case d: Double => !d.isNaN; case _ => false }) Some(values.map(_.asInstanceOf[Double]).sorted(DoubleTotalOrdering).toIndexedSeq)
      else if (values.forall(_.isInstanceOf[String])) Some(values.map(_.asInstanceOf[String]).sorted(StringOrder.ordering).toIndexedSeq)
      else None
  }
  final case class IsNull(column: String) extends Expr
  final case class IsNotNull(column: String) extends Expr
  final case class StartsWith(column: String, prefix: String) extends Expr
  final case class And(left: Expr, right: Expr) extends Expr
  final case class Or(left: Expr, right: Expr) extends Expr
  final case class Not(child: Expr) extends Expr

  def columns(e: Expr): Set[String] = e match {
    case Compare(c, _, _) => Set(c)
    case In(c, _) => Set(c)
    case IsNull(c) => Set(c)
    case IsNotNull(c) => Set(c)
    case StartsWith(c, _) => Set(c)
    case And(l, r) => columns(l) ++ columns(r)
    case Or(l, r) => columns(l) ++ columns(r)
    case Not(c) => columns(c)
  }
}

/**
 * What statistics know of one column over a range of rows: bounds of the non-null values
 * (each may be None: unknown) and how many of the `rows` are null. `nullsExact` is false
 * where reading may turn values into nulls or nulls into values (legacy 0.1 pages), so
 * the null count says nothing either way.
 */
final case class ColumnStats(min: Option[Any], max: Option[Any], nullCount: Long, rows: Long, nullsExact: Boolean = true) {
  def mayHaveNull: Boolean = !nullsExact || nullCount > 0
  def mayHaveValue: Boolean = !nullsExact || nullCount < rows
  def allNull: Boolean = nullsExact && nullCount == rows
  def noNull: Boolean = nullsExact && nullCount == 0
}

/**
 * Decides from statistics whether any row of a range may satisfy an expression. Unknown
 * columns, types or statistics answer "may match": pruning must never drop a matching row.
 */
object InclusiveEvaluator {
  import Expr._

  private def cmp(a: Any, b: Any): Option[Int] = (a, b) match {
    case (x: Long, y: Long) => Some(java.lang.Long.compare(x, y))
    case (x: Long, y: Double) => Some(compareDoubles(x.toDouble, y))
    case (x: Double, y: Long) => Some(compareDoubles(x, y.toDouble))
    case (x: Double, y: Double) => Some(compareDoubles(x, y))
    case (x: String, y: String) => Some(Integer.signum(StringOrder.compare(x, y)))
    case (x: Boolean, y: Boolean) => Some(java.lang.Boolean.compare(x, y))
    case _ => None
  }

  /**
   * Doubles in the engine's order, which is not IEEE's nor Java's: -0.0 equals 0.0 and NaN
   * equals NaN and lies above every other value (Spark's SQLOrderingUtil.compareDoubles, used by
   * its =, <, <=, >, >= and IN). Zone bounds are written in IEEE total order (-0.0 below 0.0,
   * rust/lance-index/src/scalar/zonemap.rs), so a zone of only -0.0 has the bounds [-0.0, -0.0]
   * and must still answer `x = 0`. Bounds never hold NaN: a zone that may hold one has no
   * upper bound ([[io.sparklance.table.ZoneMapIndex]]).
   */
  private def compareDoubles(x: Double, y: Double): Int = if (x == y) 0 else java.lang.Double.compare(x, y)

  def mayMatch(e: Expr, stats: String => Option[ColumnStats]): Boolean = e match {
    case And(l, r) => mayMatch(l, stats) && mayMatch(r, stats)
    case Or(l, r) => mayMatch(l, stats) || mayMatch(r, stats)
    case Not(c) => !mustMatch(c, stats)
    case IsNull(c) => stats(c).forall(_.mayHaveNull)
    case IsNotNull(c) => stats(c).forall(_.mayHaveValue)
    case Compare(c, op, v) => stats(c).forall(s => s.mayHaveValue && rangeMay(s, op, v))
    case in @ In(c, vs) => stats(c).forall(s => s.mayHaveValue && (in.ordered match {
      case Some(sorted) if sorted.length > 8 => anyWithin(sorted, s)
      case _ => vs.exists(v => rangeMay(s, Eq, v))
    }))
    case StartsWith(c, p) => stats(c).forall { s =>
      s.mayHaveValue && ((s.min, s.max) match {
        case (Some(lo: String), Some(hi: String)) =>
          // Strings with prefix p lie in [p, p + max char); compare on the prefix length.
          val n = p.codePointCount(0, p.length)
          StringOrder.compare(StringOrder.prefix(hi, n), p) >= 0 && StringOrder.compare(StringOrder.prefix(lo, n), p) <= 0
        case _ => true
      })
    }
  }

  /** True only when every row of the range surely matches (used under NOT). */
  private def mustMatch(e: Expr, stats: String => Option[ColumnStats]): Boolean = e match {
    case And(l, r) => mustMatch(l, stats) && mustMatch(r, stats)
    case Or(l, r) => mustMatch(l, stats) || mustMatch(r, stats)
    case Not(c) => !mayMatch(c, stats)
    case IsNull(c) => stats(c).exists(_.allNull)
    case IsNotNull(c) => stats(c).exists(_.noNull)
    case Compare(c, op, v) => stats(c).exists { s =>
      s.noNull && ((s.min, s.max) match {
        case (Some(lo), Some(hi)) => op match {
          case Eq => cmp(lo, v).contains(0) && cmp(hi, v).contains(0)
          case Lt => cmp(hi, v).exists(_ < 0)
          case LtEq => cmp(hi, v).exists(_ <= 0)
          case Gt => cmp(lo, v).exists(_ > 0)
          case GtEq => cmp(lo, v).exists(_ >= 0)
        }
        case _ => false
      })
    }
    case _ => false
  }

  /**
   * Whether one of `sorted` (ascending, one kind) may lie in [min, max]: the first value not
   * below min must not be above max. A bound of another kind than the values never prunes.
   */
  private def anyWithin(sorted: IndexedSeq[Any], s: ColumnStats): Boolean = {
    val comparable = (b: Option[Any]) => b.forall(x => cmp(x, sorted.head).isDefined)
    if (!comparable(s.min) || !comparable(s.max)) return true
    var lo = 0
    var hi = sorted.length // the first index whose value is >= min lies in [lo, hi]
    s.min.foreach { m =>
      while (lo < hi) {
        val mid = (lo + hi) >>> 1
        if (cmp(sorted(mid), m).get < 0) lo = mid + 1 else hi = mid
      }
    }
    lo < sorted.length && s.max.forall(m => cmp(sorted(lo), m).get <= 0)
  }

  /** Whether a value in [min, max] may stand in relation `op` to `v`; an unknown bound never prunes. */
  private def rangeMay(s: ColumnStats, op: CmpOp, v: Any): Boolean = {
    def low(ok: Int => Boolean) = s.min.forall(m => cmp(m, v).forall(ok))
    def high(ok: Int => Boolean) = s.max.forall(m => cmp(m, v).forall(ok))
    op match {
      case Eq => low(_ <= 0) && high(_ >= 0)
      case Lt => low(_ < 0)
      case LtEq => low(_ <= 0)
      case Gt => high(_ > 0)
      case GtEq => high(_ >= 0)
    }
  }
}
