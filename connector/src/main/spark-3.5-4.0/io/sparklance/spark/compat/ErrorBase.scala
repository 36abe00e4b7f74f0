package io.sparklance.spark.compat

import org.apache.spark.QueryContext
import org.apache.spark.sql.AnalysisException

/**
 * The AnalysisException our errors reach Spark as. Before Spark 4.1 its constructor takes no
 * SQLSTATE (Spark looks one up by error class, and ours are not in its list), so it is answered here.
 */
abstract class ErrorBase(message: String, cause: Throwable, errorClass: String, parameters: Map[String, String], sqlState: String)
    extends AnalysisException(message, None, None, Some(cause), Some(errorClass), parameters, Array.empty[QueryContext]) {
  override def getSqlState: String = sqlState
}
