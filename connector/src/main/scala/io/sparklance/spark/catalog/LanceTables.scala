package io.sparklance.spark.catalog

import java.time.Instant

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{Column, TableCatalog}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.{DataType, Metadata, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.format.FileVersion
import io.sparklance.spark.{LanceOptions, LanceTable, WriteSchema}
import io.sparklance.spark.write.{LanceSave, LanceWriteOptions, WriteMode, WriteTarget}
import io.sparklance.storage.ObjectStoreFactory
import io.sparklance.table.commit.{CommitRequest, NewTable, Operation, TableCommitter}
import io.sparklance.util.Errors
import io.sparklance.util.ScalaCompat._

// What every catalog does with Lance tables, whatever records the names (the session catalog's
// metastore, or the folders under a LanceCatalog's warehouse): open a table at a version,
// create one, and read what a CREATE TABLE statement asks for out of Spark's properties.

/**
 * A CREATE / REPLACE TABLE statement's properties, split as Lance keeps them: `OPTIONS (...)`
 * are connector options stored in the catalog; every other non-reserved property is table
 * config, stored in the Lance table itself (what `SHOW TBLPROPERTIES` and pylance's
 * `LanceDataset.config` show).
 */
final case class TableSpec(
    location: Option[String],
    managedLocation: Boolean,
    external: Boolean,
    options: Map[String, String],
    config: Map[String, String],
    comment: Option[String],
    owner: Option[String])

object TableSpec {
  // TableCatalog.PROP_COLLATION (Spark 4.0) and PROP_TABLE_TYPE (4.1), spelled out so that every
  // line compiles: older lines never set them, and reserving them there costs nothing.
  val Collation = "collation"
  val TableType = "table_type"

  /** Properties Spark reserves for itself (CatalogV2Util.TABLE_RESERVED_PROPERTIES, as of Spark 4.2): never table config. */
  val SparkReserved: Set[String] = Set(TableCatalog.PROP_COMMENT, Collation, TableCatalog.PROP_LOCATION,
    TableCatalog.PROP_PROVIDER, TableCatalog.PROP_OWNER, TableCatalog.PROP_EXTERNAL, TableCatalog.PROP_IS_MANAGED_LOCATION, TableType)

  /** Also `path`, which a CREATE TABLE's properties may carry for the location. */
  private val Reserved = SparkReserved + "path"

  def apply(properties: java.util.Map[String, String]): TableSpec = {
    val props = properties.asScala.toMap
    val options = props.collect { case (k, v) if k.startsWith(TableCatalog.OPTION_PREFIX) => k.stripPrefix(TableCatalog.OPTION_PREFIX) -> v }
      .filter(_._1 != "path")
    TableSpec(
      location = props.get(TableCatalog.PROP_LOCATION),
      managedLocation = props.get(TableCatalog.PROP_IS_MANAGED_LOCATION).exists(_.equalsIgnoreCase("true")),
      external = props.get(TableCatalog.PROP_EXTERNAL).exists(_.equalsIgnoreCase("true")),
      options = options,
      config = props.filter { case (k, _) => !Reserved(k) && !k.startsWith(TableCatalog.OPTION_PREFIX) },
      comment = props.get(TableCatalog.PROP_COMMENT),
      owner = props.get(TableCatalog.PROP_OWNER))
  }
}

object LanceTables {

  /** The table an entry names: its latest version, or the one `version` names (an option of [[LanceOptions]]). */
  def load(entry: CatalogEntry, version: Option[(String, String)] = None): LanceTable = {
    val options = entry.options ++ Map(LanceOptions.Path -> entry.location) ++ version
    val table = LanceTable.open(new CaseInsensitiveStringMap(options.asJava), Some(entry))
    table.snapshot // a catalog names a table: none at its location is an error now, not at the first read
    table
  }

  /** The latest version of the table `table` names (after a commit of its own), on the same branch. */
  def reload(table: LanceTable): LanceTable =
    load(table.entry.getOrElse(throw new IllegalStateException("only catalog tables are reloaded")),
      table.options.branch.map(LanceOptions.Branch -> _))

  /**
   * `VERSION AS OF v`: a number is a version, anything else a tag name (pylance's
   * `checkout_version` takes either too).
   */
  def versionAsOf(version: String): (String, String) = {
    val v = version.trim
    if (v.toLongOption.isDefined) LanceOptions.Version -> v else LanceOptions.Tag -> v
  }

  /** `TIMESTAMP AS OF t`, which Spark gives in microseconds since the epoch, kept to the microsecond. */
  def timestampAsOf(micros: Long): (String, String) =
    LanceOptions.Timestamp -> Instant.ofEpochSecond(Math.floorDiv(micros, 1000000L), Math.floorMod(micros, 1000000L) * 1000L).toString

  /** A Lance table has no partitions: PARTITIONED BY / CLUSTER BY are refused by name. */
  def requireNoPartitions(partitions: Array[Transform], where: String): Unit =
    if (partitions != null && partitions.nonEmpty)
      throw Errors.unsupported(s"PARTITIONED BY / CLUSTER BY (${partitions.map(_.describe()).mkString(", ")}): a Lance table " +
        "has no partitions; create it without, and filter on the column (reads prune by zone maps and indices)", where)

  /** Spark's columns of a CREATE TABLE as a schema (comments and metadata kept). */
  def schemaOf(columns: Array[Column]): StructType = StructType(columns.map { c =>
    val meta = Option(c.metadataInJSON()).map(Metadata.fromJson).getOrElse(Metadata.empty)
    val field = StructField(c.name(), c.dataType(), c.nullable(), meta)
    Option(c.comment()).fold(field)(field.withComment)
  })

  /** The read options and stores of the table at `location` with `options`, its version not resolved yet. */
  private def at(location: String, options: Map[String, String]): (LanceOptions, ObjectStoreFactory) = {
    val all = options + (LanceOptions.Path -> location)
    (LanceOptions.parse(new CaseInsensitiveStringMap(all.asJava)), LanceTable.stores(all))
  }

  /**
   * Makes `location` hold a Lance table with `schema`: creates it (version 1, no rows, the
   * statement's table config) when there is none, or, when there is one, checks that a given
   * schema is the table's (no columns given: the table's are taken, as `CREATE TABLE t USING
   * lance LOCATION '...'` over a pylance dataset asks). Returns whether it created the table.
   */
  def createOrAdopt(location: String, schema: StructType, spec: TableSpec, where: String): Boolean = {
    LanceWriteOptions.refuseStoredApp(spec.options, where)
    val (opts, stores) = at(location, spec.options)
    val store = stores.create()
    LanceSave.latest(store, opts) match {
      case Some(existing) =>
        if (schema.nonEmpty) checkSameColumns(location, new LanceTable(Right(existing), opts, stores).schema(), schema)
        false
      case None =>
        if (schema.isEmpty)
          throw Errors.notADataset(location, s"no Lance table there, and $where gives no columns to create one with")
        store.requireAtomicCreate(location)
        val writeOptions = this.writeOptions(spec.options)
        val lanceSchema = WriteSchema.lance(schema, where)
        val table = NewTable(lanceSchema, writeOptions.fileFormatVersion.getOrElse(FileVersion.V2_2),
          writeOptions.enableStableRowIds.getOrElse(false), spec.config)
        new TableCommitter(store, location).commit(CommitRequest(None, Operation.Overwrite(IndexedSeq.empty, lanceSchema, spec.config),
          writeOptions.commitProperties, None, Some(table)))
        true
    }
  }

  /**
   * A CREATE TABLE AS SELECT (or DataFrameWriterV2 `create`) of `entry`: the query's rows become
   * version 1 of a new Lance table at its location, with the statement's table config. A
   * location that already holds a Lance table is refused: name it with CREATE TABLE ... LOCATION
   * and INSERT INTO it instead.
   */
  def stageCreate(entry: CatalogEntry, columns: StructType, spec: TableSpec, record: () => Unit): StagedLanceTable = {
    LanceWriteOptions.refuseStoredApp(entry.options, entry.name)
    val (opts, stores) = at(entry.location, entry.options)
    val store = stores.create()
    store.requireAtomicCreate(entry.location)
    LanceSave.latest(store, opts).foreach(s => throw Errors.tableAlreadyExists(s.root, s.version))
    val target = new LanceTable(Left(Errors.notADataset(entry.location, "no table yet: this statement creates it")), opts,
      stores, Some(WriteTarget(WriteMode.Create(ignoreIfExists = false), None, writeOptions(entry.options), spec.config)), Some(entry))
    new StagedLanceTable(target, columns, () => createOrAdopt(entry.location, columns, spec.copy(options = entry.options), entry.name), record)
  }

  /**
   * A REPLACE TABLE [AS SELECT] (or `createOrReplace`) of the Lance table `existing`: one
   * Overwrite commit, read at the loaded version, replaces its data and schema; the table config
   * is kept and the statement's entries upserted, and earlier versions stay readable (VERSION AS OF).
   */
  def stageReplace(existing: LanceTable, columns: StructType, spec: TableSpec, record: () => Unit): StagedLanceTable = {
    val entry = existing.entry.getOrElse(throw new IllegalStateException("a catalog replaces only tables it names"))
    val snapshot = existing.snapshot
    val options = entry.options ++ spec.options
    LanceWriteOptions.refuseStoredApp(options, entry.name)
    val target = new LanceTable(Right(snapshot), existing.options, existing.stores,
      Some(WriteTarget(WriteMode.Replace, Some(snapshot), writeOptions(options), spec.config)), Some(entry))
    def commitEmpty(): Unit = {
      val schema = WriteSchema.lance(columns, entry.name)
      new TableCommitter(existing.stores.create(), snapshot.root).commit(CommitRequest(Some(snapshot.version),
        Operation.Overwrite(IndexedSeq.empty, schema, spec.config), writeOptions(options).commitProperties))
    }
    new StagedLanceTable(target, columns, () => commitEmpty(), record)
  }

  private def writeOptions(options: Map[String, String]): LanceWriteOptions =
    LanceWriteOptions.parse(new CaseInsensitiveStringMap(options.asJava))

  /** The columns a statement declares against the table's: names (any case) and types, nullability aside. */
  private def checkSameColumns(location: String, table: StructType, declared: StructType): Unit = {
    val byName = table.fields.map(f => f.name.toLowerCase(java.util.Locale.ROOT) -> f).toMap
    val declaredNames = declared.fields.map(_.name.toLowerCase(java.util.Locale.ROOT)).toSet
    val missing = table.fields.filterNot(f => declaredNames(f.name.toLowerCase(java.util.Locale.ROOT))).map(_.name).toSeq
    val extra = declared.fields.filterNot(f => byName.contains(f.name.toLowerCase(java.util.Locale.ROOT))).map(_.name).toSeq
    val mistyped = declared.fields.toSeq.flatMap { f =>
      byName.get(f.name.toLowerCase(java.util.Locale.ROOT)).filterNot(t => DataType.equalsIgnoreCaseAndNullability(t.dataType, f.dataType))
        .map(t => (f.name, f.dataType.simpleString, t.dataType.simpleString))
    }
    if (missing.nonEmpty || extra.nonEmpty || mistyped.nonEmpty) throw Errors.declaredSchemaMismatch(location, missing, extra, mistyped)
  }
}
