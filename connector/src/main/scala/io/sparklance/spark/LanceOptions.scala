package io.sparklance.spark

import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.table.{BasePaths, BlobMode, Refs, SplitSizing, VersionSpec}
import io.sparklance.util.Errors
import io.sparklance.util.ScalaCompat._

/**
 * Read options, parsed and checked once (like Spark's ParquetOptions). Unknown keys are
 * ignored so that Spark's own options (`path`, `paths`) pass through; one that looks like a
 * misspelling of ours is logged ([[OptionNames]]).
 */
final case class LanceOptions(
    path: String,
    version: VersionSpec,
    branch: Option[String],
    batchSize: Int,
    taskMemoryBytes: Long,
    splitSizeBytes: Long,
    openCostBytes: Long,
    blobs: BlobMode,
    allowedBasePaths: Option[Seq[String]] = None)

object LanceOptions {
  val Path = "path"
  val Version = "version"
  val Tag = "tag"
  val Branch = "branch"
  /** Read the newest version committed at or before this time (ISO-8601, or epoch milliseconds). */
  val Timestamp = "timestamp"
  val BatchSize = "batchSize"
  val DefaultBatchSize = 8192
  /** Arrow memory one task may hold at once: batches are small, so this only stops runaways. */
  val TaskMemory = "taskMemoryBytes"
  val DefaultTaskMemory: Long = 4L << 30

  /** Target bytes of data per input partition (as spark.sql.files.maxPartitionBytes). */
  val SplitSize = "splitSizeBytes"
  /** Bytes charged per fragment piece when packing small ones together (as spark.sql.files.openCostInBytes). */
  val OpenCost = "openCostBytes"

  /** Blob columns as pylance's descriptor structs (`descriptors`) or as their bytes (`bytes`). */
  val Blobs = "blobs"

  /**
   * Comma-separated URI prefixes a table's base paths must lie under (its own folder is
   * always allowed); unset, base paths are trusted as the table names them.
   */
  val AllowedBasePaths = "allowedBasePaths"

  private def allowedBasePaths(options: CaseInsensitiveStringMap): Option[Seq[String]] =
    Option(options.get(AllowedBasePaths)).map { v =>
      val prefixes = v.split(',').map(_.trim).filter(_.nonEmpty).toSeq
      if (prefixes.isEmpty) throw Errors.invalidOption(AllowedBasePaths, v, "a comma-separated list of URI prefixes")
      prefixes.map(p => BasePaths.canonical(p).getOrElse(throw Errors.invalidOption(AllowedBasePaths, v, s"URI prefixes; '$p' does not parse")))
    }

  /** A ref name given as an option, checked as Lance checks it before it becomes a path. */
  private def refName(key: String, name: String, problem: String => Option[String]): String = {
    problem(name).foreach(why => throw Errors.invalidOption(key, name, s"a valid ${key} name ($why)"))
    name
  }

  private def bytesOption(options: CaseInsensitiveStringMap, key: String, default: Long, min: Long): Long =
    Option(options.get(key)).map { v =>
      v.trim.toLongOption.filter(_ >= min).getOrElse(throw Errors.invalidOption(key, v, s"a number of bytes of at least $min"))
    }.getOrElse(default)

  private def versionSpec(options: CaseInsensitiveStringMap): VersionSpec = {
    val given = Seq(Version, Tag, Timestamp).filter(k => Option(options.get(k)).exists(_.trim.nonEmpty))
    if (given.length > 1)
      throw Errors.invalidArgument(s"options ${given.map(k => s"'$k'").mkString(" and ")} were both given; choose one version to read")
    given.headOption match {
      case None => VersionSpec.Latest
      case Some(Version) =>
        val v = options.get(Version)
        VersionSpec.Number(v.trim.toLongOption.filter(_ >= 0).getOrElse(throw Errors.invalidOption(Version, v, "a non-negative version number")))
      case Some(Tag) => VersionSpec.TagName(refName(Tag, options.get(Tag).trim, Refs.tagNameProblem))
      case Some(_) =>
        val v = options.get(Timestamp).trim
        VersionSpec.AsOf(v.toLongOption.map(java.time.Instant.ofEpochMilli).getOrElse {
          try java.time.Instant.parse(v)
          catch {
            case _: java.time.format.DateTimeParseException =>
              try java.time.LocalDateTime.parse(v).atZone(java.time.ZoneOffset.UTC).toInstant
              catch { case _: java.time.format.DateTimeParseException =>
                throw Errors.invalidOption(Timestamp, v, "an ISO-8601 time such as 2026-11-23T10:00:00Z, or epoch milliseconds") }
          }
        })
    }
  }

  /** Every option a read takes ([[OptionNames]] finds misspellings of them). */
  val Names: Seq[String] = Seq(Path, Version, Tag, Branch, Timestamp, BatchSize, TaskMemory, SplitSize, OpenCost, Blobs, AllowedBasePaths)

  def parse(options: CaseInsensitiveStringMap): LanceOptions = {
    OptionNames.warnNearMisses(options)
    val path = Option(options.get(Path)).filter(_.nonEmpty).getOrElse(
      throw Errors.invalidArgument("no path given: use spark.read.format(\"lance\").load(\"/path/to/dataset\")"))
    LanceOptions(
      path = path,
      version = versionSpec(options),
      branch = Option(options.get(Branch)).map(_.trim).filter(_.nonEmpty).map(refName(Branch, _, Refs.branchNameProblem)),
      batchSize = Option(options.get(BatchSize)).map { v =>
        v.trim.toIntOption.filter(n => n > 0 && n <= (1 << 20)).getOrElse(
          throw Errors.invalidOption(BatchSize, v, "a whole number of rows between 1 and 1048576"))
      }.getOrElse(DefaultBatchSize),
      taskMemoryBytes = bytesOption(options, TaskMemory, DefaultTaskMemory, 1L << 20),
      splitSizeBytes = bytesOption(options, SplitSize, SplitSizing.Default.targetBytes, 1),
      openCostBytes = bytesOption(options, OpenCost, SplitSizing.Default.openCostBytes, 0),
      blobs = Option(options.get(Blobs)).map(_.trim.toLowerCase(java.util.Locale.ROOT)) match {
        case None | Some("descriptors") => BlobMode.Descriptors
        case Some("bytes") => BlobMode.Bytes()
        case Some(_) => throw Errors.invalidOption(Blobs, options.get(Blobs), "'descriptors' or 'bytes'")
      },
      allowedBasePaths = allowedBasePaths(options))
  }
}
