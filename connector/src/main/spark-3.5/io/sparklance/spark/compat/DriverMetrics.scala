package io.sparklance.spark.compat

import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.write.Write

/**
 * A write's metrics measured on the driver (the commit's). Spark 3.5's Write cannot report any
 * (reportDriverMetrics is 4.0, SPARK-50049): on 3.5 they are not shown; the table's history
 * still has every commit.
 */
trait DriverMetrics extends Write {
  protected def driverMetrics: Array[CustomTaskMetric]
}
