package io.sparklance.table

import io.sparklance.storage.{ObjectStore, Paths}
import io.sparklance.table.commit.{CommitRequest, NextManifest, Operation, TableCommitter}
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/table/layout.md (base paths),
// rust/lance/src/dataset/transaction.rs (Operation::UpdateBases) and pylance's
// `LanceDataset.add_bases`. Adds named base paths to an existing table: later writes may put
// their data files there (write option `targetBases`).

object BaseWrites {

  /**
   * Adds `bases` (ids unassigned: numbered after the highest in use, from 1) to the latest
   * version of the main line or of `branch`, as one UpdateBases. A name or path the table
   * already has, or one given twice, is LANCE_INVALID_ARGUMENT and nothing is committed; so is
   * a concurrent UpdateBases adding the same id, name or path (ConflictRules). Returns the
   * bases as committed and the version.
   */
  def addBases(store: ObjectStore, root: String, branch: Option[String], bases: Seq[BasePath]): (Seq[BasePath], Long) = {
    val main = Paths.stripTrailingSlash(root)
    if (bases.isEmpty) throw Errors.invalidArgument(s"add_bases on $main: give at least one base")
    bases.foreach { b =>
      if (b.name.forall(_.trim.isEmpty)) throw Errors.invalidArgument(s"add_bases on $main: base path ${b.path} needs a name")
      if (b.path.trim.isEmpty) throw Errors.invalidArgument(s"add_bases on $main: base '${b.name.get}' needs a path")
    }
    val latest = Snapshot.resolve(store, main, branch, VersionSpec.Latest)
    val raw = ManifestFile.read(store, latest.manifestPath)
    NextManifest.numberedBases(raw, bases.map(_.copy(id = 0)).toIndexedSeq) // refuses clashes before anything is written
    val out = new TableCommitter(store, latest.root).commit(CommitRequest(Some(latest.version), Operation.UpdateBases(bases.map(_.copy(id = 0)).toIndexedSeq)))
    val committed = Snapshot.resolve(store, main, branch, VersionSpec.Number(out.version))
    val names = bases.flatMap(_.name).toSet
    (ManifestFile.read(store, committed.manifestPath).basePaths.filter(_.name.exists(names)), out.version)
  }
}
