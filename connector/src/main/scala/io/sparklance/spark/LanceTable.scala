package io.sparklance.spark

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{MetadataColumn => SparkMetadataColumn, SupportsDelete, SupportsMetadataColumns, SupportsRead,
  SupportsRowLevelOperations, SupportsWrite, Table, TableCapability, TableCatalog}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, RowLevelOperationBuilder, RowLevelOperationInfo, WriteBuilder}
import org.apache.spark.sql.sources.{AlwaysTrue, Filter}
import org.apache.spark.sql.types.{DataType, LongType, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.spark.catalog.CatalogEntry
import io.sparklance.spark.compat.{KeptOnReinsert, SchemaEvolution, SparkTime}
import io.sparklance.spark.dml.{CatalogWriteBuilder, LanceRowLevelOperation, MetadataDelete}
import io.sparklance.spark.write.{LanceWriteBuilder, LanceWriteOptions, WriteMode, WriteTarget}
import io.sparklance.storage.ObjectStoreFactory
import io.sparklance.storage.hadoop.HadoopObjectStoreFactory
import io.sparklance.table.{BasePaths, BlobFetch, BlobMode, MetadataColumn, Snapshot, VersionSpec}
import io.sparklance.util.{Errors, LanceException, NotFoundException, Redaction}

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
 *
 * A table a catalog loads (`entry`) is written as SQL writes tables: INSERT INTO appends at the
 * version the statement loaded, INSERT OVERWRITE truncates, and Spark matches the query's
 * columns to the table's before the write sees them.
 */
final class LanceTable(resolved: Either[LanceException, Snapshot], val options: LanceOptions, val stores: ObjectStoreFactory,
    val target: Option[WriteTarget] = None, val entry: Option[CatalogEntry] = None)
    extends Table with SupportsRead with SupportsWrite with SupportsMetadataColumns with SupportsRowLevelOperations with SupportsDelete {

  def snapshot: Snapshot = resolved.fold(e => throw LanceSparkException(e), identity)

  /** False when there is no table at the path (yet). */
  def exists: Boolean = resolved.isRight

  /**
   * Whether time columns read as Spark's TimeType: only where the session enables it
   * (`spark.sql.timeType.enabled`), decided once when the table is loaded so that the schema,
   * the scans and the executors' readers agree (see [[SparkArrow]]).
   */
  val timeType: Boolean = SparkTime.enabled

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

  override def name(): String = entry.map(_.name).getOrElse(
    if (exists) s"lance.`${Redaction(snapshot.root)}`@v${snapshot.version}" else s"lance.`${Redaction(options.path)}` (new)")

  /**
   * A catalog table at its latest version, on the main branch or a branch (`t.branch_dev`),
   * takes writes, which add a version to that line; one read at a version, a tag or a time does
   * not (Spark refuses writes to those anyway).
   */
  private def writableEntry: Boolean = entry.isDefined && options.version == VersionSpec.Latest

  /** The options of a write to this table: those its catalog stores with it, a statement's `statement` over them. */
  def writeOptions(statement: CaseInsensitiveStringMap = CaseInsensitiveStringMap.empty()): LanceWriteOptions = {
    val stored = entry.fold(Map.empty[String, String])(_.options)
    LanceWriteOptions.refuseStoredApp(stored, name())
    LanceWriteOptions.parse(new CaseInsensitiveStringMap((stored ++ LanceTable.asScala(statement.asCaseSensitiveMap())).asJava))
  }

  /**
   * What DESCRIBE EXTENDED and SHOW TBLPROPERTIES show: the catalog's reserved properties, the
   * stored options, and the Lance table config (which ALTER TABLE SET TBLPROPERTIES changes).
   */
  override def properties(): util.Map[String, String] = {
    val props = new util.LinkedHashMap[String, String]()
    entry.foreach { e =>
      props.put(TableCatalog.PROP_PROVIDER, LanceTable.Provider)
      props.put(TableCatalog.PROP_LOCATION, e.location)
      if (!e.managed) props.put(TableCatalog.PROP_EXTERNAL, "true")
      e.comment.foreach(props.put(TableCatalog.PROP_COMMENT, _))
      e.owner.foreach(props.put(TableCatalog.PROP_OWNER, _))
      e.options.foreach { case (k, v) => props.put(TableCatalog.OPTION_PREFIX + k, Redaction.option(k, v)) }
    }
    if (exists) snapshot.manifest.config.toSeq.sortBy(_._1).foreach { case (k, v) => props.put(k, v) }
    props
  }

  /** A write target with no table yet has no columns: the write brings them (ACCEPT_ANY_SCHEMA). */
  override def schema(): StructType = if (target.isDefined && !exists) new StructType() else sparkSchema

  /**
   * A write target accepts any schema: the write checks the DataFrame's columns against the
   * table's itself, naming every missing, extra or differently typed one in one Lance error
   * ([[io.sparklance.spark.write.WriteColumns]]), and an overwrite replaces the schema.
   */
  override def capabilities(): util.Set[TableCapability] = target match {
    // Spark 4.1+ adds a query's new columns itself before such a table's write, through the
    // catalog's ALTER TABLE (AlterLanceTable): INSERT WITH SCHEMA EVOLUTION, mergeSchema.
    case None if writableEntry =>
      val caps = util.EnumSet.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE, TableCapability.TRUNCATE, TableCapability.OVERWRITE_BY_FILTER)
      SchemaEvolution.capabilities.foreach(caps.add)
      caps
    case None => util.EnumSet.of(TableCapability.BATCH_READ)
    case Some(_) =>
      val caps = util.EnumSet.of(TableCapability.BATCH_WRITE, TableCapability.TRUNCATE, TableCapability.ACCEPT_ANY_SCHEMA)
      if (exists) caps.add(TableCapability.BATCH_READ)
      caps
  }

  // Spark asks only a table that declares BATCH_WRITE for a write builder. A catalog table's
  // write reads the options stored with it, overridden by the statement's (DataFrameWriterV2).
  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = LanceSparkException.boundary {
    target match {
      case Some(t) => new LanceWriteBuilder(this, t, info)
      case None =>
        if (!writableEntry) throw new IllegalStateException(s"$name is not a write target")
        new CatalogWriteBuilder(this, WriteTarget(WriteMode.Append, Some(snapshot), writeOptions(info.options())), info)
    }
  }

  /** `_rowid`, `_rowaddr` ((fragment id << 32) | offset) and `_fragid`, selectable like columns. */
  override def metadataColumns(): Array[SparkMetadataColumn] = MetadataColumn.all.map { m =>
    new SparkMetadataColumn with KeptOnReinsert {
      override def name(): String = m.name
      override def dataType(): DataType = LongType
      override def isNullable: Boolean = false
      override def comment(): String = m match {
        case MetadataColumn.RowId => "stable row id (the row address when the table has no stable row ids)"
        case MetadataColumn.RowAddress => "row address: fragment id << 32 | offset in the fragment"
        case MetadataColumn.FragmentId => "fragment id"
      }
      // An updated row keeps its stable row id: Spark hands the id along with the row written
      // again (DeltaWriter.reinsert) when the column asks to be preserved on reinsert.
      override protected def keptOnReinsert: Boolean = m == MetadataColumn.RowId
    }: SparkMetadataColumn
  }.toArray

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = new LanceScanBuilder(this, driverLookups = true)

  /** DELETE, UPDATE, MERGE INTO on a catalog table ([[LanceRowLevelOperation]]). */
  override def newRowLevelOperationBuilder(info: RowLevelOperationInfo): RowLevelOperationBuilder = {
    if (!writableEntry) throw notWritable(info.command().name())
    () => new LanceRowLevelOperation(this, info.command())
  }

  private def notWritable(command: String): LanceSparkException = LanceSparkException(Errors.unsupported(s"$command on $name: only " +
    "tables named in a catalog, at their latest version (of the main branch or a branch), take row-level changes", options.path))

  /**
   * Spark asks this before planning a DELETE: true when statistics alone decide it
   * ([[MetadataDelete]]), as they do a condition that is always true (`DELETE FROM t`).
   */
  override def canDeleteWhere(filters: Array[Filter]): Boolean =
    writableEntry && LanceSparkException.boundary(MetadataDelete.fragmentsToRemove(this, filters).isDefined)

  override def deleteWhere(filters: Array[Filter]): Unit = MetadataDelete.run(this, filters)

  /**
   * TRUNCATE TABLE: every row removed, as `DELETE FROM t` does. Spark ignores the answer of
   * this call, so a table that takes no row-level change says so here rather than answer false.
   */
  override def truncateTable(): Boolean = {
    if (!writableEntry) throw notWritable("TRUNCATE TABLE")
    MetadataDelete.run(this, Array(AlwaysTrue))
    true
  }
}

