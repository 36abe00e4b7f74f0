package io.sparklance.spark.compat

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.execution.{LocalTableScanExec, SparkPlan}

/** A scan of rows already on the driver: Spark 3.5's LocalTableScanExec takes the output and the rows. */
object LocalScans {
  def of(output: Seq[Attribute], rows: Seq[InternalRow]): SparkPlan = LocalTableScanExec(output, rows)
}
