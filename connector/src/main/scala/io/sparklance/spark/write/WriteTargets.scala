package io.sparklance.spark.write

import io.sparklance.spark.LanceTable
import io.sparklance.storage.Paths
import io.sparklance.table.{BasePath, BasePaths}
import io.sparklance.table.write.{FileTarget, FragmentWriter}
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/table/layout.md (base paths) and pylance 14's
// write_dataset(target_bases=, target_all_bases=) (pylance-14-on-disk.md section 7): a new data
// file in a base that is a dataset root goes to `<path>/data/`, else directly to `<path>/`, and
// records the base's id; deletion files stay in the table's own `_deletions/`.

/** The folders a write's new data files go to, from the write options `targetBases` / `targetAllBases`. */
private[write] object WriteTargets {

  /** Empty: the table's own `data/` (no option given). */
  def apply(table: LanceTable, plan: WritePlan): IndexedSeq[FileTarget] = {
    val o = plan.options
    if (o.initialBases.nonEmpty && plan.readVersion.isDefined)
      throw Errors.invalidArgument(s"${plan.where}: '${LanceWriteOptions.InitialBases}' names the bases of a new table, and the table " +
        "exists; CALL system.add_bases adds bases to it")
    if (o.targetBases.isEmpty && !o.targetAllBases) return IndexedSeq.empty
    if (o.targetBases.nonEmpty && o.targetAllBases)
      throw Errors.invalidArgument(s"${plan.where}: give '${LanceWriteOptions.TargetBases}' or '${LanceWriteOptions.TargetAllBases}', not both")
    // A table this write creates has the initial bases, numbered from 1 in order as its commit numbers them.
    val bases = if (plan.readVersion.isDefined) table.snapshot.manifest.basePaths
      else o.initialBases.zipWithIndex.map { case (b, i) => b.copy(id = i + 1) }
    def target(b: BasePath) = FileTarget(Some(b.id), if (b.isDatasetRoot) Paths.join(b.path, FragmentWriter.DataDir) else b.path)
    if (o.targetAllBases) FileTarget(None, Paths.join(plan.root, FragmentWriter.DataDir)) +: bases.sortBy(_.id).map(target)
    else o.targetBases.map { wanted =>
      val canonical = BasePaths.canonical(wanted)
      bases.find(b => b.name.contains(wanted) || (canonical.isDefined && BasePaths.canonical(b.path) == canonical)).map(target)
        .getOrElse(throw Errors.invalidArgument(s"${plan.where}: '${LanceWriteOptions.TargetBases}' names '$wanted', which is not a " +
          s"base path of the table; its bases are ${bases.map(b => s"${b.name.getOrElse("(no name)")}=${b.path}").mkString("[", ", ", "]")} " +
          "(CALL system.add_bases adds one)"))
    }.toIndexedSeq
  }
}
