package io.sparklance.table

import io.sparklance.storage.{ObjectStore, Paths}
import io.sparklance.table.commit.{CommitRequest, Operation, TableCommitter}
import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance/src/dataset.rs (Dataset::restore) and
// rust/lance/src/dataset/transaction.rs (Operation::Restore). Restoring commits a new version
// whose content is an older one's; the versions in between stay in the history.

/** `restored`: the version whose content came back; `version`: the version committed. */
final case class RestoreResult(restored: Long, version: Long)

object Restores {

  /**
   * Restores version `version` or the version `tag` names (exactly one) of the main line or of
   * `branch`. Commits through the transaction manager with Lance's rules for Restore: it
   * conflicts with nothing committed meanwhile but a MemWAL state change (ConflictRules).
   */
  def restore(store: ObjectStore, root: String, branch: Option[String], version: Option[Long], tag: Option[String]): RestoreResult = {
    val main = Paths.stripTrailingSlash(root)
    val spec = (version, tag) match {
      case (Some(v), None) => VersionSpec.Number(v)
      case (None, Some(t)) => VersionSpec.TagName(t)
      case _ => throw Errors.invalidArgument(s"restore of $main: give either a version or a tag to restore")
    }
    val target = Snapshot.resolve(store, main, branch, spec)
    val latest = Snapshot.resolve(store, main, branch, VersionSpec.Latest)
    if (target.root != latest.root)
      throw Errors.invalidArgument(s"restore of $main: tag '${tag.get}' names a version of another branch; restore on that branch")
    val out = new TableCommitter(store, latest.root).commit(CommitRequest(Some(latest.version), Operation.Restore(target.version)))
    RestoreResult(target.version, out.version)
  }
}
