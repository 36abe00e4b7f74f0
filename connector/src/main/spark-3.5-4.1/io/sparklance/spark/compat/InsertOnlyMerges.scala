package io.sparklance.spark.compat

import org.apache.spark.sql.catalyst.plans.LeftAnti
import org.apache.spark.sql.catalyst.plans.logical.{AppendData, Join, LogicalPlan}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

import io.sparklance.spark.write.InsertedKeyColumns

/**
 * Before Spark 4.2 a MERGE with only WHEN NOT MATCHED clauses has no plan node of its own: the
 * analyser rewrites it (RewriteMergeIntoTable) into an append of the source rows that a left
 * anti join with the target keeps. Such an append is matched here by that join, whoever wrote
 * it: an INSERT of the rows whose key the table lacks is the same write as the MERGE.
 */
object InsertOnlyMerges {
  /** The target relation, the rows to append and the append's options, when `plan` is such an append not yet marked. */
  def unapply(plan: LogicalPlan): Option[(LogicalPlan, LogicalPlan, Map[String, String])] = plan match {
    case a: AppendData if !a.writeOptions.contains(InsertedKeyColumns.MergeOnOption) => a.table match {
      case r: DataSourceV2Relation if a.query.exists {
            case j: Join => j.joinType == LeftAnti && j.right.exists { case s: DataSourceV2Relation => s.table eq r.table; case _ => false }
            case _ => false
          } => Some((r, a.query, a.writeOptions))
      case _ => None
    }
    case _ => None
  }
}
