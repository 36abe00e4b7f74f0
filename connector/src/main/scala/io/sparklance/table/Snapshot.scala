package io.sparklance.table

import java.nio.charset.StandardCharsets.UTF_8

import io.sparklance.storage.{ObjectStore, Paths}
import io.sparklance.util.{Errors, Json, LanceException}

// Spec: lance-format/lance docs/src/format/table/versioning.md and
// rust/lance-table/src/io/commit.rs (finding versions). A snapshot is one version of a
// table pinned at planning: everything read for a query comes from this manifest.

/**
 * One resolved version of a table: `root` is the dataset it lives in (the table's root, or
 * a branch's `tree/...` folder).
 */
final case class Snapshot(root: String, manifestPath: String, manifest: Manifest) {
  def version: Long = manifest.version
}

/** Which version of a table to read. */
sealed trait VersionSpec
object VersionSpec {
  case object Latest extends VersionSpec
  final case class Number(version: Long) extends VersionSpec
  final case class TagName(name: String) extends VersionSpec
  /** The newest version committed at or before this instant. */
  final case class AsOf(instant: java.time.Instant) extends VersionSpec
}

object Snapshot {
  val VersionsDir = "_versions"

  /** Opens `version` (or the latest) of the main line of the table at `uri`. */
  def open(store: ObjectStore, uri: String, version: Option[Long]): Snapshot =
    resolve(store, uri, None, version.fold[VersionSpec](VersionSpec.Latest)(VersionSpec.Number))

  val VersionHintFile = "latest_version_hint.json"

  /**
   * Resolves a version of the table at `uri`, on `branch` (or the branch a tag names) when
   * given. A numbered version, and the latest one when `latest_version_hint.json` is
   * current, are found by probing manifest names, which costs a few metadata calls however
   * many versions the table has; otherwise `_versions/` is listed, which is authoritative.
   * Relative base paths come back absolute; with `allowedBasePaths` (canonical prefixes,
   * see [[BasePaths.canonical]]), a base path outside them and outside the table's folder
   * is refused.
   */
  def resolve(store: ObjectStore, uri: String, branch: Option[String], spec: VersionSpec,
      allowedBasePaths: Option[Seq[String]] = None): Snapshot = {
    val main = Paths.stripTrailingSlash(uri)
    val (onBranch, wanted) = spec match {
      case VersionSpec.TagName(name) =>
        val t = Refs.tag(store, main, name)
        if (branch.isDefined && t.branch != branch)
          throw Errors.invalidArgument(s"tag '$name' of $main is on ${t.branch.fold("the main branch")(b => s"branch '$b'")}, not on branch '${branch.get}'")
        (t.branch, VersionSpec.Number(t.version))
      case other => (branch, other)
    }
    val root = onBranch.fold(main) { b => Refs.branch(store, main, b); Refs.branchRoot(main, b) }
    lazy val versions = listVersions(store, root)
    val (v, name) = wanted match {
      case VersionSpec.Latest => latestFromHint(store, root).getOrElse(versions.last)
      case VersionSpec.Number(want) =>
        manifestName(store, root, want).map(n => (want, n))
          .getOrElse(throw Errors.versionNotFound(root, want, versions.map(_._1)))
      case VersionSpec.AsOf(instant) =>
        // Newest first: the first version committed at or before the instant.
        versions.reverseIterator.find { case (_, n) =>
          ManifestFile.read(store, Paths.join(root, VersionsDir, n)).timestamp.exists(!_.isAfter(instant))
        }.getOrElse {
          val first = ManifestFile.read(store, Paths.join(root, VersionsDir, versions.head._2)).timestamp
          throw Errors.noVersionAsOf(root, instant.toString, first.fold("an unknown time")(_.toString))
        }
      case VersionSpec.TagName(_) => throw new IllegalStateException("tags resolve to numbers above")
    }
    val path = Paths.join(root, VersionsDir, name)
    val manifest = ManifestFile.read(store, path)
    if (manifest.version != v)
      throw Errors.corrupt(path, s"the manifest says version ${manifest.version} but its file name says version $v")
    FeatureFlags.checkReadable(path, manifest.readerFeatureFlags)
    val bases = BasePaths.absolute(manifest.basePaths)
    allowedBasePaths.foreach(BasePaths.checkAllowed(path, main, bases, _))
    Snapshot(root, path, manifest.copy(basePaths = bases))
  }

  /**
   * The file name of `version`'s manifest under either naming scheme, if anything exists
   * under it: a folder named like a manifest is a version that cannot be read, which
   * reading it then says, rather than a version that does not exist.
   */
  private def manifestName(store: ObjectStore, root: String, version: Long): Option[String] =
    if (version < 0) None
    else Seq(ManifestNaming.V2, ManifestNaming.V1).map(_.fileName(version))
      .find(n => store.entryExists(Paths.join(root, VersionsDir, n)))

  /**
   * The latest version from `_versions/latest_version_hint.json` (`{"version":N}`, rewritten
   * by every pylance 14 commit), trusted only when manifest N exists and N + 1 does not:
   * versions are committed one after another, so a missing N + 1 means nothing newer.
   * Anything named like N + 1 (a folder too) makes the hint stale, so that an unreadable
   * newest version fails rather than the one before it being served. A missing,
   * malformed (too deeply nested, too) or stale hint gives None and the caller lists
   * `_versions/`, as pylance does.
   */
  private def latestFromHint(store: ObjectStore, root: String): Option[(Long, String)] = {
    val hinted =
      try Json.parse(new String(store.readAll(Paths.join(root, VersionsDir, VersionHintFile), Json.MaxFileBytes), UTF_8)) match {
        case m: Map[_, _] => m.asInstanceOf[Map[String, Any]].get("version").collect { case b: BigDecimal if b.isValidLong => b.toLongExact }
        case _ => None
      } catch { case _: LanceException | _: IllegalArgumentException => None } // unreadable, not a file, malformed
    for {
      v <- hinted
      name <- manifestName(store, root, v)
      if manifestName(store, root, v + 1).isEmpty
    } yield (v, name)
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
    // Folders named like manifests are versions too: when one is the newest, reading it
    // fails with a clear error, as in pylance, instead of the version before being served.
    val names = store.listNames(dir)
    val parsed = names.flatMap(n => ManifestNaming.parse(n).map { case (v, _) => (v, n) })
    if (parsed.isEmpty) throw Errors.notADataset(root, "its _versions/ folder holds no *.manifest files")
    parsed.sortBy(_._1)(Ordering.Long).toIndexedSeq
  }
}
