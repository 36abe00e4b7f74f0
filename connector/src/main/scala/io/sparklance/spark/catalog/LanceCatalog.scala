package io.sparklance.spark.catalog

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.analysis.{NamespaceAlreadyExistsException, NoSuchNamespaceException, NoSuchTableException,
  NonEmptyNamespaceException, TableAlreadyExistsException}
import org.apache.spark.sql.connector.catalog.{Column, Identifier, NamespaceChange, StagedTable, StagingTableCatalog, SupportsNamespaces,
  Table, TableCatalog, TableChange}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.spark.compat.StructTypeCreates
import io.sparklance.spark.{LanceSparkException, LanceTable}
import io.sparklance.spark.procedures.ServesLanceProcedures
import io.sparklance.storage.{ObjectStore, Paths}
import io.sparklance.table.Snapshot
import io.sparklance.util.Errors

/**
 * A catalog of the Lance tables under one folder, with no metastore:
 * `spark.sql.catalog.<name>=io.sparklance.spark.catalog.LanceCatalog` and
 * `spark.sql.catalog.<name>.warehouse=<folder or s3a:// prefix>`. Its other options (`fs.s3a.*`
 * settings, read and write options) apply to every table it serves.
 *
 * Namespaces are folders; a table is a folder holding `_versions/` (named `<table>.lance` when
 * this catalog creates it, as Lance's directory namespace does; a pylance dataset already there,
 * with or without the suffix, is a table too). `` <name>.`/any/path` `` names the table at a
 * path outside the warehouse; dropping such a table removes its name only, never its data.
 * Dropping a table under the warehouse deletes its folder.
 */
class LanceCatalog extends StagingTableCatalog with StructTypeCreates with SupportsNamespaces with ServesLanceProcedures {

  private var catalogName: String = _
  private var warehouse: String = _
  private var options: Map[String, String] = Map.empty

  override def name(): String = catalogName

  // Every method Spark calls runs in LanceSparkException.boundary, so that its errors reach
  // Spark (and PySpark) as AnalysisExceptions that keep their Lance class.

  override def initialize(name: String, opts: CaseInsensitiveStringMap): Unit = LanceSparkException.boundary {
    catalogName = name
    val root = Option(opts.get(LanceCatalog.Warehouse)).map(_.trim).filter(_.nonEmpty).getOrElse(
      throw Errors.invalidArgument(s"catalog '$name' (LanceCatalog) needs a warehouse: set spark.sql.catalog.$name.warehouse " +
        "to a folder or an s3a:// prefix"))
    warehouse = Paths.stripTrailingSlash(root)
    options = opts.asCaseSensitiveMap().asScala.toMap - LanceCatalog.Warehouse
  }

  private def store: ObjectStore = LanceTable.stores(options).create()

  // ---- names and folders ----------------------------------------------------------------

  private def folder(namespace: Array[String]): String = namespace.foldLeft(warehouse) { (p, part) =>
    if (!CatalogNames.isFolderName(part)) throw Errors.invalidName(catalogName, "namespace", part, CatalogNames.FolderNameRule)
    Paths.join(p, part)
  }

  private def isPath(name: String): Boolean = name.startsWith("/") || name.contains("://")

  /** A path given as the table name (`` cat.`/abs/path` `` or a URI), outside the warehouse. */
  private def pathIdent(ident: Identifier): Option[String] =
    if (ident.namespace().isEmpty && isPath(ident.name())) Some(ident.name()) else None

  /** A folder whose `_versions/` holds a manifest (an emptied folder left by a drop is not a table). */
  private def isTable(dir: String): Boolean =
    store.listNames(Paths.join(dir, Snapshot.VersionsDir)).exists(_.endsWith(".manifest"))

  /** The folder of an existing table named `ident`, if any. */
  private def existing(ident: Identifier): Option[String] = pathIdent(ident) match {
    case Some(p) => Some(Paths.stripTrailingSlash(p)).filter(isTable)
    // `` cat.`/path`.history ``: a name below a table named by its path ([[TableSuffixes]]), no table itself.
    case None if ident.namespace().length == 1 && isPath(ident.namespace()(0)) => None
    case None =>
      val dir = folder(ident.namespace())
      Seq(Paths.join(dir, ident.name() + LanceCatalog.Suffix), Paths.join(dir, checkedName(ident.name()))).find(isTable)
  }

  /** The folders directly inside `dir`, by name (hidden ones aside). */
  private def subfolders(dir: String): Seq[String] =
    store.listNames(dir).filterNot(_.startsWith(".")).filter(n => store.isDirectory(Paths.join(dir, n)))

