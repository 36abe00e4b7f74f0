package io.sparklance.table

import io.sparklance.storage.{ObjectStore, Paths}
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/table/versioning.md and
// rust/lance-table/src/io/commit.rs (finding versions). A snapshot is one version of a
// table pinned at planning: everything read for a query comes from this manifest.

/** One resolved version of the table rooted at `root`. */
final case class Snapshot(root: String, manifestPath: String, manifest: Manifest) {
  def version: Long = manifest.version
}

object Snapshot {
  val VersionsDir = "_versions"

  /**
   * Opens `version` (or the latest) of the table at `uri`. Versions are found by listing
   * `_versions/`, which is authoritative; `latest_version_hint.json` is only a hint.
   */
  def open(store: ObjectStore, uri: String, version: Option[Long]): Snapshot = {
    val root = Paths.stripTrailingSlash(uri)
    val versions = listVersions(store, root)
    val (v, name) = version match {
      case None => versions.last
      case Some(want) =>
        versions.find(_._1 == want).getOrElse(throw Errors.versionNotFound(root, want, versions.map(_._1)))
    }
    val path = Paths.join(root, VersionsDir, name)
    val manifest = ManifestFile.read(store, path)
    if (manifest.version != v)
      throw Errors.corrupt(path, s"the manifest says version ${manifest.version} but its file name says version $v")
    FeatureFlags.checkReadable(path, manifest.readerFeatureFlags)
    Snapshot(root, path, manifest)
  }

  /** Every version of the table with its manifest file name, oldest first. */
  def listVersions(store: ObjectStore, root: String): IndexedSeq[(Long, String)] = {
    val dir = Paths.join(root, VersionsDir)
    if (!store.isDirectory(dir)) {
      if (!store.isDirectory(root) && !store.exists(root)) throw Errors.notADataset(root, "the path does not exist")
      val entries = if (store.isDirectory(root)) store.list(root).map(_.name) else Seq.empty
      val hint =
        if (entries.exists(_.endsWith(".parquet"))) "it holds Parquet files; read it with format(\"parquet\")"
        else if (store.exists(root)) "it is a file, not a dataset folder"
        else "it has no _versions/ folder"
      throw Errors.notADataset(root, hint)
    }
    val parsed = store.list(dir).flatMap(e => ManifestNaming.parse(e.name).map { case (v, _) => (v, e.name) })
    if (parsed.isEmpty) throw Errors.notADataset(root, "its _versions/ folder holds no *.manifest files")
    parsed.sortBy(_._1)(Ordering.Long).toIndexedSeq
  }
}
