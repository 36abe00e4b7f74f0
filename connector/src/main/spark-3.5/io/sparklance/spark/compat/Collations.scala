package io.sparklance.spark.compat

import org.apache.spark.sql.types.StringType

/** String collations, a Spark 4.0 type feature: every Spark 3.5 string is plain (binary UTF-8). */
object Collations {
  def plain(s: StringType): Boolean = true
}
