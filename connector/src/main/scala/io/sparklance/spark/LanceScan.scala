package io.sparklance.spark

import java.util.OptionalLong

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference}
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.connector.metric.CustomMetric
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReaderFactory, Scan, Statistics, SupportsReportStatistics,
  SupportsRuntimeV2Filtering}
import org.apache.spark.sql.types.StructType

import io.sparklance.format.LanceField
import io.sparklance.table.{MetadataColumn, RowLimit, ScanPlan, ScanPlanner, ScanTask, SplitSizing, ValueWidths}
import io.sparklance.table.expr.Expr
import io.sparklance.util.Redaction

/**
 * A scan of one pinned version. Scans compare by value (table version, columns,
 * options), as Spark's file sources do, so that Spark can reuse exchanges.
 *
 * The scan of an UPDATE or MERGE (`fragmentFilter`) can be narrowed at run time to the
 * fragments that hold matching rows: Spark's row-level group filter
 * (spark.sql.optimizer.runtime.rowLevelOperationGroupFilter.enabled, on by default) first
 * runs a query reading only the columns of the condition (for MERGE, joined with the
 * source) for the `_fragid`s of the matching rows, then hands them to [[filter]], so that
 * the scan reading every column of the changed rows skips the other fragments. A DELETE
 * reads no more columns than that query would, so its scan does not ask for it; nor does a
 * scan that statistics already narrowed to one fragment.
 */
