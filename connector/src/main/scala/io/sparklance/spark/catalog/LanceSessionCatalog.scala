package io.sparklance.spark.catalog

import java.util

import org.apache.spark.sql.{AnalysisException, SparkSession}
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.analysis.{NoSuchTableException, TableAlreadyExistsException}
import org.apache.spark.sql.catalyst.catalog.{CatalogStorageFormat, CatalogTable, CatalogTableType, CatalogUtils}
import org.apache.spark.sql.connector.catalog.{Column, DelegatingCatalogExtension, Identifier, StagedTable, StagingTableCatalog, Table, TableCatalog, TableChange}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.StructType

import io.sparklance.spark.compat.StructTypeCreates
import io.sparklance.spark.{LanceSparkException, LanceTable}
import io.sparklance.spark.procedures.ServesLanceProcedures
import io.sparklance.storage.Paths
import io.sparklance.util.Errors
import io.sparklance.util.ScalaCompat._

/**
 * Lance tables in Spark's own session catalog (`spark_catalog`), as Delta's DeltaCatalog does
 * for Delta: set `spark.sql.catalog.spark_catalog=io.sparklance.spark.catalog.LanceSessionCatalog`
 * (`pyspark_lance.configure` sets it). Every other table goes to the built-in catalog unchanged.
 *
 * The metastore records a Lance table's name, location, whether it is managed, and its
 * `OPTIONS`; its schema, data and properties live in the Lance table, so that pylance and
 * Spark see the same. `CREATE TABLE` commits version 1 of a new Lance table (or names one
 * already at the LOCATION); CTAS and REPLACE TABLE write their rows in one commit before the
 * name is recorded (StagingTableCatalog); reads take `VERSION AS OF` (a version or a tag) and
 * `TIMESTAMP AS OF`. DROP TABLE is Spark's own: a managed table's folder is deleted with it,
 * an external table's data stays.
 */
class LanceSessionCatalog extends DelegatingCatalogExtension with StagingTableCatalog with StructTypeCreates with ServesLanceProcedures {

  // Every method Spark calls runs in LanceSparkException.boundary, so that its errors reach
  // Spark (and PySpark) as AnalysisExceptions that keep their Lance class.

  override def loadTable(ident: Identifier): Table = LanceSparkException.boundary {
    try lance(super.loadTable(ident), ident, None)
    catch { case e: AnalysisException if !e.isInstanceOf[LanceSparkException] => below(ident).getOrElse(throw e) }
  }

  /**
   * `t.history`, `db.t.branch_dev`, ...: a name below a Lance table's ([[TableSuffixes]]), which
   * the built-in catalog takes for a table in a namespace named after the table.
   */
  private def below(ident: Identifier): Option[Table] = ident.namespace() match {
    case Array() => None
    case ns =>
      // The built-in catalog wants a database: `t.history` is below `t` of the current one.
      val parent = Identifier.of(if (ns.length == 1) Array(session.sessionState.catalog.getCurrentDatabase) else ns.init, ns.last)
      val table = try Some(super.loadTable(parent)) catch { case _: AnalysisException => None }
      table.flatMap(entryOf(parent, _)).flatMap(TableSuffixes.resolve(_, ident.name()))
  }

  override def loadTable(ident: Identifier, version: String): Table = LanceSparkException.boundary {
    entryOf(ident, super.loadTable(ident)) match {
      case Some(e) => LanceTables.load(e, Some(LanceTables.versionAsOf(version)))
      case None => super.loadTable(ident, version)
    }
  }

  override def loadTable(ident: Identifier, timestamp: Long): Table = LanceSparkException.boundary {
    entryOf(ident, super.loadTable(ident)) match {
      case Some(e) => LanceTables.load(e, Some(LanceTables.timestampAsOf(timestamp)))
      case None => super.loadTable(ident, timestamp)
    }
  }

  private def lance(t: Table, ident: Identifier, version: Option[(String, String)]): Table =
    entryOf(ident, t).fold(t)(e => LanceTables.load(e, version))

