package io.sparklance.spark

import java.nio.file.InvalidPathException

import io.sparklance.spark.compat.ErrorBase
import io.sparklance.util.{Errors, LanceException}

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
    extends ErrorBase(lance.getMessage, lance, lance.errorClass, Map("message" -> lance.detail), lance.sqlState)

object LanceSparkException {

  def apply(e: LanceException): LanceSparkException = new LanceSparkException(e)

  /**
   * Runs `body` at a boundary where Spark calls us (catalogs, table loading, scan planning,
   * partition readers), handing any LanceException to Spark as a [[LanceSparkException]]; so
   * is a path the file system refuses ([[refusedPath]]), whose message would otherwise show
   * the path whole, credentials in its user-info too.
   */
  def boundary[A](body: => A): A =
    try body
    catch {
      case e: LanceException => throw new LanceSparkException(e)
      case e: IllegalArgumentException if refusedPath(e) => throw new LanceSparkException(Errors.invalidPath(e))
    }

  /**
   * Hadoop's file systems refuse a path they cannot take with an IllegalArgumentException
   * thrown from `org.apache.hadoop.fs` ("Wrong FS: file://user:secret@/t, expected: file:///"
   * from FileSystem.checkPath; a malformed URI from Path), and the JDK one with a NUL in it
   * with InvalidPathException. Matched by the frame that threw, since the spark layer does
   * not import Hadoop.
   */
  private def refusedPath(e: IllegalArgumentException): Boolean =
    e.isInstanceOf[InvalidPathException] || e.getStackTrace.headOption.exists(_.getClassName.startsWith("org.apache.hadoop.fs."))
}
