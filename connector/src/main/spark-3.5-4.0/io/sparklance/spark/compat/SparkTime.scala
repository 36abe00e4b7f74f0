package io.sparklance.spark.compat

import org.apache.spark.sql.types.DataType

/**
 * Spark's TIME type, absent before Spark 4.1: times of day always read as bigint
 * microseconds since midnight, and no Spark column is a TIME.
 */
object SparkTime {
  val supported = false

  def enabled: Boolean = false

  def micros: DataType = throw new IllegalStateException("this Spark line has no TIME type: times read as bigint microseconds")

  def unapply(t: DataType): Boolean = false
}
