package io.sparklance.spark

import java.util

import org.apache.spark.sql.connector.catalog.{MetadataColumn => SparkMetadataColumn, SupportsMetadataColumns, SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.types.{DataType, LongType, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.storage.ObjectStoreFactory
import io.sparklance.table.{BasePaths, BlobFetch, BlobMode, MetadataColumn, Snapshot}
import io.sparklance.util.Redaction

/** One pinned version of a Lance table, as Spark sees it. */
final class LanceTable(val snapshot: Snapshot, val options: LanceOptions, val stores: ObjectStoreFactory)
    extends Table with SupportsRead with SupportsMetadataColumns {

  /**
   * Whether time columns read as Spark's TimeType: only where the session enables it
   * (`spark.sql.timeType.enabled`), decided once when the table is loaded so that the schema,
   * the scans and the executors' readers agree (see [[SparkArrow]]).
   */
  val timeType: Boolean = org.apache.spark.sql.internal.SQLConf.get.isTimeTypeEnabled

  /** How blob columns read: external blobs, under `allowedBasePaths`, where base paths may lie. */
  val blobs: BlobMode = options.blobs match {
    case _: BlobMode.Bytes => BlobMode.Bytes(options.allowedBasePaths.map(BasePaths.prefixes(options.path, _)))
    case other => other
  }

  private lazy val sparkSchema: StructType = LanceSparkException.boundary {
    val where = snapshot.manifestPath
    StructType(snapshot.manifest.schema.fields.map(f => SparkArrow.sparkField(BlobFetch.arrowField(f, blobs, where), where, timeType, Some(f))))
  }

  /**
   * The stores as executors get them: broadcast once per table rather than once per query,
   * since serializing a Hadoop configuration (and sizing it for the block manager) is a
   * visible part of a short query's time on the driver.
   */
  lazy val executorStores: ObjectStoreFactory =
    new BroadcastStores(org.apache.spark.sql.SparkSession.active.sparkContext.broadcast(stores))

  override def name(): String = s"lance.`${Redaction(snapshot.root)}`@v${snapshot.version}"

  override def schema(): StructType = sparkSchema

  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)

  /** `_rowid`, `_rowaddr` ((fragment id << 32) | offset) and `_fragid`, selectable like columns. */
  override def metadataColumns(): Array[SparkMetadataColumn] = MetadataColumn.all.map { m =>
    new SparkMetadataColumn {
      override def name(): String = m.name
      override def dataType(): DataType = LongType
      override def isNullable: Boolean = false
      override def comment(): String = m match {
        case MetadataColumn.RowId => "stable row id (the row address when the table has no stable row ids)"
        case MetadataColumn.RowAddress => "row address: fragment id << 32 | offset in the fragment"
        case MetadataColumn.FragmentId => "fragment id"
      }
    }: SparkMetadataColumn
  }.toArray

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = new LanceScanBuilder(this)
}
