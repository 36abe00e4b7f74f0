package io.sparklance.spark.dml

import org.apache.spark.internal.Logging
import org.apache.spark.sql.sources.{AlwaysFalse, AlwaysTrue, Filter}

import io.sparklance.spark.{LanceSparkException, LanceTable, SparkFilters}
import io.sparklance.table.ScanPlanner
import io.sparklance.table.commit.{CommitRequest, Operation, TableCommitter}
import io.sparklance.table.expr.Expr

/**
 * A DELETE answered from statistics alone, with no Spark job and no data file read: when the
 * table's zone maps and indices show that each fragment either holds no row the condition may
 * match, or only rows it surely matches, the fragments of the second kind are removed whole in
 * one Delete commit. Spark asks first ([[LanceTable.canDeleteWhere]]); any other condition
 * goes through the row-level DELETE ([[LanceRowLevelOperation]]).
 *
 * A condition that is always true (`DELETE FROM t`, `DELETE FROM t WHERE true`, `TRUNCATE
 * TABLE t`) removes every fragment, as pylance's `delete("true")` does
 * (rust/lance/src/dataset/write/delete.rs): a Delete rather than an empty Overwrite, so that
 * the schema, indices and config stay, and rows another writer appends meanwhile, which the
 * statement never saw, survive its commit (an Overwrite would replace them).
 */
object MetadataDelete extends Logging {

  /** The ids of the fragments to remove, or None when statistics cannot decide every fragment. */
  def fragmentsToRemove(table: LanceTable, filters: Array[Filter]): Option[Seq[Long]] = {
    val conjuncts = filters.toSeq.filterNot(_.isInstanceOf[AlwaysTrue])
    if (conjuncts.exists(_.isInstanceOf[AlwaysFalse])) return Some(Seq.empty)
    if (conjuncts.isEmpty) return Some(table.snapshot.manifest.fragments.map(_.id).sorted)
    val exprs = conjuncts.map(SparkFilters.exactExpr(_, table.schema()))
    if (exprs.exists(_.isEmpty)) return None
    val condition = exprs.flatten.reduce(Expr.And)
    val store = table.stores.create()
    val snapshot = table.snapshot
    // Rows the condition may match; rows it may fail to match (NOT p may match wherever p is not
    // surely true, nulls included: InclusiveEvaluator evaluates NOT by "must match").
    val mayMatch = ScanPlanner.plan(store, snapshot, Some(condition)).tasks.map(_.fragmentId).toSet
    val mayMiss = ScanPlanner.plan(store, snapshot, Some(Expr.Not(condition))).tasks.map(_.fragmentId).toSet
    if (mayMatch.exists(mayMiss)) None else Some(mayMatch.toSeq.sorted)
  }

  /** Removes the fragments the condition covers whole, as one Delete at the loaded version. */
  def run(table: LanceTable, filters: Array[Filter]): Unit = LanceSparkException.boundary {
    val ids = fragmentsToRemove(table, filters).getOrElse(
      throw new IllegalStateException("a delete from statistics was asked for a condition they cannot decide"))
    if (ids.isEmpty) logInfo(s"${table.name()}: no row matches ${describe(filters)}; nothing is committed")
    else {
      val snapshot = table.snapshot
      val outcome = new TableCommitter(table.stores.create(), snapshot.root).commit(CommitRequest(Some(snapshot.version),
        Operation.Delete(IndexedSeq.empty, ids.toIndexedSeq, describe(filters)), table.writeOptions().commitProperties))
      logInfo(s"${table.name()}: version ${outcome.version} removes fragments ${ids.mkString(", ")} whole (${describe(filters)})")
    }
  }

  private def describe(filters: Array[Filter]): String = filters.map(SparkFilters.sql).mkString(" AND ")
}
