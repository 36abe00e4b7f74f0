package io.sparklance.spark.catalog

import java.util

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability, TableChange}
import org.apache.spark.sql.connector.read.{LocalScan, Scan, ScanBuilder}
import org.apache.spark.sql.types._
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.apache.spark.unsafe.types.UTF8String

import io.sparklance.spark.{LanceOptions, LanceSparkException, LanceTable}
import io.sparklance.table.{FileLocations, Refs, VersionSpec}
import io.sparklance.table.commit.TableHistory
import io.sparklance.util.Errors

/**
 * Names below a Lance table's name, in every catalog: `<table>.history`, `<table>.fragments`,
 * `<table>.indices` and `<table>.refs` are metadata tables (read on the driver from the manifests, no data file
 * opened); `<table>.branch_<name>` reads and writes a branch (INSERT, DELETE, UPDATE, MERGE
 * and ALTER TABLE add versions to the branch) and `<table>.tag_<name>` reads a tagged version (read-only;
 * `VERSION AS OF '<tag>'` reads a tag too).
 */
object TableSuffixes {

  /** The table `suffix` names below the table of `entry`, or None when it names none. */
  def resolve(entry: CatalogEntry, suffix: String): Option[Table] = LanceSparkException.boundary {
    suffix match {
      case s if s.startsWith("branch_") && s.length > 7 => Some(LanceTables.load(entry, Some(LanceOptions.Branch -> s.drop(7))))
      case s if s.startsWith("tag_") && s.length > 4 => Some(LanceTables.load(entry, Some(LanceOptions.Tag -> s.drop(4))))
      case s => s.toLowerCase(java.util.Locale.ROOT) match {
        case "history" => Some(history(LanceTables.load(entry)))
        case "fragments" => Some(fragments(LanceTables.load(entry)))
        case "refs" => Some(refs(LanceTables.load(entry)))
        case "indices" => Some(indices(LanceTables.load(entry)))
        case _ => None
      }
    }
  }

  /**
   * ALTER TABLE of a name below a table: on `t.branch_<name>` every change ALTER TABLE makes
   * on the table is committed on the branch's own line (`tree/<name>/`), the main line
   * untouched. A tagged version and the metadata tables are read-only.
   */
  def alter(below: Table, changes: Seq[TableChange]): Table = below match {
    case t: LanceTable if t.options.branch.isDefined && t.options.version == VersionSpec.Latest =>
      AlterLanceTable(t, changes)
      LanceTables.reload(t)
    case t => throw Errors.invalidArgument(s"ALTER TABLE ${t.name()}: a tagged version and a metadata table are read-only; " +
      "alter the table itself or one of its branches (`<table>.branch_<name>`)")
  }

  private def str(s: String): UTF8String = if (s == null) null else UTF8String.fromString(s)

  private def history(t: LanceTable): Table = {
    val schema = StructType(Seq(
      StructField("version", LongType, nullable = false), StructField("timestamp", TimestampType),
      StructField("operation", StringType), StructField("read_version", LongType),
      StructField("rows", LongType, nullable = false), StructField("rows_added", LongType, nullable = false),
      StructField("rows_removed", LongType, nullable = false), StructField("fragments", IntegerType, nullable = false),
      StructField("transaction_properties", MapType(StringType, StringType, valueContainsNull = false)),
      StructField("tags", ArrayType(StringType, containsNull = false)), StructField("writer", StringType)))
    new MetadataTable(s"${t.name()}.history", schema, () => {
      val store = t.stores.create()
      val root = t.snapshot.root
      val tags = Refs.tags(store, t.options.path).map(n => Refs.tag(store, t.options.path, n))
        .filter(_.branch == t.options.branch).groupBy(_.version)
      TableHistory(store, root).map { v =>
        val props = v.properties.toSeq.sortBy(_._1)
        InternalRow(v.version, v.timestamp.map(i => Math.addExact(Math.multiplyExact(i.getEpochSecond, 1000000L), i.getNano / 1000L)).orNull,
          v.operation.map(str).orNull, v.readVersion.orNull, v.rows, v.rowsAdded, v.rowsRemoved, v.fragments,
          ArrayBasedMapData(props.map(p => str(p._1)).toArray, props.map(p => str(p._2)).toArray),
          new GenericArrayData(tags.getOrElse(v.version, Nil).map(g => str(g.name)).sortBy(_.toString).toArray[Any]),
          v.writer.map(str).orNull)
      }
    })
  }

