package io.sparklance.spark

import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.table.SplitSizing
import io.sparklance.util.Errors

/**
 * Read options, parsed and checked once (like Spark's ParquetOptions). Unknown keys are
 * ignored so that Spark's own options (`path`, `paths`) pass through.
 */
final case class LanceOptions(
    path: String,
    version: Option[Long],
    batchSize: Int,
    taskMemoryBytes: Long,
    splitSizeBytes: Long,
    openCostBytes: Long)

object LanceOptions {
  val Path = "path"
  val Version = "version"
  val BatchSize = "batchSize"
  val DefaultBatchSize = 8192
  /** Arrow memory one task may hold at once: batches are small, so this only stops runaways. */
  val TaskMemory = "taskMemoryBytes"
  val DefaultTaskMemory: Long = 4L << 30

  /** Target bytes of data per input partition (as spark.sql.files.maxPartitionBytes). */
  val SplitSize = "splitSizeBytes"
  /** Bytes charged per fragment piece when packing small ones together (as spark.sql.files.openCostInBytes). */
  val OpenCost = "openCostBytes"

  private def bytesOption(options: CaseInsensitiveStringMap, key: String, default: Long, min: Long): Long =
    Option(options.get(key)).map { v =>
      v.trim.toLongOption.filter(_ >= min).getOrElse(throw Errors.invalidOption(key, v, s"a number of bytes of at least $min"))
    }.getOrElse(default)

  def parse(options: CaseInsensitiveStringMap): LanceOptions = {
    val path = Option(options.get(Path)).filter(_.nonEmpty).getOrElse(
      throw Errors.invalidArgument("no path given: use spark.read.format(\"lance\").load(\"/path/to/dataset\")"))
    LanceOptions(
      path = path,
      version = Option(options.get(Version)).map { v =>
        v.trim.toLongOption.filter(_ >= 0).getOrElse(throw Errors.invalidOption(Version, v, "a non-negative version number"))
      },
      batchSize = Option(options.get(BatchSize)).map { v =>
        v.trim.toIntOption.filter(n => n > 0 && n <= (1 << 20)).getOrElse(
          throw Errors.invalidOption(BatchSize, v, "a whole number of rows between 1 and 1048576"))
      }.getOrElse(DefaultBatchSize),
      taskMemoryBytes = bytesOption(options, TaskMemory, DefaultTaskMemory, 1L << 20),
      splitSizeBytes = bytesOption(options, SplitSize, SplitSizing.Default.targetBytes, 1),
      openCostBytes = bytesOption(options, OpenCost, SplitSizing.Default.openCostBytes, 0))
  }
}
