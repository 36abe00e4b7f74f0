package io.sparklance.spark.dml

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.write.{DataWriterFactory, LogicalWriteInfo, PhysicalWriteInfo, SupportsOverwrite, Write, WriteBuilder,
  WriterCommitMessage}
import org.apache.spark.sql.sources.{AlwaysTrue, Filter}
import org.roaringbitmap.RoaringBitmap

import io.sparklance.spark.{LanceOptions, LanceSparkException, LanceTable, SparkFilters}
import io.sparklance.spark.write.{InsertedKeyColumns, LanceWrite, LanceWriteBuilder, RowCondition, WritePlan, WriteTarget}
import io.sparklance.table.MetadataColumn
import io.sparklance.table.write.RowChanges
import io.sparklance.util.Redaction

/**
 * The writes of a catalog table: appends and truncates as [[LanceWriteBuilder]] plans them,
 * overwrites by a condition (`INSERT OVERWRITE t REPLACE WHERE ...`,
 * `DataFrameWriterV2.overwrite(condition)`) as [[ReplaceWhere]], and the rows of an insert-only
 * MERGE into a table with a primary key as [[MergeInserts]].
 */
final class CatalogWriteBuilder(table: LanceTable, target: WriteTarget, info: LogicalWriteInfo) extends SupportsOverwrite {
  private val rows = new LanceWriteBuilder(table, target, info)
  private var condition: Option[Array[Filter]] = None

  override def truncate(): WriteBuilder = { rows.truncate(); condition = None; this }

  override def overwrite(filters: Array[Filter]): WriteBuilder = {
    if (filters.forall(_.isInstanceOf[AlwaysTrue])) truncate() else condition = Some(filters)
    this
  }

  /** An insert-only MERGE into a table with a primary key comes as an append marked by [[MergeOnColumns]]. */
  private def mergeOn: Option[Set[String]] =
    Option(info.options().get(InsertedKeyColumns.MergeOnOption)).map(_.split(',').filter(_.nonEmpty).toSet)

  override def build(): Write = LanceSparkException.boundary(condition match {
    case Some(c) => ReplaceWhere.plan(table, target, c, info)
    case None => mergeOn.fold(rows.build())(on => MergeInserts.plan(table, target, on, info))
  })
}

/**
 * Rows that match a condition replaced by the query's rows, in one Lance commit: an Update
 * whose deleted rows are those the condition matches at the version the statement read (whole
 * fragments where statistics decide it, else found by a scan of the table at that version) and
 * whose new fragments hold the written rows, each of which must satisfy the condition
 * ([[RowCondition]]).
 */
final class ReplaceWhere private (table: LanceTable, plan: WritePlan, condition: Array[Filter]) extends RowChangeWrite(table, plan) {

  private val rowCondition = RowCondition(condition, plan.input, plan.where)

  override def description(): String =
    s"LanceReplaceWhere ${Redaction(plan.root)} readVersion=${snapshot.version} where ${condition.map(SparkFilters.sql).mkString(" AND ")}"

  override def createBatchWriterFactory(info: PhysicalWriteInfo): DataWriterFactory =
    LanceWrite.writerFactory(table, plan).copy(condition = Some(rowCondition))

  override def commit(messages: Array[WriterCommitMessage]): Unit = LanceSparkException.boundary {
    val written = LanceWrite.fragments(messages)
    val outcome = commitChanges(ReplaceWhere.matchingRows(table, condition), written)(RowChanges.update(written))
    if (!outcome.duplicate) logInfo(s"${plan.where}: rows where ${condition.map(SparkFilters.sql).mkString(" AND ")} replaced in version ${outcome.version}")
  }
}

object ReplaceWhere {

  def plan(table: LanceTable, target: WriteTarget, condition: Array[Filter], info: LogicalWriteInfo): ReplaceWhere =
    new ReplaceWhere(table, LanceWrite.decide(table, target, overwrite = false, info.schema()), condition)

  /**
   * The offsets of the rows `condition` matches in the version `table` pinned, by fragment:
   * whole fragments when statistics decide every fragment ([[MetadataDelete]]), else from a scan
   * of that version (one Spark job; each task sends its offsets as bitmaps).
   */
  def matchingRows(table: LanceTable, condition: Array[Filter]): Map[Long, RoaringBitmap] = {
    val snapshot = table.snapshot
    MetadataDelete.fragmentsToRemove(table, condition) match {
      case Some(ids) =>
        val rows = snapshot.manifest.fragments.map(f => f.id -> f.physicalRows).toMap
        ids.map(id => id -> { val b = new RoaringBitmap(); b.add(0L, rows(id)); b }).toMap
      case None =>
        val spark = SparkSession.active
        val options = table.entry.fold(Map.empty[String, String])(_.options) ++
          Map(LanceOptions.Path -> snapshot.root, LanceOptions.Version -> snapshot.version.toString)
        val addresses = spark.read.format("lance").options(options).load()
          .where(condition.map(SparkFilters.sql).mkString("(", ") AND (", ")"))
          .select(MetadataColumn.RowAddress.name)
        val parts = addresses.rdd.mapPartitions { rows =>
          val collected = new RowAddresses
          rows.foreach(r => collected.add(r.getLong(0)))
          collected.serialized.iterator
        }.collect()
        DeltaCommitMessage.union(parts.iterator)
    }
  }
}
