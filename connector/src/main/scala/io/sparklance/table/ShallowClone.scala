package io.sparklance.table

import io.sparklance.storage.{ObjectStore, Paths}
import io.sparklance.table.commit.{Operation, TableCommitter}
import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance/src/dataset.rs (shallow_clone) and
// pylance-14-on-disk.md section 7. A shallow clone is a new table at another location whose
// first version is the source version: same number, the source's files named through base
// path 0 (the source root, a dataset root) and none copied. It then evolves alone.

/** `sourceVersion`: the version cloned; `version`: the clone's first version (the same number). */
final case class CloneResult(sourceVersion: Long, version: Long, target: String)

object ShallowClone {

  /**
   * Clones a version of the main line or of `branch` (the latest when neither `version` nor
   * `tag` is given) to `target`, which must be empty or absent: one that holds anything is
   * refused (LANCE_INVALID_ARGUMENT) and nothing is written. Two writers cloning to the same
   * target race on one create-if-absent of the manifest; the loser is told.
   */
  def clone(store: ObjectStore, root: String, target: String, branch: Option[String], version: Option[Long],
      tag: Option[String]): CloneResult = {
    val main = Paths.stripTrailingSlash(root)
    val to = Paths.stripTrailingSlash(target)
    val spec = (version, tag) match {
      case (Some(v), None) => VersionSpec.Number(v)
      case (None, Some(t)) => VersionSpec.TagName(t)
      case (None, None) => VersionSpec.Latest
      case _ => throw Errors.invalidArgument(s"clone of $main: give a version or a tag, not both")
    }
    val (canonicalTo, canonicalMain) = (BasePaths.canonical(to), BasePaths.canonical(main))
    if (canonicalTo == canonicalMain)
      throw Errors.invalidArgument(s"clone of $main: the target is the table itself; give an empty folder")
    // A clone nested in its source (or the source in it) would share the other's folders (a
    // recursive listing or removal of one would meet the other): each keeps a folder of its own.
    for (a <- canonicalTo; b <- canonicalMain if a.startsWith(b + "/") || b.startsWith(a + "/"))
      throw Errors.invalidArgument(s"clone of $main: the target $to and the table are inside one another; give a folder outside the table")
    if (store.entryExists(to) && (!store.isDirectory(to) || store.listNames(to).nonEmpty))
      throw Errors.invalidArgument(s"clone of $main: the target $to is not empty; give an empty or new folder")
    val source = Snapshot.resolve(store, main, branch, spec)
    val sourceBranch = spec match {
      case VersionSpec.TagName(t) => Refs.tag(store, main, t).branch
      case _ => branch
    }
    val out = new TableCommitter(store, to).commitClone(source,
      Operation.Clone(shallow = true, source.version, source.root, branch = None, refName = sourceBranch))
    CloneResult(source.version, out.version, to)
  }
}
