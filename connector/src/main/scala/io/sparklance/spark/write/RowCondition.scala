package io.sparklance.spark.write

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BasePredicate, BindReferences, Expression, Predicate}
import org.apache.spark.sql.catalyst.plans.logical.Filter
import org.apache.spark.sql.types.StructType

import io.sparklance.spark.SparkFilters
import io.sparklance.util.Errors

/**
 * The condition of an overwrite by condition (REPLACE WHERE), which every written row must
 * satisfy: a row outside it would not be replaced by the same statement run again, and would
 * survive a later overwrite of that range (Delta checks the same, DELTA_REPLACE_WHERE_MISMATCH).
 * Spark hands the condition as data source filters; it is analyzed once on the driver against
 * the rows' schema (so types are coerced as in the statement) and bound to the rows' ordinals.
 */
final class RowCondition private (bound: Expression, val sql: String, where: String) extends Serializable {
  @transient private lazy val predicate: BasePredicate = {
    val p = Predicate.create(bound)
    p.initialize(0)
    p
  }

  /** Fails the write when `row` does not satisfy the condition (a NULL answer does not satisfy it). */
  def check(row: InternalRow): Unit =
    if (!predicate.eval(row)) throw Errors.replaceWhereMismatch(where, sql)
}

object RowCondition {
  def apply(filters: Array[org.apache.spark.sql.sources.Filter], rows: StructType, where: String): RowCondition = {
    val sql = filters.map(SparkFilters.sql).mkString("(", ") AND (", ")")
    val empty = SparkSession.active.createDataFrame(java.util.Collections.emptyList[Row](), rows)
    val (condition, input) = empty.where(sql).queryExecution.analyzed.collectFirst { case Filter(c, child) => (c, child.output) }.get
    new RowCondition(BindReferences.bindReference(condition, input), filters.map(SparkFilters.sql).mkString(" AND "), where)
  }
}