  private def checkedName(name: String): String = {
    if (!CatalogNames.isFolderName(name)) throw Errors.invalidName(catalogName, "table", name, CatalogNames.FolderNameRule)
    name
  }

  private def quoted(ident: Identifier): String = CatalogNames.quoted(catalogName +: ident.namespace().toSeq :+ ident.name())

  private def entry(ident: Identifier, location: String): CatalogEntry =
    CatalogEntry(quoted(ident), location, managed = pathIdent(ident).isEmpty, options)

  // ---- tables ---------------------------------------------------------------------------

  override def listTables(namespace: Array[String]): Array[Identifier] = LanceSparkException.boundary {
    val dir = folder(namespace)
    if (!namespaceExists(namespace)) throw new NoSuchNamespaceException(namespace)
    subfolders(dir).filter(n => isTable(Paths.join(dir, n)))
      .map(n => Identifier.of(namespace, n.stripSuffix(LanceCatalog.Suffix))).sortBy(_.name()).toArray
  }

  override def loadTable(ident: Identifier): Table = load(ident, None)

  override def loadTable(ident: Identifier, version: String): Table = load(ident, Some(LanceTables.versionAsOf(version)))

  override def loadTable(ident: Identifier, timestamp: Long): Table = load(ident, Some(LanceTables.timestampAsOf(timestamp)))

  private def load(ident: Identifier, version: Option[(String, String)]): Table = LanceSparkException.boundary(existing(ident) match {
    case Some(location) => LanceTables.load(entry(ident, location), version)
    case None =>
      // `ns.t.history`, `ns.t.branch_dev`: a name below a table ([[TableSuffixes]]).
      val below = ident.namespace() match {
        case Array() => None
        case ns if version.isEmpty =>
          val parent = Identifier.of(ns.init, ns.last)
          existing(parent).flatMap(l => TableSuffixes.resolve(entry(parent, l), ident.name()))
        case _ => None
      }
      below.getOrElse(throw new NoSuchTableException(ident))
  })

  override def tableExists(ident: Identifier): Boolean = LanceSparkException.boundary(existing(ident).isDefined)

  /** Where a new table named `ident` goes: `<namespace folder>/<name>.lance`, or the path it names. */
  private def newLocation(ident: Identifier, properties: util.Map[String, String]): String = {
    requireLance(ident, properties)
    if (existing(ident).isDefined) throw new TableAlreadyExistsException(ident)
    val spec = TableSpec(properties)
    pathIdent(ident) match {
      case Some(p) => Paths.stripTrailingSlash(p)
      case None =>
        spec.location.foreach(l => throw Errors.unsupported(s"LOCATION '$l' in catalog $catalogName: its tables lie under its " +
          s"warehouse; name a table elsewhere as $catalogName.`/path/to/table`", quoted(ident)))
        if (!namespaceExists(ident.namespace())) throw new NoSuchNamespaceException(ident.namespace())
        Paths.join(folder(ident.namespace()), checkedName(ident.name()) + LanceCatalog.Suffix)
    }
  }

  override def createTable(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): Table = LanceSparkException.boundary {
    LanceTables.requireNoPartitions(partitions, quoted(ident))
    val location = newLocation(ident, properties)
    LanceTables.createOrAdopt(location, LanceTables.schemaOf(columns), withOptions(TableSpec(properties)), quoted(ident))
    loadTable(ident)
  }

