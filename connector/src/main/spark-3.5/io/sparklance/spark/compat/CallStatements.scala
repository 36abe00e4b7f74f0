package io.sparklance.spark.compat

import org.apache.spark.sql.SparkSessionExtensions

import io.sparklance.spark.procedures.LanceCallParser

/**
 * `CALL` statements on Spark 3.5, whose SQL has none: our parser takes the statements that
 * start with CALL and hands every other one to Spark's ([[LanceCallParser]]).
 */
object CallStatements {
  def inject(extensions: SparkSessionExtensions): Unit =
    extensions.injectParser((session, delegate) => new LanceCallParser(session, delegate))
}