  private def fragments(t: LanceTable): Table = {
    val schema = StructType(Seq(
      StructField("id", LongType, nullable = false), StructField("files", ArrayType(StringType, containsNull = false)),
      StructField("physical_rows", LongType, nullable = false), StructField("deleted_rows", LongType, nullable = false),
      StructField("rows", LongType, nullable = false), StructField("bytes", LongType, nullable = false),
      StructField("deletion_file", StringType)))
    new MetadataTable(s"${t.name()}.fragments", schema, () => {
      val s = t.snapshot
      val locations = new FileLocations(s.root, s.manifest)
      s.manifest.fragments.map { f =>
        InternalRow(f.id, new GenericArrayData(f.files.map(d => str(locations.dataFile(d))).toArray[Any]), f.physicalRows,
          f.deletionFile.fold(0L)(_.numDeletedRows), f.liveRows, f.files.iterator.map(_.fileSizeBytes).sum,
          f.deletionFile.map(d => str(locations.deletionFile(f.id, d))).orNull)
      }
    })
  }

  /** The current version's indices (the manifest's index section; one row per index segment). */
  private def indices(t: LanceTable): Table = {
    val schema = StructType(Seq(
      StructField("name", StringType, nullable = false), StructField("uuid", StringType, nullable = false),
      StructField("columns", ArrayType(StringType, containsNull = false)), StructField("type", StringType),
      StructField("dataset_version", LongType, nullable = false), StructField("fragments", ArrayType(LongType, containsNull = false))))
    new MetadataTable(s"${t.name()}.indices", schema, () => {
      val m = t.snapshot.manifest
      val names = m.schema.fields.iterator.flatMap(_.preOrder).map(f => f.id -> f.name).toMap
      m.indices.map { i =>
        InternalRow(str(i.name), str(i.uuid), new GenericArrayData(i.fields.map(id => str(names.getOrElse(id, id.toString))).toArray[Any]),
          str(i.kind), i.datasetVersion,
          i.fragments.map(b => new GenericArrayData(b.toArray.map(_.toLong).sorted.toArray[Any])).orNull)
      }
    })
  }

  private def refs(t: LanceTable): Table = {
    val schema = StructType(Seq(
      StructField("name", StringType, nullable = false), StructField("type", StringType, nullable = false),
      StructField("version", LongType, nullable = false), StructField("branch", StringType)))
    new MetadataTable(s"${t.name()}.refs", schema, () => {
      val store = t.stores.create()
      val root = t.options.path
      Refs.tags(store, root).sorted.map { n =>
        val g = Refs.tag(store, root, n)
        InternalRow(str(n), str("tag"), g.version, g.branch.map(str).orNull)
      } ++ Refs.branches(store, root).sorted.map { n =>
        val b = Refs.branch(store, root, n)
        InternalRow(str(n), str("branch"), b.parentVersion, b.parentBranch.map(str).orNull)
      }
    })
  }
}

/** A read-only table whose rows are computed on the driver when a query scans it. */
final class MetadataTable(tableName: String, columns: StructType, rows: () => Seq[InternalRow]) extends Table with SupportsRead {
  override def name(): String = tableName
  @scala.annotation.nowarn("cat=deprecation") // abstract until Spark 4.0, where columns() took over
  override def schema(): StructType = columns
  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_READ)
  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = new ScanBuilder {
    override def build(): Scan = new LocalScan {
      override def rows(): Array[InternalRow] = LanceSparkException.boundary(MetadataTable.this.rows().toArray)
      override def readSchema(): StructType = columns
      override def description(): String = s"LanceMetadataScan $tableName"
    }
  }
}
