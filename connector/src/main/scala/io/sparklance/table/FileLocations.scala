package io.sparklance.table

import io.sparklance.storage.Paths
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/table/layout.md (multi-base layout) and
// rust/lance/src/dataset.rs (data_file_dir, dataset_dir_for_deletion). Where each file of
// a version lives: without a base id in the dataset itself; with one under that base
// (below `data/` or `_deletions/` when the base is a dataset root). Base paths are absolute
// here (BasePaths.absolute, when the snapshot was opened); the relative paths joined below
// them were checked to stay inside their folder when the manifest was parsed.

final class FileLocations(root: String, version: Long, basePaths: IndexedSeq[BasePath]) {

  def this(root: String, manifest: Manifest) = this(root, manifest.version, manifest.basePaths)

  private def base(id: Int, what: String): BasePath =
    basePaths.find(_.id == id).getOrElse(throw Errors.corrupt(root,
      s"version $version: $what names base path id $id, which the manifest does not define"))

  def dataFile(f: DataFile): String = f.baseId match {
    case None => Paths.join(root, "data", f.path)
    case Some(id) =>
      val b = base(id, s"data file ${f.path}")
      if (b.isDatasetRoot) Paths.join(b.path, "data", f.path) else Paths.join(b.path, f.path)
  }

  /** The folder holding an index's files. */
  def indexDir(index: IndexMetadata): String = index.baseId match {
    case None => Paths.join(root, "_indices", index.uuid)
    case Some(id) =>
      val b = base(id, s"index ${index.name}")
      if (b.isDatasetRoot) Paths.join(b.path, "_indices", index.uuid) else Paths.join(b.path, index.uuid)
  }

  def deletionFile(fragmentId: Long, d: DeletionFile): String = {
    val name = d.fileName(fragmentId)
    d.baseId match {
      case None => Paths.join(root, "_deletions", name)
      case Some(id) =>
        val b = base(id, s"deletion file $name")
        if (!b.isDatasetRoot)
          throw Errors.corrupt(root, s"version $version: deletion file $name is in base path ${b.path}, which is not a dataset root")
        Paths.join(b.path, "_deletions", name)
    }
  }
}