  /**
   * The entry of a table the built-in catalog loaded, if it is a Lance table: with a custom
   * session catalog set, Spark's V2SessionCatalog hands back every table as a V1Table, whose
   * properties carry the provider, location, table type and stored options.
   */
  private def entryOf(ident: Identifier, t: Table): Option[CatalogEntry] = {
    val props = t.properties()
    if (!LanceTable.isLance(props.get(TableCatalog.PROP_PROVIDER))) None
    else {
      val spec = TableSpec(props)
      val external = spec.external || Option(props.get(TableSpec.TableType)).exists(_.equalsIgnoreCase("EXTERNAL"))
      val location = spec.location.getOrElse(throw Errors.invalidArgument(s"${quoted(ident)}: the catalog records no location for this Lance table"))
      Some(CatalogEntry(quoted(ident), location, managed = !external, spec.options, spec.comment, spec.owner))
    }
  }

  override def createTable(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): Table =
    if (!LanceTable.isLance(properties.get(TableCatalog.PROP_PROVIDER))) super.createTable(ident, columns, partitions, properties)
    else LanceSparkException.boundary {
      val (entry, spec) = newEntry(ident, partitions, properties)
      LanceTables.createOrAdopt(entry.location, LanceTables.schemaOf(columns), spec, quoted(ident))
      record(ident, entry)
      loadTable(ident)
    }

  /** The built-in catalog's CREATE TABLE, for a provider that is not Lance. */
  private[catalog] def createBuiltIn(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): Table = super.createTable(ident, columns, partitions, properties)

