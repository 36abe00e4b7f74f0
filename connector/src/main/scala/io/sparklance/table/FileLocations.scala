package io.sparklance.table

import io.sparklance.storage.Paths
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/table/layout.md (multi-base layout) and
// rust/lance/src/dataset.rs (data_file_dir, dataset_dir_for_deletion). Where each file of
// a version lives: without a base id in the dataset itself; with one under that base
// (below `data/` or `_deletions/` when the base is a dataset root).

final class FileLocations(root: String, manifest: Manifest) {

  private def base(id: Int, what: String): BasePath =
    manifest.basePath(id).getOrElse(throw Errors.corrupt(root,
      s"version ${manifest.version}: $what names base path id $id, which the manifest does not define"))

  /** Lance may store `s3://` and relative local paths; relative ones are relative to the working directory. */
  private def absolute(p: String): String =
    if (p.contains(":/") || p.startsWith("/")) p else new java.io.File(p).getAbsolutePath

  def dataFile(f: DataFile): String = f.baseId match {
    case None => Paths.join(root, "data", f.path)
    case Some(id) =>
      val b = base(id, s"data file ${f.path}")
      if (b.isDatasetRoot) Paths.join(absolute(b.path), "data", f.path) else Paths.join(absolute(b.path), f.path)
  }

  /** The folder holding an index's files. */
  def indexDir(index: IndexMetadata): String = index.baseId match {
    case None => Paths.join(root, "_indices", index.uuid)
    case Some(id) =>
      val b = base(id, s"index ${index.name}")
      if (b.isDatasetRoot) Paths.join(absolute(b.path), "_indices", index.uuid) else Paths.join(absolute(b.path), index.uuid)
  }

  def deletionFile(fragmentId: Long, d: DeletionFile): String = {
    val name = d.fileName(fragmentId)
    d.baseId match {
      case None => Paths.join(root, "_deletions", name)
      case Some(id) =>
        val b = base(id, s"deletion file $name")
        if (!b.isDatasetRoot)
          throw Errors.corrupt(root, s"version ${manifest.version}: deletion file $name is in base path ${b.path}, which is not a dataset root")
        Paths.join(absolute(b.path), "_deletions", name)
    }
  }
}
