package io.sparklance.testutil

import org.apache.spark.SparkThrowable

/** The error condition of a Spark error: Spark 3.5 calls it the error class (getCondition is 4.0). */
object ErrorConditions {
  implicit final class Condition(private val e: SparkThrowable) extends AnyVal {
    def condition: String = e.getErrorClass
  }
}
