package io.sparklance.spark

import org.apache.spark.QueryContext
import org.apache.spark.sql.AnalysisException

import io.sparklance.util.LanceException

/**
 * A [[LanceException]] as Spark and PySpark see it: a `SparkThrowable` whose condition is
 * the Lance error class (`getCondition`, `getErrorClass`) with its SQLSTATE
 * (`getSqlState`), the original exception as its cause. It is an `AnalysisException`, as
 * Spark's own errors of a source that cannot be read are (`PATH_NOT_FOUND`,
 * `TABLE_OR_VIEW_NOT_FOUND`), because PySpark converts only Spark's known exception
 * classes into Python exceptions that answer `getCondition()`; a plain `SparkThrowable`
 * reaches Python as a bare `Py4JJavaError`.
 *
 * Raised in a task, it reaches the caller as itself too: Spark 4.2 rethrows a task failure
 * that is a `SparkThrowable` rather than wrapping it in its job failure (checked by
 * BadInputSuite and python/tests/test_errors.py).
 */
final class LanceSparkException private (val lance: LanceException)
    extends AnalysisException(
      lance.getMessage,
      None, // line
      None, // start position
      Some(lance),
      Some(lance.errorClass),
      Map("message" -> lance.detail),
      Array.empty[QueryContext],
      Some(lance.sqlState),
      Some("<message>"))

object LanceSparkException {

  def apply(e: LanceException): LanceSparkException = new LanceSparkException(e)

  /**
   * Runs `body` at a boundary where Spark calls us (table loading, scan planning, partition
   * readers), handing any LanceException to Spark as a [[LanceSparkException]].
   */
  def boundary[A](body: => A): A =
    try body
    catch { case e: LanceException => throw new LanceSparkException(e) }
}
