package io.sparklance.spark.dml

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, EqualTo, Expression, PredicateHelper}
import org.apache.spark.sql.catalyst.plans.LeftAnti
import org.apache.spark.sql.catalyst.plans.logical.{AppendData, Join, LogicalPlan, WriteDelta}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

import io.sparklance.spark.LanceTable
import io.sparklance.spark.compat.InsertOnlyMerges
import io.sparklance.spark.write.InsertedKeyColumns
import io.sparklance.table.proto.ManifestCodec

/**
 * Tells a Lance MERGE which target columns its ON condition equates with the source (the
 * `target.c = source.e` conjuncts), which Spark's row-level operation does not pass to the
 * write: when they are the table's unenforced primary key, the MERGE records the keys it
 * inserts, as Lance's merge-insert on those columns does ([[InsertedKeyColumns]]). An optimizer
 * rule (injected by [[io.sparklance.spark.LanceExtensions]]) that runs before Spark builds the
 * write. (compat.InsertOnlyMerges finds an insert-only MERGE, which each Spark line plans its own way.)
 */
final case class MergeOnColumns(session: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan match {
    case w: WriteDelta =>
      LanceRowLevelOperation.in(w).filter(_._2.command() == Command.MERGE).foreach { case (_, operation) =>
        operation.onColumns = MergeOnColumns.equated(w.condition, w.originalTable.outputSet)
      }
      w
    // Spark writes a MERGE with only WHEN NOT MATCHED clauses as an append of the source rows
    // a left anti join with the target keeps; into a table with a primary key it must commit as a
    // merge-insert (see MergeInserts), so the append is marked with the ON condition's columns.
    case m @ InsertOnlyMerges(table, query, options) => table match {
      case r: DataSourceV2Relation => r.table match {
        case t: LanceTable if ManifestCodec.primaryKeyFields(t.snapshot.manifest).nonEmpty =>
          val on = query.collectFirst {
            case j: Join if j.joinType == LeftAnti && j.right.exists { case s: DataSourceV2Relation => s.table eq t; case _ => false } =>
              j.condition.fold(Set.empty[String])(MergeOnColumns.equated(_, j.right.outputSet))
          }.getOrElse(Set.empty)
          AppendData.byPosition(r, query, options + (InsertedKeyColumns.MergeOnOption -> on.mkString(",")))
        case _ => m
      }
      case _ => m
    }
    case other => other
  }
}

object MergeOnColumns extends PredicateHelper {
  /** The `target` columns (lower case) that `condition`'s conjuncts `c = e` equate with an expression not of the target. */
  private def equated(condition: Expression, target: AttributeSet): Set[String] = {
    def column(a: Expression, b: Expression): Option[String] = a match {
      case c: Attribute if target.contains(c) && !b.references.exists(target.contains) => Some(c.name.toLowerCase(java.util.Locale.ROOT))
      case _ => None
    }
    splitConjunctivePredicates(condition).flatMap {
      case EqualTo(l, r) => column(l, r).orElse(column(r, l))
      case _ => None
    }.toSet
  }
}
