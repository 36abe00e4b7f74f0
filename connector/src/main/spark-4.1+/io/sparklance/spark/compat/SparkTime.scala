package io.sparklance.spark.compat

import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{DataType, TimeType}

/**
 * Spark's TIME type, which Spark 4.1 introduced (`TimeType`, `spark.sql.timeType.enabled`).
 * Lines without it read times of day as bigint microseconds (the other overlay).
 */
object SparkTime {
  /** Whether this line has a TIME type at all. */
  val supported = true

  /** Whether the session takes TIME columns: only then do Lance times read as TIME(6). */
  def enabled: Boolean = SQLConf.get.isTimeTypeEnabled

  /** TIME(6): microseconds since midnight, the precision every Lance time unit maps to. */
  def micros: DataType = TimeType(6)

  /** Matches a TIME type of any precision. */
  def unapply(t: DataType): Boolean = t.isInstanceOf[TimeType]
}
