package io.sparklance.spark.dml

import org.apache.spark.internal.Logging
import org.apache.spark.sql.connector.metric.{CustomMetric, CustomTaskMetric}
import org.apache.spark.sql.connector.write.{DeltaBatchWrite, DeltaWrite, DeltaWriterFactory, LogicalWriteInfo, PhysicalWriteInfo,
  WriterCommitMessage}
import org.apache.spark.sql.connector.write.RowLevelOperation.Command

import io.sparklance.spark.compat.DriverMetrics
import io.sparklance.spark.{LanceMetrics, LanceSparkException, LanceTable}
import io.sparklance.spark.write.{CommitTracking, InsertedKeyColumns, LanceWrite, LanceWriteOptions, WriteMode, WritePlan, WriteTarget}
import io.sparklance.table.{Fragment, Snapshot}
import io.sparklance.table.commit.{KeyExistenceFilter, Operation}
import io.sparklance.table.proto.ManifestCodec
import io.sparklance.table.write.RowChanges
import io.sparklance.util.Redaction

/**
 * The driver's half of a DELETE, UPDATE or MERGE: the tasks return the row addresses they
 * deleted and the fragments they wrote; the commit writes one new deletion file per touched
 * fragment (or drops a fragment left without rows) and commits one Lance transaction at the
 * version the statement read: a Delete (with the pushed-down condition as its predicate) or an
 * Update (rows rewritten). Another writer's delete or update of the same fragments committed
 * meanwhile is rebased over when no row was deleted by both ([[DeletedRows]]), as Lance does.
 * A statement that changes no row commits nothing. If the commit does
 * not happen, the files this statement wrote are removed; if its outcome is unknown, nothing is.
 */
final class LanceDeltaWrite private (table: LanceTable, snapshot: Snapshot, command: Command, rows: Option[WritePlan],
    options: LanceWriteOptions, predicate: String, keys: Option[InsertedKeyColumns])
    extends DeltaWrite with DriverMetrics with DeltaBatchWrite with Logging {

  override def description(): String =
    s"LanceDeltaWrite ${command.name()} ${Redaction(snapshot.root)} readVersion=${snapshot.version}"

  override def toBatch: DeltaBatchWrite = this

  override def supportedCustomMetrics(): Array[CustomMetric] = LanceMetrics.write

  private val where = WritePlan.where(snapshot.root)
  private val tracking = new CommitTracking(where)

  // The rows, files and bytes written are counted here, from the fragments the tasks returned:
  // a task's metrics are read before its commit, and a delta writer learns only at its commit
  // that its rows ended (no writeAll), so it finishes its last file after Spark has read them.
  private var written: Seq[Fragment] = Nil

  override protected def driverMetrics: Array[CustomTaskMetric] = tracking.driverMetrics ++ Array(
    LanceMetrics.task(LanceMetrics.RowsWritten, written.map(_.physicalRows).sum),
    LanceMetrics.task(LanceMetrics.FilesWritten, written.map(_.files.length).sum),
    LanceMetrics.task(LanceMetrics.BytesWritten, written.flatMap(_.files).map(_.fileSizeBytes).sum))

  /**
   * The table has an unenforced primary key: a MERGE records the keys it inserted when its ON
   * condition is on that key (`keys`), as Lance's merge-insert does, so that only a concurrent
   * insert of one of them conflicts; otherwise its new rows conflict with any concurrent insert.
   */
  private def primaryKey: Boolean = ManifestCodec.primaryKeyFields(snapshot.manifest).nonEmpty

  override def createBatchWriterFactory(info: PhysicalWriteInfo): DeltaWriterFactory =
    LanceDeltaWriterFactory(rows.map(LanceWrite.writerFactory(table, _)), rows.exists(_.stableRowIds), keys)

  private def insertedKeys(ms: Seq[DeltaCommitMessage]): Option[KeyExistenceFilter] = keys.map(_.filter(ms.iterator.flatMap(_.insertedKeys)))

  override def commit(messages: Array[WriterCommitMessage]): Unit = LanceSparkException.boundary {
    val ms = messages.iterator.collect { case m: DeltaCommitMessage => m }.toIndexedSeq
    val written = ms.flatMap(_.fragments)
    this.written = written
    val deleted = DeltaCommitMessage.union(ms.iterator.flatMap(_.deleted))
    if (deleted.isEmpty && written.isEmpty) logInfo(s"$where: the ${command.name()} changed no row; nothing is committed")
    else {
      val outcome = tracking(table.stores.create(), snapshot.root, written)(
        RowChanges.commit(table.stores.create(), snapshot, deleted, where, options.commitProperties, options.app) {
          (updated, removed) => command match {
            case Command.DELETE => Operation.Delete(updated, removed, predicate)
            case Command.MERGE =>
              RowChanges.update(written, insertedKeys(ms), insertsKeys = keys.isEmpty && written.nonEmpty && primaryKey)(updated, removed)
            case _ => RowChanges.update(written)(updated, removed)
          }
        })
      if (!outcome.duplicate) logInfo(s"$where: ${command.name()} committed as version ${outcome.version}")
    }
  }

  override def abort(messages: Array[WriterCommitMessage]): Unit =
    tracking.abort(table.stores.create(), snapshot.root, messages.iterator.collect { case m: DeltaCommitMessage => m.fragments }
      .flatten.toIndexedSeq)
}

object LanceDeltaWrite {

  /** Plans the write of a row-level operation on `table`, read at its loaded version. */
  def plan(table: LanceTable, command: Command, info: LogicalWriteInfo, predicate: String, onColumns: Set[String]): LanceDeltaWrite =
    LanceSparkException.boundary {
      val snapshot = table.snapshot
      val writeOptions = table.writeOptions(info.options())
      // A DELETE writes no rows (Spark gives it no data columns); UPDATE and MERGE write the table's.
      val rows = if (command == Command.DELETE) None
        else Some(LanceWrite.decide(table, WriteTarget(WriteMode.Append, Some(snapshot), writeOptions), overwrite = false, info.schema()))
      val keys = if (command == Command.MERGE) InsertedKeyColumns.of(snapshot.manifest, info.schema(), onColumns, WritePlan.where(snapshot.root))
        else None
      new LanceDeltaWrite(table, snapshot, command, rows, writeOptions, predicate, keys)
    }
}
