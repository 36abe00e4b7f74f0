package io.sparklance.spark.compat

import org.apache.spark.sql.catalyst.plans.logical.{InsertOnlyMerge, LogicalPlan}

/**
 * Spark 4.2's plan node for a MERGE with only WHEN NOT MATCHED clauses (`InsertOnlyMerge`):
 * an append of the source rows that a left anti join with the target keeps.
 */
object InsertOnlyMerges {
  /** The target relation, the rows to append and the append's options (none yet), when `plan` is such a MERGE. */
  def unapply(plan: LogicalPlan): Option[(LogicalPlan, LogicalPlan, Map[String, String])] = plan match {
    case m: InsertOnlyMerge => Some((m.table, m.query, Map.empty))
    case _ => None
  }
}
