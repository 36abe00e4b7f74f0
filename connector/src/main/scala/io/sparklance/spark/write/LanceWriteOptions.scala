package io.sparklance.spark.write

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.format.FileVersion
import io.sparklance.spark.LanceOptions
import io.sparklance.table.commit.AppTransaction
import io.sparklance.util.Errors
import io.sparklance.util.ScalaCompat._

// Write options, parsed and checked once on the driver before anything is written. The names
// are ours (Delta's for the idempotent pair); the snake_case names pylance's write_dataset and
// lance-spark take are accepted as aliases, so that options carried over from either work.
// A key that looks like a misspelling of one of them is refused (OptionNames).
// Lance's defaults: rust/lance/src/dataset/write.rs (WriteParams).

/**
 * @param maxRowsPerFile     rows per data file (None: Lance's default)
 * @param maxBytesPerFile    bytes after which a data file is finished (None: Lance's default)
 * @param fileFormatVersion  the data file format of a new table (None: 2.2 for a new table,
 *                           the table's own for an existing one)
 * @param enableStableRowIds stable row ids for a table this write creates
 * @param commitProperties   stored as the transaction's properties (`commitProperties.<key>`)
 * @param app                the idempotent-write pair (`txnAppId`, `txnVersion`)
 * @param updateZoneMaps     whether an append extends the table's ZONEMAP indices over its new
 *                           fragments (a second version, CreateIndex, after the data commit)
 * @param mergeSchema        whether an append adds the DataFrame's columns the table lacks (as
 *                           nullable columns, a Merge version committed right before the data
 *                           commit, once every row is written: [[AddedColumns]])
 * @param targetBases        names or paths of the table's base paths new data files go to, in
 *                           turn (`targetBases` = `b1,b2`; pylance's `target_bases`)
 * @param targetAllBases     new data files go to the table's own folder and every base in turn
 *                           (pylance's `target_all_bases`)
 * @param initialBases       named base paths of a table this write creates (pylance's
 *                           `initial_bases`): a JSON list, `[{"name": "b1", "path": "s3a://x/t"},
 *                           {"name": "b2", "path": "/y", "isDatasetRoot": true}]`; ids from 1 in order
 */
final case class LanceWriteOptions(
    maxRowsPerFile: Option[Long] = None,
    maxBytesPerFile: Option[Long] = None,
    fileFormatVersion: Option[FileVersion] = None,
    enableStableRowIds: Option[Boolean] = None,
    commitProperties: Map[String, String] = Map.empty,
    app: Option[AppTransaction] = None,
    updateZoneMaps: Boolean = true,
    mergeSchema: Boolean = false,
    targetBases: Seq[String] = Nil,
    targetAllBases: Boolean = false,
    initialBases: IndexedSeq[io.sparklance.table.BasePath] = IndexedSeq.empty)

object LanceWriteOptions {
  val MaxRowsPerFile = "maxRowsPerFile"
  val MaxBytesPerFile = "maxBytesPerFile"
  val FileFormatVersion = "fileFormatVersion"
  val EnableStableRowIds = "enableStableRowIds"
  /** Prefix of the options stored as transaction properties: `commitProperties.<key>` = value. */
  val CommitPropertiesPrefix = "commitProperties."
  val TxnAppId = "txnAppId"
  val TxnVersion = "txnVersion"
  val UpdateZoneMaps = "updateZoneMaps"
  val MergeSchema = "mergeSchema"
  val TargetBases = "targetBases"
  val TargetAllBases = "targetAllBases"
  val InitialBases = "initialBases"

  /** The names pylance (`write_dataset`) and lance-spark use for the same settings. */
  val Aliases: Map[String, Seq[String]] = Map(
    MaxRowsPerFile -> Seq("max_rows_per_file"),
    MaxBytesPerFile -> Seq("max_bytes_per_file"),
    FileFormatVersion -> Seq("data_storage_version", "file_format_version"),
    EnableStableRowIds -> Seq("enable_stable_row_ids"),
    MergeSchema -> Seq("merge_schema"),
    TargetBases -> Seq("target_bases"),
    TargetAllBases -> Seq("target_all_bases"),
    InitialBases -> Seq("initial_bases"))

