package io.sparklance.table.write

import java.util.concurrent.ThreadLocalRandom

import scala.util.control.NonFatal

import org.roaringbitmap.RoaringBitmap

import io.sparklance.storage.{ObjectStore, Paths}
import io.sparklance.table.{DeletionFile, DeletionFileType, DeletionVector, FileLocations, Fragment, Snapshot}
import io.sparklance.table.commit.{DeletionRebase, Operation}
import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance-table/src/io/deletion.rs (write_deletion_file) and
// rust/lance/src/dataset/fragment.rs (FileFragment::extend_deletions). Rows are deleted from a
// fragment by a new deletion file holding every deleted offset, the old ones and the new ones:
// the old file stays (versions before this one still read it) until cleanup. Lance writes a
// set of up to 5000 offsets as an Arrow IPC file and a bitmap above that, and always a bitmap
// when it rebases a deletion over another writer's; readers take either, and this writer always
// writes the bitmap (`.bin`, the 32-bit roaring bitmap's portable serialization), which is
// never larger for runs of rows and needs no IPC writer or compression codec.

/**
 * What deleting rows does to one fragment: it keeps some rows (a new deletion file) or none
 * (removed whole). Each holds the fragment as the deletion saw it (with the new deletion file,
 * or as it was before its removal), so that a rebase can tell whether another writer changed
 * its data files since.
 */
sealed trait FragmentChange {
  def fragment: Fragment
}
object FragmentChange {
  final case class Updated(fragment: Fragment, deletionPath: String) extends FragmentChange
  final case class Removed(fragment: Fragment) extends FragmentChange
}

object RowDeletions {

  /** The offsets already deleted from `fragment` in `snapshot` (none without a deletion file). */
  def existing(store: ObjectStore, snapshot: Snapshot, fragment: Fragment): RoaringBitmap =
    fragment.deletionFile.fold(new RoaringBitmap()) { d =>
      DeletionVector.read(store, new FileLocations(snapshot.root, snapshot.manifest).deletionFile(fragment.id, d), d.fileType,
        fragment.id, fragment.physicalRows)
    }

  /**
   * Deletes the rows at `offsets` from `fragment` (of `snapshot`, whose version is the read
   * version): the fragment is removed when no row is left, else a new deletion file holding the
   * old and new deleted offsets is written under the table's `_deletions/`. Offsets past the
   * fragment's rows are refused: a row address from another version of the table.
   */
  def delete(store: ObjectStore, snapshot: Snapshot, fragment: Fragment, offsets: RoaringBitmap): FragmentChange = {
    if (!offsets.isEmpty && (offsets.last() & 0xffffffffL) >= fragment.physicalRows)
      throw Errors.invalidArgument(s"${snapshot.root} version ${snapshot.version}: a row to delete, offset " +
        s"${offsets.last() & 0xffffffffL} of fragment ${fragment.id}, lies past its ${fragment.physicalRows} rows")
    val all = RoaringBitmap.or(existing(store, snapshot, fragment), offsets)
    if (all.getLongCardinality >= fragment.physicalRows) FragmentChange.Removed(fragment)
    else {
      val file = DeletionFile(DeletionFileType.Bitmap, snapshot.version, ThreadLocalRandom.current().nextLong() & Long.MaxValue,
        all.getLongCardinality, None)
      val path = Paths.join(Paths.stripTrailingSlash(snapshot.root), "_deletions", file.fileName(fragment.id))
      // A fresh random name, written as data files are: a create-if-absent would take a retried
      // request's "already exists" (our own stored file) for a collision.
      store.writeNew(path, DeletionVector.toBytes(all))
      FragmentChange.Updated(fragment.copy(deletionFile = Some(file)), path)
    }
  }

  /** Removes deletion files a commit that did not happen wrote (best effort: unreferenced files are harmless). */
  def discard(store: ObjectStore, changes: Seq[FragmentChange]): Unit = changes.foreach {
    case FragmentChange.Updated(_, path) => try store.delete(path) catch { case NonFatal(_) => () }
    case _ => ()
  }
}

/**
 * The rebase of a Delete or Update that deleted the offsets `affected` (by fragment) at its read
 * version, over another writer's Delete or Update of some of the same fragments (Lance's rule
 * c1, conflict_resolver.rs): for each shared fragment, the other side must have kept it and its
 * data files (those it had when ours read it, for the fragments ours removes whole as for those
 * it keeps: Lance's initial_fragments hold both, check_delete_txn) and deleted none of our rows;
 * our deletion file is then written again over theirs
 * (their deleted offsets and ours, read version = the version they made), and a fragment left
 * without rows is removed. `changes` are the files this statement's commit may reference: the
 * first ones, replaced as rebases write new ones (a replaced file is deleted at once).
 */
final class DeletedRows(store: ObjectStore, affected: Map[Long, RoaringBitmap], first: Seq[FragmentChange]) extends DeletionRebase {
  private var current: Seq[FragmentChange] = first

  /** The deletion changes the operation now holds. */
  def changes: Seq[FragmentChange] = current

  override def rebase(mine: Operation, theirs: Operation, at: Snapshot): Either[String, Operation] = {
    def touched(op: Operation): (IndexedSeq[Fragment], IndexedSeq[Long]) = op match {
      case d: Operation.Delete => (d.updatedFragments, d.deletedFragmentIds)
      case u: Operation.Update => (u.updatedFragments, u.removedFragmentIds)
      case other => throw new IllegalStateException(s"a ${other.name} has no deletions to rebase")
    }
    val (theirUpdated, theirRemoved) = touched(theirs)
    val (myUpdated, myRemoved) = touched(mine)
    val theirIds = (theirUpdated.map(_.id) ++ theirRemoved).toSet
    val shared = (myUpdated.map(_.id) ++ myRemoved).filter(theirIds).sorted
    val now = at.manifest.fragments.map(f => f.id -> f).toMap
    // Every fragment ours changes, the removed ones included, with the data files ours read.
    val mineById = current.map(c => c.fragment.id -> c.fragment).toMap
    shared.find(id => !now.contains(id)).map(id => Left(s"it removed fragment $id")).getOrElse {
      shared.find(id => mineById.get(id).forall(_.files != now(id).files)).map(id => Left(s"it rewrote the data files of fragment $id"))
        .getOrElse {
          shared.find(id => RoaringBitmap.intersects(RowDeletions.existing(store, at, now(id)), affected.getOrElse(id, new RoaringBitmap())))
            .map(id => Left(s"it deleted rows of fragment $id that this one deletes too")).getOrElse {
              val rebased = shared.map(id => id -> RowDeletions.delete(store, at, now(id), affected.getOrElse(id, new RoaringBitmap()))).toMap
              val (replaced, kept) = current.partition(c => rebased.contains(c.fragment.id))
              RowDeletions.discard(store, replaced)
              current = kept ++ rebased.values
              val updated = current.collect { case FragmentChange.Updated(f, _) => f }.toIndexedSeq.sortBy(_.id)
              val removed = current.collect { case FragmentChange.Removed(f) => f.id }.toIndexedSeq.sorted
              Right(mine match {
                case d: Operation.Delete => d.copy(updatedFragments = updated, deletedFragmentIds = removed)
                case u: Operation.Update => u.copy(updatedFragments = updated, removedFragmentIds = removed)
                case other => other
              })
            }
        }
    }
  }
}
