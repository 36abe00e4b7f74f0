package io.sparklance.spark

import java.util

import org.apache.spark.sql.connector.catalog.{MetadataColumn => SparkMetadataColumn, SupportsMetadataColumns, SupportsRead, SupportsWrite, Table, TableCapability}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.types.{DataType, LongType, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.spark.write.{LanceWriteBuilder, WriteTarget}
import io.sparklance.storage.ObjectStoreFactory
import io.sparklance.table.{BasePaths, BlobFetch, BlobMode, MetadataColumn, Snapshot}
import io.sparklance.util.{LanceException, Redaction}

/**
 * A Lance table as Spark sees it: one pinned version to read, and, when it is the `target` of a
 * DataFrame write ([[io.sparklance.spark.write.LanceSave]]), where that write goes. `resolved`
 * is the pinned version, or why there is none (no table at the path yet): reading fails with
 * that error only when Spark asks for the schema, so that a write can create the table.
 *
 * Only a write target declares BATCH_WRITE. The table `spark.read`/`df.write` load through
 * [[LanceDataSource]] must not: Spark's DataFrameWriter refuses the save modes
 * `errorifexists` and `ignore` for a table that declares it, and hands every mode to
 * [[LanceDataSource.createRelation]] for one that does not.
 */
final class LanceTable(resolved: Either[LanceException, Snapshot], val options: LanceOptions, val stores: ObjectStoreFactory,
    val target: Option[WriteTarget] = None)
    extends Table with SupportsRead with SupportsWrite with SupportsMetadataColumns {

  def snapshot: Snapshot = resolved.fold(e => throw LanceSparkException(e), identity)

  /** False when there is no table at the path (yet). */
  def exists: Boolean = resolved.isRight

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

  override def name(): String =
    if (exists) s"lance.`${Redaction(snapshot.root)}`@v${snapshot.version}" else s"lance.`${Redaction(options.path)}` (new)"

  /** A write target with no table yet has no columns: the write brings them (ACCEPT_ANY_SCHEMA). */
  override def schema(): StructType = if (target.isDefined && !exists) new StructType() else sparkSchema

  /**
   * A write target accepts any schema: the write checks the DataFrame's columns against the
   * table's itself, naming every missing, extra or differently typed one in one Lance error
   * ([[io.sparklance.spark.write.WriteColumns]]), and an overwrite replaces the schema.
   */
  override def capabilities(): util.Set[TableCapability] = target match {
    case None => util.EnumSet.of(TableCapability.BATCH_READ)
    case Some(_) =>
      val caps = util.EnumSet.of(TableCapability.BATCH_WRITE, TableCapability.TRUNCATE, TableCapability.ACCEPT_ANY_SCHEMA)
      if (exists) caps.add(TableCapability.BATCH_READ)
      caps
  }

  // Spark asks only a table that declares BATCH_WRITE for a write builder.
  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder =
    new LanceWriteBuilder(this, target.getOrElse(throw new IllegalStateException(s"$name is not a write target")), info)

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
