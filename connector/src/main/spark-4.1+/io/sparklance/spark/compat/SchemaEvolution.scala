package io.sparklance.spark.compat

import org.apache.spark.sql.connector.catalog.TableCapability

/**
 * Spark 4.1's `TableCapability.AUTOMATIC_SCHEMA_EVOLUTION`: a table declaring it has a query's
 * new columns added by Spark, through the catalog's ALTER TABLE, before the write
 * (INSERT WITH SCHEMA EVOLUTION, `mergeSchema`).
 */
object SchemaEvolution {
  val capabilities: Seq[TableCapability] = Seq(TableCapability.AUTOMATIC_SCHEMA_EVOLUTION)
}
