package io.sparklance.spark.dml

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{And, Attribute, EqualTo, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, WriteDelta}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.write.RowLevelOperation.Command

/**
 * Tells a Lance MERGE which target columns its ON condition equates with the source (the
 * `target.c = source.e` conjuncts), which Spark's row-level operation does not pass to the
 * write: when they are the table's unenforced primary key, the MERGE records the keys it
 * inserts, as Lance's merge-insert on those columns does ([[InsertedKeyColumns]]). An optimizer
 * rule (injected by [[io.sparklance.spark.LanceExtensions]]) that runs before Spark builds the write.
 */
final case class MergeOnColumns(session: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    plan match {
      case w: WriteDelta => LanceRowLevelOperation.in(w).foreach { case (_, operation) =>
        if (operation.command() == Command.MERGE) {
          val target = w.originalTable.outputSet
          def column(a: Expression, b: Expression): Option[String] = a match {
            case c: Attribute if target.contains(c) && !b.references.exists(target.contains) => Some(c.name.toLowerCase(java.util.Locale.ROOT))
            case _ => None
          }
          operation.onColumns = MergeOnColumns.conjuncts(w.condition).flatMap {
            case EqualTo(l, r) => column(l, r).orElse(column(r, l))
            case _ => None
          }.toSet
        }
      }
      case _ =>
    }
    plan
  }
}

object MergeOnColumns {
  private def conjuncts(e: Expression): Seq[Expression] = e match {
    case And(l, r) => conjuncts(l) ++ conjuncts(r)
    case other => Seq(other)
  }
}
