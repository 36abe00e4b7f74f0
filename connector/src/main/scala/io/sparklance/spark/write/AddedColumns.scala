package io.sparklance.spark.write

import org.apache.spark.sql.types.StructField

import io.sparklance.spark.LanceOptions
import io.sparklance.spark.catalog.AlterLanceTable
import io.sparklance.storage.ObjectStore
import io.sparklance.table.Snapshot
import io.sparklance.table.commit.{CommitRequest, Operation, TableCommitter}
import io.sparklance.util.Errors

/**
 * The columns an append with `mergeSchema` adds to the table at `base`. Lance's Append carries
 * no schema (rust/lance/src/dataset/transaction.rs), so the new columns are a Merge version of
 * their own (as ALTER TABLE ADD COLUMNS commits, every fragment kept) followed by the Append.
 * The write is planned and its rows written against the schema with the new columns
 * ([[snapshot]], not committed), so that every check of the rows (column names and types, nulls
 * in NOT NULL columns) has passed before the Merge is committed, right before the Append:
 * a write that fails leaves the table as it was.
 */
final case class AddedColumns(base: Snapshot, columns: Seq[StructField]) {
  private def where: String = WritePlan.where(base.root)

  /** The Merge as planned at `base`: the schema the rows are written with (its field ids included). */
  val planned: Operation.Merge = AlterLanceTable.addColumns(base.manifest, columns, where)

  /** `base` as it reads with the new columns, uncommitted: what the write is planned against. */
  def snapshot: Snapshot = base.copy(manifest = base.manifest.copy(schema = planned.schema))

  /**
   * Commits the new columns over the latest version, whose fragments may have changed since
   * `base` (other appends, deletes) but not its schema: the rows were written with the field ids
   * of the planned schema. Returns the version committed, the Append's read version.
   */
  def commit(store: ObjectStore, opts: LanceOptions, properties: Map[String, String]): Long = {
    val latest = LanceSave.latest(store, opts).getOrElse(throw Errors.notADataset(base.root, "the table was removed while this write ran"))
    val merge = AlterLanceTable.addColumns(latest.manifest, columns, where)
    if (merge.schema != planned.schema) throw Errors.schemaChangedDuringWrite(base.root, base.version, latest.version)
    new TableCommitter(store, base.root).commit(CommitRequest(Some(latest.version), merge, properties)).version
  }
}
