package io.sparklance.spark

import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.util.Errors

/**
 * Read options, parsed and checked once (like Spark's ParquetOptions). Unknown keys are
 * ignored so that Spark's own options (`path`, `paths`) pass through.
 */
final case class LanceOptions(path: String, version: Option[Long], batchSize: Int, taskMemoryBytes: Long)

object LanceOptions {
  val Path = "path"
  val Version = "version"
  val BatchSize = "batchSize"
  val DefaultBatchSize = 8192
  /** Arrow memory one task may hold at once: batches are small, so this only stops runaways. */
  val TaskMemory = "taskMemoryBytes"
  val DefaultTaskMemory: Long = 4L << 30

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
      taskMemoryBytes = Option(options.get(TaskMemory)).map { v =>
        v.trim.toLongOption.filter(_ >= (1L << 20)).getOrElse(
          throw Errors.invalidOption(TaskMemory, v, "a number of bytes of at least 1048576"))
      }.getOrElse(DefaultTaskMemory))
  }
}
