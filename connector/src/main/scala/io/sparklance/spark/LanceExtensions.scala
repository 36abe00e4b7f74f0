package io.sparklance.spark

import org.apache.spark.sql.{SparkSessionExtensions, SparkSessionExtensionsProvider}
import org.apache.spark.sql.catalyst.expressions.{Attribute, InterpretedMutableProjection, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.execution.{LocalTableScanExec, SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation

/**
 * The connector's additions to every SparkSession, found by Spark's service loader
 * (META-INF/services/org.apache.spark.sql.SparkSessionExtensionsProvider), so that the jar
 * on the classpath is all a user needs; `spark.sql.extensions` may name it too.
 */
final class LanceExtensions extends SparkSessionExtensionsProvider {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectPlannerStrategy(_ => AnswerFromMetadata)
    extensions.injectPreCBORule(io.sparklance.spark.dml.SourceKeyPruning.apply)
    extensions.injectPreCBORule(io.sparklance.spark.dml.MergeOnColumns.apply)
  }
}

/**
 * Plans an aggregate answered from metadata ([[LanceAggregateScan]]), with the projection
 * Spark puts over it, as one local scan of the projected row: collect() then reads it on
 * the driver with no job, as for `SELECT 1`. Spark's own planning puts a projection over
 * the local scan, compiles both into a stage and runs a one-task job for one row, which
 * doubled the time of a `COUNT(*)`. (Spark 4.2's optimizer runs every injectable logical
 * batch before scans are pushed down, so this has to be a planner strategy.)
 */
object AnswerFromMetadata extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case Project(list, Answered(scan, output)) if list.forall(_.deterministic) => local(list, output, scan)
    case Answered(scan, output) => local(output, output, scan)
    case _ => Nil
  }

  private object Answered {
    def unapply(p: LogicalPlan): Option[(LanceAggregateScan, Seq[Attribute])] = p match {
      case r: DataSourceV2ScanRelation => r.scan match {
        case s: LanceAggregateScan => Some((s, r.output))
        case _ => None
      }
      case _ => None
    }
  }

  private def local(list: Seq[NamedExpression], input: Seq[Attribute], scan: LanceAggregateScan): Seq[SparkPlan] = {
    val projection = new InterpretedMutableProjection(list, input)
    projection.initialize(0)
    LocalTableScanExec(list.map(_.toAttribute), scan.rows().toSeq.map(projection(_).copy()), None) :: Nil
  }
}
