package io.sparklance.spark

import org.apache.spark.sql.{SparkSessionExtensions, SparkSessionExtensionsProvider}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{And, BindReferences, InterpretedMutableProjection, InterpretedPredicate,
  SubqueryExpression}
import org.apache.spark.sql.catalyst.planning.PhysicalOperation
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connector.read.LocalScan
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation

import io.sparklance.spark.compat.LocalScans

/**
 * The connector's additions to every SparkSession, found by Spark's service loader
 * (META-INF/services/org.apache.spark.sql.SparkSessionExtensionsProvider), so that the jar
 * on the classpath is all a user needs; `spark.sql.extensions` may name it too.
 */
final class LanceExtensions extends SparkSessionExtensionsProvider {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectPlannerStrategy(_ => AnswerOnDriver)
    extensions.injectPreCBORule(io.sparklance.spark.dml.SourceKeyPruning.apply)
    extensions.injectPreCBORule(io.sparklance.spark.dml.MergeOnColumns.apply)
    io.sparklance.spark.compat.CallStatements.inject(extensions)
  }
}

/**
 * Plans a query over a scan answered on the driver (an aggregate from metadata,
 * [[LanceAggregateScan]]; a point look-up, [[LanceDriverScan]]), with the filters and
 * projection Spark puts over it, as one local scan of the resulting rows: collect() then reads
 * them on the driver with no job, as for `SELECT 1`. Spark's own planning puts a filter and a
 * projection over the local scan, compiles them into a stage and runs a job for a handful of
 * rows, which doubled the time of a `COUNT(*)`. (Spark 4.2's optimizer runs every injectable
 * logical batch before scans are pushed down, so this has to be a planner strategy.)
 */
object AnswerOnDriver extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case PhysicalOperation(project, filters, r: DataSourceV2ScanRelation) if answered(r.scan) &&
        (project ++ filters).forall(e => e.deterministic && !SubqueryExpression.hasSubquery(e)) =>
      val input = r.output
      val keep = filters.reduceOption(And).map(c => InterpretedPredicate(BindReferences.bindReference(c, input)))
      keep.foreach(_.initialize(0))
      val projection = new InterpretedMutableProjection(project, input)
      projection.initialize(0)
      val rows = r.scan.asInstanceOf[LocalScan].rows().iterator.filter(row => keep.forall(_.eval(row)))
        .map(row => projection(row).copy(): InternalRow).toSeq
      LocalScans.of(project.map(_.toAttribute), rows) :: Nil
    case _ => Nil
  }

  private def answered(scan: org.apache.spark.sql.connector.read.Scan): Boolean = scan match {
    case _: LanceAggregateScan | _: LanceDriverScan => true
    case _ => false
  }
}
