package io.sparklance.spark.compat

import org.apache.spark.sql.SparkSessionExtensions

/**
 * `CALL` statements: Spark 4 parses them itself and calls our procedures through its
 * stored-procedure API (procedures.ServesLanceProcedures), so there is nothing to add.
 */
object CallStatements {
  def inject(extensions: SparkSessionExtensions): Unit = ()
}