  /**
   * Read options that choose an old version; a write always adds a version to the latest one
   * (of the main branch, or of the branch option `branch` names).
   */
  private val ReadOnly = Seq(LanceOptions.Version, LanceOptions.Tag, LanceOptions.Timestamp)

  /** Every option a write takes, aliases included ([[io.sparklance.spark.OptionNames]] refuses misspellings of them). */
  val Names: Seq[String] = Seq(MaxRowsPerFile, MaxBytesPerFile, FileFormatVersion, EnableStableRowIds, TxnAppId, TxnVersion,
    UpdateZoneMaps, MergeSchema, TargetBases, TargetAllBases, InitialBases) ++ Aliases.values.flatten

  def parse(options: CaseInsensitiveStringMap): LanceWriteOptions = {
    io.sparklance.spark.OptionNames.refuseNearMisses(options)
    ReadOnly.find(k => options.containsKey(k)).foreach { k =>
      throw Errors.invalidOption(k, options.get(k),
        "no value on a write: it chooses an old version to read, and a write always adds a version to the latest one " +
          s"(of the main branch, or of the branch option '${LanceOptions.Branch}' names)")
    }
    LanceWriteOptions(
      maxRowsPerFile = value(options, MaxRowsPerFile).map { case (k, v) =>
        v.trim.toLongOption.filter(n => n >= 1 && n <= 0xffffffffL).getOrElse(
          throw Errors.invalidOption(k, v, "a row count from 1 to 4294967295 (a fragment counts its rows in 32 bits)"))
      },
      maxBytesPerFile = value(options, MaxBytesPerFile).map { case (k, v) =>
        v.trim.toLongOption.filter(_ >= 1).getOrElse(throw Errors.invalidOption(k, v, "a positive number of bytes"))
      },
      fileFormatVersion = value(options, FileFormatVersion).map { case (k, v) => fileVersion(k, v) },
      enableStableRowIds = value(options, EnableStableRowIds).map { case (k, v) => boolean(k, v) },
      commitProperties = options.asCaseSensitiveMap().asScala.collect {
        case (k, v) if k.regionMatches(true, 0, CommitPropertiesPrefix, 0, CommitPropertiesPrefix.length) =>
          val key = k.substring(CommitPropertiesPrefix.length)
          if (key.isEmpty) throw Errors.invalidOption(k, v, s"a property name after '$CommitPropertiesPrefix'")
          key -> v
      }.toMap,
      app = appTransaction(options),
      updateZoneMaps = value(options, UpdateZoneMaps).forall { case (k, v) => boolean(k, v) },
      mergeSchema = value(options, MergeSchema).exists { case (k, v) => boolean(k, v) },
      targetBases = value(options, TargetBases).toSeq.flatMap { case (k, v) =>
        val names = v.split(',').map(_.trim).toSeq
        if (names.exists(_.isEmpty)) throw Errors.invalidOption(k, v, "base names or paths separated by commas")
        names
      },
      targetAllBases = value(options, TargetAllBases).exists { case (k, v) => boolean(k, v) },
      initialBases = value(options, InitialBases).fold(IndexedSeq.empty[io.sparklance.table.BasePath]) { case (k, v) => bases(k, v) })
  }

  /** `initialBases`: a JSON list of {"name", "path", "isDatasetRoot" (default false)}, numbered at commit. */
  private def bases(key: String, v: String): IndexedSeq[io.sparklance.table.BasePath] = {
    val expected = "a JSON list of bases, each {\"name\": ..., \"path\": ..., \"isDatasetRoot\": true or false (optional)}"
    val parsed = try io.sparklance.util.Json.parse(v) catch { case _: Exception => throw Errors.invalidOption(key, v, expected) }
    val list = parsed match { case xs: Seq[_] if xs.nonEmpty => xs; case _ => throw Errors.invalidOption(key, v, expected) }
    val parsedBases = list.map {
      case m: Map[_, _] =>
        val o = m.asInstanceOf[Map[String, Any]]
        if (!o.keySet.subsetOf(Set("name", "path", "isDatasetRoot"))) throw Errors.invalidOption(key, v, expected)
        (o.get("name"), o.get("path"), o.getOrElse("isDatasetRoot", false)) match {
          case (Some(n: String), Some(p: String), r: Boolean) if n.trim.nonEmpty && p.trim.nonEmpty =>
            io.sparklance.table.BasePath(0, Some(n.trim), r, p.trim)
          case _ => throw Errors.invalidOption(key, v, expected)
        }
      case _ => throw Errors.invalidOption(key, v, expected)
    }.toIndexedSeq
    // Checked here, before any file is written (the commit checks again, NextManifest.numberedBases).
    val names = parsedBases.groupBy(_.name).collectFirst { case (Some(n), bs) if bs.length > 1 => n }
    val paths = parsedBases.groupBy(b => io.sparklance.table.BasePaths.canonical(b.path).getOrElse(b.path)).collectFirst { case (p, bs) if bs.length > 1 => p }
    (names.map(n => s"name '$n'") ++ paths.map(p => s"path '$p'")).headOption.foreach { twice =>
      throw Errors.invalidOption(key, v, s"bases of distinct names and paths ($twice is given twice)")
    }
    parsedBases
  }