final class LanceScan(
    table: LanceTable,
    val fields: IndexedSeq[LanceField],
    val metadata: IndexedSeq[MetadataColumn],
    schema: StructType,
    predicate: Option[Expr],
    pushedFilters: Seq[org.apache.spark.sql.sources.Filter],
    limit: Option[Long],
    fragmentFilter: Boolean = false)
    extends Scan with Batch with SupportsReportStatistics with SupportsRuntimeV2Filtering {

  /** The pushed predicate, and-ed with what runtime filters on data columns added. */
  @volatile private var effective: Option[Expr] = predicate
  @volatile private var planned: ScanPlan = _

  private def plan: ScanPlan = {
    if (planned == null) planned = ScanPlanner.plan(table.stores.create(), table.snapshot, effective)
    planned
  }

  /** The fragments a runtime filter kept, once Spark has run it. */
  @volatile private var runtimeFragments: Option[Set[Long]] = None

  private def tasks: IndexedSeq[ScanTask] = {
    val kept = runtimeFragments.fold(plan.tasks)(ids => plan.tasks.filter(t => ids.contains(t.fragmentId)))
    limit.fold(kept)(RowLimit.first(kept, _))
  }

  /** The fragments statistics and indices left to read. */
  private def plannedFragments: Set[Long] = plan.tasks.iterator.map(_.fragmentId).toSet

  private def runtimePruned: Int = runtimeFragments.fold(0)(ids => plannedFragments.count(id => !ids.contains(id)))

  /**
   * `_fragid` when a runtime filter could skip something: statistics left more than one
   * fragment to read (an UPDATE whose pushed condition already narrowed it to one fragment
   * would only pay for the extra query).
   */
  override def filterAttributes(): Array[NamedReference] = LanceSparkException.boundary {
    if (fragmentFilter && plannedFragments.size > 1)
      Array(Expressions.column(MetadataColumn.FragmentId.name))
    else Array.empty
  }

  /**
   * Keeps the fragments an `_fragid IN (...)` or `_fragid = n` predicate names (several
   * predicates intersect), and plans again with a `c IN (...)` on a data column (the source's
   * keys, from [[io.sparklance.spark.dml.SourceKeyPruning]]) so that statistics and indices
   * prune by it; any other predicate is left to Spark, which filters the rows anyway.
   */
  override def filter(predicates: Array[Predicate]): Unit = LanceSparkException.boundary {
    predicates.foreach { p =>
      LanceScan.fragmentIds(p) match {
        case Some(ids) => runtimeFragments = Some(runtimeFragments.fold(ids)(_ intersect ids))
        case None => SparkFilters.fromRuntime(p, table.schema()).foreach { e =>
          effective = Some(effective.fold(e)(Expr.And(_, e)))
          planned = null
        }
      }
    }
  }

  override def reportDriverMetrics(): Array[org.apache.spark.sql.connector.metric.CustomTaskMetric] = LanceSparkException.boundary(Array(
    LanceMetrics.task(LanceMetrics.FragmentsPruned, plan.fragmentsPruned + runtimePruned),
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
      if (effective.isEmpty && fragments.forall(_.physicalRows > 0)) fragments.iterator.map(_.liveRows).sum
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

  /**
   * Whether an index look-up named every row to read (each planned task is a selection of
   * rows), at most `maxRows` of them and of at most [[LanceDriverScan.MaxBytes]] (estimated from
   * the manifest, so that wide rows or blobs stay on the executors): a point look-up, which
   * [[LanceDriverScan]] reads on the driver instead of starting a job.
   */
  def lookupOfAtMost(maxRows: Long): Boolean = {
    val ts = tasks
    effective.isDefined && ts.nonEmpty && ts.forall(_.selection.isDefined) && ts.iterator.map(_.rowsToRead).sum <= maxRows &&
      projectedBytes <= LanceDriverScan.MaxBytes
  }

  /** Every row the scan reads, read here, in one pass over its tasks (rows copied out of the batches). */
  def readAll(): Array[InternalRow] = LanceSparkException.boundary {
    val reader = createReaderFactory().createColumnarReader(LanceInputPartition(tasks))
    try {
      val rows = Array.newBuilder[InternalRow]
      while (reader.next()) reader.get().rowIterator().asScala.foreach(r => rows += r.copy())
      rows.result()
    } finally reader.close()
  }

  override def description(): String =
    s"LanceScan ${Redaction(table.snapshot.root)} version=${table.snapshot.version} columns=[${(fields.map(_.name) ++ metadata.map(_.name)).mkString(", ")}]" +
      (if (pushedFilters.isEmpty) "" else s" pushedFilters=[${pushedFilters.mkString(", ")}]") +
      // What statistics and indices pruned, so that EXPLAIN shows it (the plan is made once either way).
      predicate.fold("")(_ => s" fragments=${plannedFragments.size}/${table.snapshot.manifest.fragments.length}" +
        s" prunedFragments=${plan.fragmentsPruned} prunedZones=${plan.zonesPruned}" +
        (if (plan.indexFragments > 0) s" indexLookups=${plan.indexFragments} fragments/${plan.indexRows} rows" else "")) +
      limit.fold("")(n => s" limit=$n")

  private def key = (table.snapshot.root, table.snapshot.version, fields, metadata, table.options, predicate, limit, table.timeType,
    fragmentFilter, runtimeFragments, effective)

  override def equals(other: Any): Boolean = other match {
    case s: LanceScan => s.key == key
    case _ => false
  }

  override def hashCode(): Int = key.hashCode()
}

object LanceScan {
  /** The fragment ids a runtime predicate on `_fragid` allows, if it is one. */
  private[spark] def fragmentIds(p: Predicate): Option[Set[Long]] =
    if (p.name() == "ALWAYS_FALSE") Some(Set.empty)
    else SparkFilters.runtimeIn(p).collect { case (MetadataColumn.FragmentId.name, values) =>
      values.collect { case n: java.lang.Number => n.longValue }.toSet
    }
}

/**
 * A point look-up answered on the driver: the few rows an index look-up named, read when Spark
 * plans the query, so that it runs no job (as `SELECT 1` runs none); see [[AnswerOnDriver]].
 * A job's fixed cost (scheduling, serializing the tasks and their row selections, a stage) is
 * most of a look-up's time otherwise.
 */
final class LanceDriverScan(scan: LanceScan) extends org.apache.spark.sql.connector.read.LocalScan {
  override lazy val rows: Array[InternalRow] = scan.readAll()
  override def readSchema(): StructType = scan.readSchema()
  override def description(): String = scan.description() + " (read on the driver)"
}

object LanceDriverScan {
  /** The most rows an index look-up may name for the query to be answered on the driver; 0 turns it off. */
  val MaxRows = "spark.sql.lance.driverLookup.maxRows"
  val DefaultMaxRows = 1000L
  /** The most bytes (of the projected columns, estimated) a look-up answered on the driver may read. */
  val MaxBytes: Long = 16L << 20
}

/** The work of one Spark task: row ranges of fragments, every file already located. */
final case class LanceInputPartition(tasks: IndexedSeq[ScanTask]) extends InputPartition
