package io.sparklance.spark

import org.apache.spark.sql.connector.read.{Scan, ScanBuilder, SupportsPushDownRequiredColumns}
import org.apache.spark.sql.types.StructType

/** Collects what Spark pushes down (for now, the columns it needs) and builds the scan. */
final class LanceScanBuilder(table: LanceTable) extends ScanBuilder with SupportsPushDownRequiredColumns {
  private var required: StructType = table.schema()

  override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema

  override def build(): Scan = {
    val byName = table.snapshot.manifest.schema.fields.map(f => f.name -> f).toMap
    val fields = required.fields.toIndexedSeq.map(f => byName(f.name))
    new LanceScan(table, fields, required)
  }
}
