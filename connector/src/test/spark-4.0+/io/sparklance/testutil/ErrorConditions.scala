package io.sparklance.testutil

import org.apache.spark.SparkThrowable

/** The error condition of a Spark error (Spark 4's getCondition; 3.5 calls it the error class). */
object ErrorConditions {
  implicit final class Condition(private val e: SparkThrowable) extends AnyVal {
    def condition: String = e.getCondition
  }
}