  override def stageCreate(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable =
    if (!LanceTable.isLance(properties.get(TableCatalog.PROP_PROVIDER))) BestEffortStaged.create(this, ident, columns, partitions, properties)
    else LanceSparkException.boundary {
      val (entry, spec) = newEntry(ident, partitions, properties)
      LanceTables.stageCreate(entry, LanceTables.schemaOf(columns), spec, () => record(ident, entry))
    }

  override def stageReplace(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = LanceSparkException.boundary {
    val existing = super.loadTable(ident) // NoSuchTableException when there is none, as REPLACE TABLE reports it
    replace(ident, existing, columns, partitions, properties)
  }

  override def stageCreateOrReplace(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = LanceSparkException.boundary {
    val existing = try Some(super.loadTable(ident)) catch { case _: NoSuchTableException => None }
    existing match {
      case Some(t) => replace(ident, t, columns, partitions, properties)
      case None => stageCreate(ident, columns, partitions, properties)
    }
  }

  private def replace(ident: Identifier, existing: Table, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = LanceSparkException.boundary {
    val lanceWanted = LanceTable.isLance(properties.get(TableCatalog.PROP_PROVIDER))
    (entryOf(ident, existing), lanceWanted) match {
      case (Some(e), true) =>
        LanceTables.requireNoPartitions(partitions, quoted(ident))
        val spec = TableSpec(properties)
        spec.location.filter(l => Paths.stripTrailingSlash(l) != Paths.stripTrailingSlash(e.location)).foreach { l =>
          throw Errors.unsupported(s"REPLACE TABLE with a new LOCATION ('$l'; the table lies at '${e.location}'): drop the table and " +
            "create it at the new location", quoted(ident))
        }
        LanceTables.stageReplace(LanceTables.load(e), LanceTables.schemaOf(columns), spec, () => ())
      case (None, false) => BestEffortStaged.replace(this, ident, columns, partitions, properties)
      case (_, _) =>
        throw Errors.unsupported(s"REPLACE TABLE changing the provider of ${quoted(ident)} from " +
          s"${Option(existing.properties().get(TableCatalog.PROP_PROVIDER)).getOrElse("?")} to ${properties.get(TableCatalog.PROP_PROVIDER)}: " +
          "drop the table and create it again", quoted(ident))
    }
  }

  /** ALTER TABLE of a Lance table changes the Lance table ([[AlterLanceTable]]), not the metastore's entry. */
  override def alterTable(ident: Identifier, changes: TableChange*): Table = LanceSparkException.boundary {
    val table = try Right(super.loadTable(ident))
    catch { case e: AnalysisException if !e.isInstanceOf[LanceSparkException] => Left(below(ident).getOrElse(throw e)) }
    table match {
      case Left(branch) => TableSuffixes.alter(branch, changes) // `db.t.branch_dev`
      case Right(t) => entryOf(ident, t) match {
        case None => super.alterTable(ident, changes: _*)
        case Some(e) => AlterLanceTable(LanceTables.load(e), changes); LanceTables.load(e)
      }
    }
  }

  /**
   * Where a new table goes and what the catalog will record: its LOCATION (external), or the
   * session's default path for the name (managed, a folder that must be absent or empty).
   * Decided before anything is written: the name must be one the metastore takes, and a
   * relative LOCATION is resolved where the metastore will record it.
   */
  private def newEntry(ident: Identifier, partitions: Array[Transform], properties: util.Map[String, String]): (CatalogEntry, TableSpec) = {
    LanceTables.requireNoPartitions(partitions, quoted(ident))
    requireMetastoreName(ident)
    if (tableExists(ident)) throw new TableAlreadyExistsException(ident)
    val spec = TableSpec(properties)
    val managed = spec.location.isEmpty || spec.managedLocation
    val location = spec.location.map(qualified(ident, _)).getOrElse(session.sessionState.catalog.defaultTablePath(tableIdentifier(ident)).toString)
    if (spec.location.isEmpty) requireEmpty(ident, location)
    (CatalogEntry(quoted(ident), location, managed, spec.options, spec.comment, spec.owner), spec)
  }

  /**
   * The metastore takes only names of ASCII letters, digits and '_' (Spark's
   * SessionCatalog.validateName, as Hive's MetaStoreUtils.validateName), and checks them only
   * when the name is recorded, after the table is written. A managed table's folder is named
   * after it: `../x` or `x/y` would put it outside the database's folder. So check first.
   */
  private def requireMetastoreName(ident: Identifier): Unit =
    if (!LanceSessionCatalog.MetastoreName.matches(ident.name()))
      throw Errors.invalidName(name(), "table", ident.name(), "the metastore takes names of ASCII letters, digits and '_' only")

  /**
   * A LOCATION as the metastore records it: a relative one below its database's folder
   * (SessionCatalog.makeQualifiedTablePath does the same when the name is recorded), so that
   * the table is written where the name will point, never under the driver's working folder.
   */
  private def qualified(ident: Identifier, location: String): String = {
    val db = tableIdentifier(ident).database.get
    val dbLocation = CatalogUtils.URIToString(session.sessionState.catalog.getDatabaseMetadata(db).locationUri)
    CatalogUtils.makeQualifiedDBObjectPath(dbLocation, location, session.sessionState.newHadoopConf())
  }

  private def requireEmpty(ident: Identifier, location: String): Unit = {
    val store = LanceTable.stores(Map.empty).create()
    if (store.listNames(location).nonEmpty)
      throw Errors.invalidArgument(s"${quoted(ident)}: its managed location $location already holds files. Remove them, or give the " +
        "table a LOCATION (an existing Lance table there is then taken as it is)")
  }

  /**
   * Records the table in the metastore: no schema (the Lance table has it), its location,
   * type and options. Straight through the SessionCatalog, as Delta does, because Spark's own
   * path refuses a managed location that is not empty, and the Lance version is already there.
   */
  private def record(ident: Identifier, entry: CatalogEntry): Unit = {
    val table = CatalogTable(
      identifier = tableIdentifier(ident),
      tableType = if (entry.managed) CatalogTableType.MANAGED else CatalogTableType.EXTERNAL,
      storage = CatalogStorageFormat.empty.copy(locationUri = Some(CatalogUtils.stringToURI(entry.location)), properties = entry.options),
      schema = new StructType(),
      provider = Some(LanceTable.Provider),
      owner = entry.owner.getOrElse(""),
      comment = entry.comment)
    session.sessionState.catalog.createTable(table, ignoreIfExists = false, validateLocation = false)
  }

  private def tableIdentifier(ident: Identifier): TableIdentifier = ident.namespace() match {
    case Array() => TableIdentifier(ident.name(), Some(session.sessionState.catalog.getCurrentDatabase))
    case Array(db) => TableIdentifier(ident.name(), Some(db))
    case ns => throw Errors.invalidArgument(s"${quoted(ident)}: the session catalog has one level of namespaces (databases), not ${ns.length}")
  }

  private def quoted(ident: Identifier): String = CatalogNames.quoted(name() +: ident.namespace().toSeq :+ ident.name())

  private def session = SparkSession.active
}

object LanceSessionCatalog {
  private val MetastoreName = "[A-Za-z0-9_]+".r
}