object LanceTable {
  /** The provider name catalogs record for Lance tables (`USING lance`). */
  val Provider = "lance"

  /** Whether a catalog's provider names this connector: its short name or its class. */
  def isLance(provider: String): Boolean =
    provider != null && (provider.equalsIgnoreCase(Provider) || provider == classOf[LanceDataSource].getName)

  /**
   * The table `options` name (`path` and the read options), resolved once on the driver: its
   * latest version or the one the options ask for. No table at the path is not an error here:
   * reading fails when Spark asks for the schema, and a write can create the table.
   */
  def open(options: CaseInsensitiveStringMap, entry: Option[CatalogEntry] = None): LanceTable = {
    val opts = LanceOptions.parse(options)
    val stores = LanceTable.stores(asScala(options.asCaseSensitiveMap()))
    val snapshot =
      try Right(Snapshot.resolve(stores.create(), opts.path, opts.branch, opts.version, opts.allowedBasePaths))
      catch { case e: NotFoundException if e.errorClass == "LANCE_DATASET_NOT_FOUND" => Left(e) }
    new LanceTable(snapshot, opts, stores, None, entry)
  }

  /** Stores with the session's Hadoop settings, `options` (such as `fs.s3a.*` keys) over them. */
  def stores(options: Map[String, String]): ObjectStoreFactory =
    new HadoopObjectStoreFactory(org.apache.spark.sql.SparkSession.active.sessionState.newHadoopConfWithOptions(options))

  private[spark] def asScala(m: util.Map[String, String]): Map[String, String] = m.asScala.toMap
}
