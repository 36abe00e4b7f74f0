package io.sparklance.spark.compat

import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.write.Write

/** A write's metrics measured on the driver (the commit's): Spark 4's Write.reportDriverMetrics (SPARK-50049) posts them after the commit. */
trait DriverMetrics extends Write {
  protected def driverMetrics: Array[CustomTaskMetric]

  override def reportDriverMetrics(): Array[CustomTaskMetric] = driverMetrics
}
