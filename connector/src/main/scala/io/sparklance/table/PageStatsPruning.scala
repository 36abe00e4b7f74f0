package io.sparklance.table

import org.apache.arrow.vector.types.DateUnit
import org.apache.arrow.vector.types.pojo.ArrowType

import io.sparklance.format.LanceField
import io.sparklance.format.legacy.{LegacyFileReader, PageStats, StatValue}
import io.sparklance.table.expr.{ColumnStats, Expr, InclusiveEvaluator}

// Spec: the legacy (0.1) file format's page-level statistics (lance format page,
// "Statistics"): per write batch, each field's null count, min and max. What reading
// makes of the values bends them (see format.legacy.PageStatistics): nulls of numbers
// and booleans read back as zero / false, empty strings read back as null, NaN is left
// out of the bounds. The stats are widened here to what a reader sees before pruning.

object PageStatsPruning {

  /**
   * Row ranges `[start, end)` of the legacy file `reader` in which no row can satisfy
   * `predicate`, judged batch by batch from the statistics of the top-level `fields` it
   * names. Batches are shared by every column of a legacy file.
   */
  def skippable(reader: LegacyFileReader, fields: Seq[LanceField], predicate: Expr): IndexedSeq[(Long, Long)] = {
    val byName = fields.map(f => f.name -> f).toMap
    val stats: Map[String, (ArrowType, IndexedSeq[PageStats])] = Expr.columns(predicate).iterator.flatMap { c =>
      byName.get(c).flatMap(f => reader.pageStatistics(f.id).map(s => c -> (f.toArrow(reader.path).getType, s)))
    }.toMap
    if (stats.isEmpty) IndexedSeq.empty
    else (0 until reader.numBatches).filterNot { b =>
      InclusiveEvaluator.mayMatch(predicate, c => stats.get(c).flatMap { case (t, pages) => pages.lift(b).map(asRead(_, t)) })
    }.map(b => (reader.batchStart(b), reader.batchEnd(b)))
  }

  /** One batch's statistics as the values read back look, in the expression language's literals. */
  private def asRead(p: PageStats, t: ArrowType): ColumnStats = {
    val rows = p.rowEnd - p.rowStart
    val mayHoldNulls = !p.nullCount.contains(0L)
    def literal(v: Option[StatValue], low: Boolean): Option[Any] = (v, t) match {
      case (Some(StatValue.Integer(n)), d: ArrowType.Date) if d.getUnit == DateUnit.MILLISECOND =>
        Some(Math.floorDiv(n.toLong, 86400000L)) // Spark reads date64 as days
      case (Some(StatValue.Integer(n)), _) if n.isValidLong => Some(n.toLong)
      // NaN is outside the bounds but above every number in Spark: no upper bound.
      case (Some(StatValue.Floating(d)), _) if low && !d.isNaN => Some(d)
      case (Some(StatValue.Utf8(s)), _) => Some(s)
      case (Some(StatValue.Bool(b)), _) => Some(b)
      case _ => None
    }
    // Nulls of numbers and booleans read back as the type's zero: widen the bounds to it.
    def widen(v: Option[Any], low: Boolean): Option[Any] = (v, mayHoldNulls) match {
      case (Some(n: Long), true) => Some(if (low) math.min(n, 0L) else math.max(n, 0L))
      case (Some(d: Double), true) => Some(if (low) math.min(d, 0.0) else math.max(d, 0.0))
      case (Some(b: Boolean), true) => Some(if (low) false else b)
      case (other, _) => other
    }
    ColumnStats(widen(literal(p.min, low = true), low = true), widen(literal(p.max, low = false), low = false),
      p.nullCount.getOrElse(0L), rows, nullsExact = false)
  }
}
