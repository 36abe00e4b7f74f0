package io.sparklance.spark.compat

import org.apache.spark.sql.connector.catalog.TableCapability

/**
 * Before Spark 4.1 a table cannot ask Spark to add a query's new columns (no
 * AUTOMATIC_SCHEMA_EVOLUTION, no INSERT WITH SCHEMA EVOLUTION): a DataFrame append adds them
 * itself with the `mergeSchema` write option.
 */
object SchemaEvolution {
  val capabilities: Seq[TableCapability] = Seq.empty
}