  override def stageCreate(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = LanceSparkException.boundary {
    LanceTables.requireNoPartitions(partitions, quoted(ident))
    val location = newLocation(ident, properties)
    LanceTables.stageCreate(entry(ident, location), LanceTables.schemaOf(columns), withOptions(TableSpec(properties)), () => ())
  }

  override def stageReplace(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = LanceSparkException.boundary {
    requireLance(ident, properties)
    LanceTables.requireNoPartitions(partitions, quoted(ident))
    val location = existing(ident).getOrElse(throw new NoSuchTableException(ident))
    LanceTables.stageReplace(LanceTables.load(entry(ident, location)), LanceTables.schemaOf(columns), TableSpec(properties), () => ())
  }

  override def stageCreateOrReplace(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = LanceSparkException.boundary {
    if (existing(ident).isDefined) stageReplace(ident, columns, partitions, properties)
    else stageCreate(ident, columns, partitions, properties)
  }

  /**
   * Every table of this catalog is a Lance table: `USING parquet` (or any provider but lance)
   * is refused rather than ignored. A statement without USING gives no provider here.
   */
  private def requireLance(ident: Identifier, properties: util.Map[String, String]): Unit =
    Option(properties.get(TableCatalog.PROP_PROVIDER)).filterNot(LanceTable.isLance).foreach { p =>
      throw Errors.unsupported(s"USING $p in catalog $catalogName, whose tables are all Lance tables: create the table " +
        "USING lance (or without USING), or in a catalog that keeps tables of that format", quoted(ident))
    }

  private def withOptions(spec: TableSpec): TableSpec = spec.copy(options = options ++ spec.options)

  override def alterTable(ident: Identifier, changes: TableChange*): Table = LanceSparkException.boundary {
    existing(ident) match {
      case Some(location) =>
        AlterLanceTable(LanceTables.load(entry(ident, location)), changes)
        LanceTables.load(entry(ident, location))
      case None => TableSuffixes.alter(loadTable(ident), changes) // `t.branch_dev`, or NoSuchTableException
    }
  }

  /** Deletes a warehouse table's folder; a table named by path loses nothing (it has no name to lose). */
  override def dropTable(ident: Identifier): Boolean = LanceSparkException.boundary(existing(ident) match {
    case Some(location) if pathIdent(ident).isEmpty => store.deleteDirectory(location)
    case Some(_) => throw Errors.unsupported(
      s"DROP TABLE of a table named by its path: catalog $catalogName does not own it, and its data is not deleted", quoted(ident))
    case None => false
  })

  override def renameTable(from: Identifier, to: Identifier): Unit = LanceSparkException.boundary {
    val source = existing(from).filter(_ => pathIdent(from).isEmpty).getOrElse(throw new NoSuchTableException(from))
    val target = newLocation(to, new util.HashMap[String, String]())
    // A Lance table refers to its files by paths relative to its folder: the folder moves whole.
    if (!store.renameDirectory(source, target)) throw Errors.io(target, s"moving the table folder $source", null)
  }

  // ---- namespaces -----------------------------------------------------------------------

  override def listNamespaces(): Array[Array[String]] = listNamespaces(Array.empty)

  override def listNamespaces(namespace: Array[String]): Array[Array[String]] = LanceSparkException.boundary {
    if (!namespaceExists(namespace)) throw new NoSuchNamespaceException(namespace)
    val dir = folder(namespace)
    // `<name>.lance` folders are tables' (an emptied one, left by a drop on some object stores, is no namespace).
    subfolders(dir).filterNot(n => n.endsWith(LanceCatalog.Suffix) || isTable(Paths.join(dir, n)))
      .map(n => namespace :+ n).sortBy(_.mkString(".")).toArray
  }

  override def namespaceExists(namespace: Array[String]): Boolean = LanceSparkException.boundary {
    val dir = folder(namespace)
    store.isDirectory(dir) && (namespace.isEmpty || !isTable(dir))
  }

  override def loadNamespaceMetadata(namespace: Array[String]): util.Map[String, String] = LanceSparkException.boundary {
    if (!namespaceExists(namespace)) throw new NoSuchNamespaceException(namespace)
    Map("location" -> folder(namespace)).asJava
  }

  override def createNamespace(namespace: Array[String], metadata: util.Map[String, String]): Unit = LanceSparkException.boundary {
    if (namespaceExists(namespace)) throw new NamespaceAlreadyExistsException(namespace)
    if (!metadata.isEmpty && metadata.asScala.keySet.exists(k => k != "owner"))
      throw Errors.unsupported(s"namespace properties (${metadata.asScala.keys.mkString(", ")}): a namespace " +
        "of a LanceCatalog is a folder and keeps none", CatalogNames.quoted(catalogName +: namespace.toSeq))
    store.makeDirectory(folder(namespace))
  }

  override def alterNamespace(namespace: Array[String], changes: NamespaceChange*): Unit =
    throw LanceSparkException(Errors.unsupported("ALTER NAMESPACE: a namespace of a LanceCatalog is a folder and keeps no properties",
      CatalogNames.quoted(catalogName +: namespace.toSeq)))

  override def dropNamespace(namespace: Array[String], cascade: Boolean): Boolean = LanceSparkException.boundary {
    if (namespace.isEmpty) throw Errors.unsupported("dropping the warehouse itself", catalogName)
    namespaceExists(namespace) && {
      val dir = folder(namespace)
      // Files, not folders, make a namespace non-empty: some object stores keep emptied folders.
      if (!cascade && store.listRecursive(dir).nonEmpty) throw new NonEmptyNamespaceException(namespace)
      store.deleteDirectory(dir)
    }
  }
}

object LanceCatalog {
  val Warehouse = "warehouse"
  /** The folder suffix of the tables this catalog creates (Lance's directory namespace uses it too). */
  val Suffix = ".lance"
}
