package io.sparklance.table.write

import scala.util.control.NonFatal

import org.roaringbitmap.RoaringBitmap

import io.sparklance.storage.ObjectStore
import io.sparklance.table.{Fragment, Snapshot}
import io.sparklance.table.commit.{AppTransaction, CommitOutcome, CommitRequest, KeyExistenceFilter, Operation, TableCommitter}
import io.sparklance.util.{CommitStateUnknownException, Errors}

/**
 * Commits a change of rows read at `snapshot`: the offsets deleted, by fragment, become one new
 * deletion file per fragment (or the fragment's removal), and `operation` gets the updated and
 * removed fragments. The commit may rebase over another writer's deletions in the same
 * fragments ([[DeletedRows]]). The deletion files are removed when the commit does not happen
 * (or `app`, an idempotent write's pair, is committed already: the outcome is then a duplicate),
 * and kept when its outcome is unknown (CommitStateUnknownException is rethrown as it is).
 */
object RowChanges {

  def commit(store: ObjectStore, snapshot: Snapshot, deleted: Map[Long, RoaringBitmap], where: String,
      properties: Map[String, String], app: Option[AppTransaction])(
      operation: (IndexedSeq[Fragment], IndexedSeq[Long]) => Operation): CommitOutcome = {
    val byId = snapshot.manifest.fragments.map(f => f.id -> f).toMap
    var changes: Seq[FragmentChange] = IndexedSeq.empty
    var rebase: Option[DeletedRows] = None
    try {
      changes = deleted.toIndexedSeq.sortBy(_._1).map { case (id, offsets) =>
        val fragment = byId.getOrElse(id, throw Errors.invalidArgument(s"$where: a row to delete lies in fragment $id, " +
          s"which version ${snapshot.version} does not have"))
        RowDeletions.delete(store, snapshot, fragment, offsets)
      }
      rebase = Some(new DeletedRows(store, deleted, changes))
      val updated = changes.collect { case FragmentChange.Updated(f, _) => f }.toIndexedSeq
      val removed = changes.collect { case FragmentChange.Removed(f) => f.id }.toIndexedSeq
      val outcome = new TableCommitter(store, snapshot.root).commit(
        CommitRequest(Some(snapshot.version), operation(updated, removed), properties, app, rebase = rebase))
      if (outcome.duplicate) RowDeletions.discard(store, rebase.fold(changes)(_.changes))
      outcome
    } catch {
      case e: CommitStateUnknownException => throw e
      case NonFatal(e) =>
        RowDeletions.discard(store, rebase.fold(changes)(_.changes))
        throw e
    }
  }

  /**
   * The Update of rows rewritten (Lance's REWRITE_ROWS): old rows deleted, `written` holding the
   * new ones; for a MERGE into a table with an unenforced primary key, the keys it inserted
   * (`insertedRows`) or, where they could not be recorded, `insertsKeys` when it inserted rows.
   */
  def update(written: IndexedSeq[Fragment], insertedRows: Option[KeyExistenceFilter] = None, insertsKeys: Boolean = false)(
      updated: IndexedSeq[Fragment], removed: IndexedSeq[Long]): Operation =
    Operation.Update(removed, updated, written, IndexedSeq.empty, rewriteColumns = false, insertedRows = insertedRows,
      compactedShards = IndexedSeq.empty, insertsKeys = insertsKeys)
}
