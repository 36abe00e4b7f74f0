package io.sparklance.spark

import org.apache.spark.sql.connector.metric.{CustomMetric, CustomSumMetric, CustomTaskMetric}

/**
 * The scan and write metrics shown in the Spark UI, summed over tasks (the peak: its largest).
 * A write's commit metrics are measured on the driver (Write.reportDriverMetrics, Spark 4.0+).
 */
object LanceMetrics {
  val BytesRead = "lanceBytesRead"
  val RowsDeleted = "lanceRowsDeleted"
  val FragmentsRead = "lanceFragmentsRead"
  val FragmentsPruned = "lanceFragmentsPruned"
  val ZonesPruned = "lanceZonesPruned"
  val RowsPruned = "lanceRowsPruned"
  val IndexFragments = "lanceIndexFragments"
  val IndexRows = "lanceIndexRows"
  val ArrowPeak = "lanceArrowPeakBytes"
  val RowsWritten = "lanceRowsWritten"
  val FilesWritten = "lanceFilesWritten"
  val BytesWritten = "lanceBytesWritten"
  val CommitAttempts = "lanceCommitAttempts"
  val CommitRetries = "lanceCommitRetries"
  val CommitTime = "lanceCommitTimeMs"
  val ZoneMapVersions = "lanceZoneMapVersions"

  // Spark instantiates metric classes reflectively by name, so each needs a no-arg class.
  final class BytesReadMetric extends CustomSumMetric {
    override def name(): String = BytesRead
    override def description(): String = "bytes read from Lance data files"
  }
  final class RowsDeletedMetric extends CustomSumMetric {
    override def name(): String = RowsDeleted
    override def description(): String = "deleted rows skipped"
  }
  final class FragmentsReadMetric extends CustomSumMetric {
    override def name(): String = FragmentsRead
    override def description(): String = "fragment pieces read"
  }

  final class FragmentsPrunedMetric extends CustomSumMetric {
    override def name(): String = FragmentsPruned
    override def description(): String = "fragments pruned by statistics"
  }
  final class ZonesPrunedMetric extends CustomSumMetric {
    override def name(): String = ZonesPruned
    override def description(): String = "zones pruned by zone maps"
  }

  final class RowsPrunedMetric extends CustomSumMetric {
    override def name(): String = RowsPruned
    override def description(): String = "rows skipped by legacy page statistics"
  }
  final class IndexFragmentsMetric extends CustomSumMetric {
    override def name(): String = IndexFragments
    override def description(): String = "fragments read through BTREE/BITMAP index look-ups"
  }
  final class IndexRowsMetric extends CustomSumMetric {
    override def name(): String = IndexRows
    override def description(): String = "rows chosen by BTREE/BITMAP index look-ups"
  }

  /** The most Arrow memory one task's reader held at once: what the batch size bounds. */
  final class ArrowPeakMetric extends CustomMetric {
    override def name(): String = ArrowPeak
    override def description(): String = "peak Arrow memory of a task (bytes)"
    override def aggregateTaskMetrics(taskMetrics: Array[Long]): String =
      if (taskMetrics.isEmpty) "0" else taskMetrics.max.toString
  }

  final class RowsWrittenMetric extends CustomSumMetric {
    override def name(): String = RowsWritten
    override def description(): String = "rows written"
  }
  final class FilesWrittenMetric extends CustomSumMetric {
    override def name(): String = FilesWritten
    override def description(): String = "data files written"
  }
  final class BytesWrittenMetric extends CustomSumMetric {
    override def name(): String = BytesWritten
    override def description(): String = "bytes of data files written"
  }
  final class CommitAttemptsMetric extends CustomSumMetric {
    override def name(): String = CommitAttempts
    override def description(): String = "commit attempts"
  }
  final class CommitRetriesMetric extends CustomSumMetric {
    override def name(): String = CommitRetries
    override def description(): String = "commit retries after a concurrent commit"
  }
  final class CommitTimeMetric extends CustomSumMetric {
    override def name(): String = CommitTime
    override def description(): String = "commit time (ms)"
  }

  final class ZoneMapVersionsMetric extends CustomSumMetric {
    override def name(): String = ZoneMapVersions
    override def description(): String = "zone map versions"
  }

  def write: Array[CustomMetric] = Array(new RowsWrittenMetric, new FilesWrittenMetric, new BytesWrittenMetric,
    new CommitAttemptsMetric, new CommitRetriesMetric, new CommitTimeMetric, new ZoneMapVersionsMetric)

  def all: Array[CustomMetric] = Array(new BytesReadMetric, new RowsDeletedMetric, new FragmentsReadMetric,
    new FragmentsPrunedMetric, new ZonesPrunedMetric, new RowsPrunedMetric, new IndexFragmentsMetric, new IndexRowsMetric,
    new ArrowPeakMetric)

  def task(metric: String, amount: Long): CustomTaskMetric = new CustomTaskMetric {
    override def name(): String = metric
    override def value(): Long = amount
  }
}
