package io.sparklance.spark.dml

import org.apache.spark.sql.connector.write.{DataWriterFactory, LogicalWriteInfo, PhysicalWriteInfo, WriterCommitMessage}

import io.sparklance.spark.{LanceSparkException, LanceTable}
import io.sparklance.spark.write.{InsertedKeyColumns, LanceCommitMessage, LanceWrite, WritePlan, WriteTarget}
import io.sparklance.table.write.RowChanges
import io.sparklance.util.Redaction

/**
 * The rows of a MERGE INTO with only WHEN NOT MATCHED clauses, which Spark writes as an append
 * of the source rows no target row matches, into a table with an unenforced primary key: one
 * Update holding the new fragments, as Lance's merge-insert commits it, with the inserted keys
 * recorded when the ON condition is on the key (`keys`, else as strict as any MERGE that
 * inserts unrecorded keys). A plain Append would commit over a concurrent MERGE that inserted
 * the same key, and the table would hold it twice.
 */
final class MergeInserts private (table: LanceTable, plan: WritePlan, keys: Option[InsertedKeyColumns])
    extends RowChangeWrite(table, plan) {

  override def description(): String = s"LanceMergeInserts ${Redaction(plan.root)} readVersion=${snapshot.version}"

  override def createBatchWriterFactory(info: PhysicalWriteInfo): DataWriterFactory = LanceWrite.writerFactory(table, plan).copy(keys = keys)

  override def commit(messages: Array[WriterCommitMessage]): Unit = LanceSparkException.boundary {
    val written = LanceWrite.fragments(messages)
    if (written.isEmpty) logInfo(s"${plan.where}: the MERGE inserted no row; nothing is committed")
    else {
      val filter = keys.map(_.filter(messages.iterator.collect { case m: LanceCommitMessage => m.insertedKeys }.flatten))
      val outcome = commitChanges(Map.empty, written)(RowChanges.update(written, filter, insertsKeys = filter.isEmpty))
      if (!outcome.duplicate) logInfo(s"${plan.where}: the MERGE's inserted rows committed as version ${outcome.version}")
    }
  }
}

object MergeInserts {
  def plan(table: LanceTable, target: WriteTarget, onColumns: Set[String], info: LogicalWriteInfo): MergeInserts = {
    val plan = LanceWrite.decide(table, target, overwrite = false, info.schema())
    new MergeInserts(table, plan, InsertedKeyColumns.of(table.snapshot.manifest, info.schema(), onColumns, plan.where))
  }
}
