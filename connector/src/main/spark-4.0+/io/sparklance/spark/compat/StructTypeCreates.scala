package io.sparklance.spark.compat

import org.apache.spark.sql.connector.catalog.StagingTableCatalog

/** Spark 4 creates and stages tables from Columns only (the StructType variants are deprecated defaults calling them): nothing to adapt. */
trait StructTypeCreates extends StagingTableCatalog
