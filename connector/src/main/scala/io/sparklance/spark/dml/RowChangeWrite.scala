package io.sparklance.spark.dml

import org.apache.spark.internal.Logging
import org.apache.spark.sql.connector.metric.{CustomMetric, CustomTaskMetric}
import org.apache.spark.sql.connector.write.{BatchWrite, Write, WriterCommitMessage}
import org.roaringbitmap.RoaringBitmap

import io.sparklance.spark.compat.DriverMetrics
import io.sparklance.spark.{LanceMetrics, LanceTable}
import io.sparklance.spark.write.{CommitTracking, LanceWrite, WritePlan}
import io.sparklance.table.{Fragment, Snapshot}
import io.sparklance.table.commit.{CommitOutcome, Operation}
import io.sparklance.table.write.RowChanges

/**
 * A catalog table's batch write whose tasks write rows and whose commit is one row change
 * ([[RowChanges]]) at the version the statement read: what [[ReplaceWhere]] and
 * [[MergeInserts]] share (the commit's bookkeeping, metrics and abort).
 */
private[dml] abstract class RowChangeWrite(table: LanceTable, plan: WritePlan) extends Write with DriverMetrics with BatchWrite with Logging {
  protected val snapshot: Snapshot = table.snapshot
  private val tracking = new CommitTracking(plan.where)

  override def toBatch: BatchWrite = this

  override def supportedCustomMetrics(): Array[CustomMetric] = LanceMetrics.write

  override protected def driverMetrics: Array[CustomTaskMetric] = tracking.driverMetrics

  /**
   * Commits `operation` over the rows `deleted` (offsets by fragment) of the version read, with
   * the fragments `written`; a write whose (txnAppId, txnVersion) is committed already commits nothing.
   */
  protected def commitChanges(deleted: Map[Long, RoaringBitmap], written: IndexedSeq[Fragment])(
      operation: (IndexedSeq[Fragment], IndexedSeq[Long]) => Operation): CommitOutcome =
    tracking(table.stores.create(), plan.root, written)(
      RowChanges.commit(table.stores.create(), snapshot, deleted, plan.where, plan.options.commitProperties, plan.options.app)(operation))

  override def abort(messages: Array[WriterCommitMessage]): Unit =
    tracking.abort(table.stores.create(), plan.root, LanceWrite.fragments(messages))
}
