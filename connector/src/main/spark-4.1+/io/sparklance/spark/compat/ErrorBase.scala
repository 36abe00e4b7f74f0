package io.sparklance.spark.compat

import org.apache.spark.QueryContext
import org.apache.spark.sql.AnalysisException

/**
 * The AnalysisException our errors reach Spark as, built with Spark 4.1's constructor that also
 * takes the SQLSTATE and the message template (the message is whole: no parameters to fill in).
 */
abstract class ErrorBase(message: String, cause: Throwable, errorClass: String, parameters: Map[String, String], sqlState: String)
    extends AnalysisException(message, None, None, Some(cause), Some(errorClass), parameters, Array.empty[QueryContext],
      Some(sqlState), Some("<message>"))
