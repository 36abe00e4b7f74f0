package io.sparklance.spark.compat

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/**
 * Before Spark 4.2 a MERGE with only WHEN NOT MATCHED clauses has no plan node of its own:
 * Spark rewrites it into a plain append while analysing, so nothing here matches.
 */
object InsertOnlyMerges {
  def unapply(plan: LogicalPlan): Option[(LogicalPlan, LogicalPlan)] = None
}
