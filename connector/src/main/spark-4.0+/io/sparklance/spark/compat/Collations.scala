package io.sparklance.spark.compat

import org.apache.spark.sql.types.StringType

/** String collations (Spark 4.0+, StringType.collationId): plain is UTF8_BINARY, the plain StringType's. */
object Collations {
  def plain(s: StringType): Boolean = s.collationId == StringType.collationId
}
