package io.sparklance.spark

import java.util

import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.storage.ObjectStoreFactory
import io.sparklance.table.Snapshot

/** One pinned version of a Lance table, as Spark sees it. */
final class LanceTable(val snapshot: Snapshot, val options: LanceOptions, val stores: ObjectStoreFactory)
    extends Table with SupportsRead {

  private lazy val sparkSchema: StructType = {
    val where = snapshot.manifestPath
    StructType(snapshot.manifest.schema.fields.map(f => SparkArrow.sparkField(f.toArrow(where), where)))
  }

  override def name(): String = s"lance.`${snapshot.root}`@v${snapshot.version}"

  override def schema(): StructType = sparkSchema

  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = new LanceScanBuilder(this)
}