  private def boolean(key: String, v: String): Boolean =
    v.trim.toLowerCase(Locale.ROOT).toBooleanOption.getOrElse(throw Errors.invalidOption(key, v, "true or false"))

  /** The value of `name` or one of its aliases (with the key it was given under); two different values are refused. */
  private def value(options: CaseInsensitiveStringMap, name: String): Option[(String, String)] = {
    val values = (name +: Aliases.getOrElse(name, Nil)).flatMap(k => Option(options.get(k)).map(k -> _))
    if (values.map(_._2.trim).distinct.length > 1)
      throw Errors.invalidArgument(s"options ${values.map { case (k, v) => s"'$k' = '$v'" }.mkString(" and ")} name the same " +
        "setting with different values; give one of them")
    values.headOption
  }

  /** A file format version to write: 2.0, 2.1, 2.2 or "stable" (2.2); "legacy" and 2.3 ("next") are refused. */
  private def fileVersion(key: String, v: String): FileVersion = v.trim.toLowerCase(Locale.ROOT) match {
    case "2.0" => FileVersion.V2_0
    case "2.1" => FileVersion.V2_1
    case "2.2" | "stable" => FileVersion.V2_2
    case "2.3" | "next" =>
      throw Errors.invalidOption(key, v, "2.0, 2.1, 2.2 or 'stable' (2.3, 'next', is unstable in Lance: its files may not be readable by later releases)")
    case "0.1" | "legacy" =>
      throw Errors.invalidOption(key, v, "2.0, 2.1, 2.2 or 'stable' (current Lance writes no legacy files either)")
    case _ => throw Errors.invalidOption(key, v, "2.0, 2.1, 2.2 or 'stable'")
  }

  /**
   * Refuses an idempotent write's pair among the options a catalog keeps with a table: stored,
   * it would name every later write, and each after the first would be skipped as a duplicate.
   */
  def refuseStoredApp(stored: Map[String, String], table: String): Unit =
    stored.keys.find(k => k.equalsIgnoreCase(TxnAppId) || k.equalsIgnoreCase(TxnVersion)).foreach { k =>
      throw Errors.invalidOption(k, stored(k), s"no value among the options stored with $table: an idempotent write's " +
        s"'$TxnAppId' and '$TxnVersion' name one write, so give them as options of that write (DataFrameWriter or " +
        "DataFrameWriterV2 .option), not with CREATE TABLE ... OPTIONS or as a table property")
    }

  private def appTransaction(options: CaseInsensitiveStringMap): Option[AppTransaction] =
    (Option(options.get(TxnAppId)), Option(options.get(TxnVersion))) match {
      case (None, None) => None
      case (Some(id), Some(v)) =>
        if (id.trim.isEmpty) throw Errors.invalidOption(TxnAppId, id, "a non-empty application id")
        val version = v.trim.toLongOption.filter(_ >= 0).getOrElse(throw Errors.invalidOption(TxnVersion, v, "a non-negative whole number"))
        Some(AppTransaction(id.trim, version))
      case (Some(id), None) => throw Errors.invalidOption(TxnAppId, id, s"to be given with '$TxnVersion' (both or neither)")
      case (None, Some(v)) => throw Errors.invalidOption(TxnVersion, v, s"to be given with '$TxnAppId' (both or neither)")
    }
}
