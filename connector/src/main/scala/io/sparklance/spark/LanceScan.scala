package io.sparklance.spark

import java.util.OptionalLong

import org.apache.spark.sql.connector.metric.CustomMetric
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReaderFactory, Scan, Statistics, SupportsReportStatistics}
import org.apache.spark.sql.types.StructType

import io.sparklance.format.LanceField
import io.sparklance.table.{MetadataColumn, RowLimit, ScanPlan, ScanPlanner, ScanTask, SplitSizing, ValueWidths}
import io.sparklance.table.expr.Expr
import io.sparklance.util.Redaction

/**
 * A scan of one pinned version. Scans compare by value (table version, columns,
 * options), as Spark's file sources do, so that Spark can reuse exchanges.
 */
final class LanceScan(
    table: LanceTable,
    val fields: IndexedSeq[LanceField],
    val metadata: IndexedSeq[MetadataColumn],
    schema: StructType,
    predicate: Option[Expr],
    pushedFilters: Seq[org.apache.spark.sql.sources.Filter],
    limit: Option[Long])
    extends Scan with Batch with SupportsReportStatistics {

  private lazy val plan: ScanPlan = ScanPlanner.plan(table.stores.create(), table.snapshot, predicate)
  private lazy val tasks: IndexedSeq[ScanTask] = limit.fold(plan.tasks)(RowLimit.first(plan.tasks, _))

  override def reportDriverMetrics(): Array[org.apache.spark.sql.connector.metric.CustomTaskMetric] = LanceSparkException.boundary(Array(
    LanceMetrics.task(LanceMetrics.FragmentsPruned, plan.fragmentsPruned),
    LanceMetrics.task(LanceMetrics.ZonesPruned, plan.zonesPruned),
    LanceMetrics.task(LanceMetrics.IndexFragments, plan.indexFragments),
    LanceMetrics.task(LanceMetrics.IndexRows, plan.indexRows)))

  private def fieldIds: Set[Int] = fields.iterator.flatMap(_.preOrder).map(_.id).toSet

  private lazy val widths: Map[Int, Long] = ValueWidths.of(table.snapshot.manifest.schema, table.snapshot.manifestPath)

  override def readSchema(): StructType = schema

  override def toBatch: Batch = this

  /**
   * Bytes of the projected columns in the rows the planned tasks read, from the manifest
   * alone (a task's share of its files' bytes, shared among columns by estimated width).
   */
  private def projectedBytes: Long = {
    val ids = fieldIds
    tasks.iterator.map(_.bytesToRead(ids, widths)).sum
  }

  /**
   * Equal splits of at most the split size, as many as Spark's default parallelism or a
   * multiple of it (see [[ScanPlanner.splits]]); the per-piece open cost keeps a table of
   * many tiny fragments from exploding into one partition per fragment.
   */
  override def planInputPartitions(): Array[InputPartition] = LanceSparkException.boundary {
    val parallelism = org.apache.spark.sql.SparkSession.active.sparkContext.defaultParallelism
    val sizing = SplitSizing(table.options.splitSizeBytes, table.options.openCostBytes, math.max(parallelism, 1))
    ScanPlanner.splits(tasks, fieldIds, widths, sizing).map(s => LanceInputPartition(s): InputPartition).toArray
  }

  override def createReaderFactory(): PartitionReaderFactory =
    LanceReaderFactory(table.executorStores, fields, metadata, table.options.batchSize, table.options.taskMemoryBytes, predicate,
      table.blobs, table.timeType)

  /** Rows after deletions and bytes of the projected columns, from the manifest alone. */
  override def estimateStatistics(): Statistics = LanceSparkException.boundary {
    val fragments = table.snapshot.manifest.fragments
    val all =
      if (predicate.isEmpty && fragments.forall(_.physicalRows > 0)) fragments.iterator.map(_.liveRows).sum
      // After pruning, or where old manifests lack row counts (resolved from the data files
      // when the tasks were planned): an upper bound.
      else tasks.iterator.map(_.rowsToRead).sum
    val rows = limit.fold(all)(math.min(all, _))
    val bytes = projectedBytes
    new Statistics {
      override def sizeInBytes(): OptionalLong = OptionalLong.of(math.max(bytes, 1L))
      override def numRows(): OptionalLong = OptionalLong.of(rows)
    }
  }

  override def supportedCustomMetrics(): Array[CustomMetric] = LanceMetrics.all

  override def description(): String =
    s"LanceScan ${Redaction(table.snapshot.root)} version=${table.snapshot.version} columns=[${(fields.map(_.name) ++ metadata.map(_.name)).mkString(", ")}]" +
      (if (pushedFilters.isEmpty) "" else s" pushedFilters=[${pushedFilters.mkString(", ")}]") +
      // What statistics and indices pruned, so that EXPLAIN shows it (the plan is made once either way).
      predicate.fold("")(_ => s" fragments=${plan.tasks.map(_.fragmentId).distinct.length}/${table.snapshot.manifest.fragments.length}" +
        s" prunedFragments=${plan.fragmentsPruned} prunedZones=${plan.zonesPruned}" +
        (if (plan.indexFragments > 0) s" indexLookups=${plan.indexFragments} fragments/${plan.indexRows} rows" else "")) +
      limit.fold("")(n => s" limit=$n")

  private def key = (table.snapshot.root, table.snapshot.version, fields, metadata, table.options, predicate, limit, table.timeType)

  override def equals(other: Any): Boolean = other match {
    case s: LanceScan => s.key == key
    case _ => false
  }

  override def hashCode(): Int = key.hashCode()
}

/** The work of one Spark task: row ranges of fragments, every file already located. */
final case class LanceInputPartition(tasks: IndexedSeq[ScanTask]) extends InputPartition
