package io.sparklance.testutil

/**
 * What a caller catches when a Lance error fails a task: Spark 4 rethrows a SparkThrowable that
 * failed a task as it is (Spark 3.5 wraps it in its job failure), so there is nothing to unwrap.
 */
object TaskFailures {
  def unwrap(e: Throwable): Throwable = e
}
