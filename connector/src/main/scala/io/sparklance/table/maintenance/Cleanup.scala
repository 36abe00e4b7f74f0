package io.sparklance.table.maintenance

import java.time.{Duration, Instant}

import scala.util.control.NonFatal

import io.sparklance.storage.{FileEntry, ObjectStore, Paths}
import io.sparklance.table.{Manifest, ManifestFile, ManifestNaming, Refs, Snapshot}
import io.sparklance.util.{Bytes, Errors, Lookahead, NotFoundException}

// Spec: lance-format/lance rust/lance/src/dataset/cleanup.rs (what is kept, how unreferenced
// files are found, the age rule for files no manifest names) and docs/src/format/table/
// branch_tag.md (tags and branches keep versions). Our own code and words.

/**
 * Which versions a cleanup removes: those committed before `olderThan` (when given) and older
 * than the newest `retainVersions` (when given); never the latest, a tagged one or one a branch
 * was created from. `deleteUnverified`: files no manifest names are removed whatever their age
 * (otherwise only once older than [[Cleanup.RetentionFloor]]: they may belong to a write in
 * progress). `errorIfTaggedOldVersions`: a tagged version the policy would remove is an error.
 */
final case class CleanupPolicy(
    olderThan: Option[Instant],
    retainVersions: Option[Int],
    deleteUnverified: Boolean,
    errorIfTaggedOldVersions: Boolean = false,
    now: Instant = Instant.now())

/** One file a cleanup removed (or would remove): its path, kind and size. */
final case class CleanupFile(path: String, kind: String, bytes: Long)

/** What a cleanup removed (with a dry run: what it would remove; `files` lists them). */
final case class CleanupResult(versionsRemoved: Long, filesRemoved: Long, bytesRemoved: Long, dryRun: Boolean, files: Seq[CleanupFile])

/**
 * What a cleanup will remove, decided on one listing of each folder and one read of each
 * manifest (`foldersListed`, `manifestsRead`, `bytesRead` count those calls): the manifests of
 * the removed versions (oldest first), then every other file. The manifests must all be gone
 * before any of `files` is removed ([[Cleanup.execute]]).
 */
final case class CleanupPlan(root: String, versionsRemoved: Long, manifests: Seq[CleanupFile], files: Seq[CleanupFile],
    foldersListed: Int, manifestsRead: Int, bytesRead: Long) {
  def all: Seq[CleanupFile] = manifests ++ files
  def bytes: Long = all.map(_.bytes).sum
  def dryRunResult: CleanupResult = CleanupResult(versionsRemoved, all.length, bytes, dryRun = true, all)
}

/**
 * The outcome of deleting some files: how many went (or were already gone), their bytes, and how
 * many failed, with the first [[Deletions.Kept]] failures (path, reason) to report.
 */
final case class Deletions(removed: Long, bytes: Long, alreadyGone: Long, failed: Long, firstFailures: Seq[(String, String)]) {
  def +(o: Deletions): Deletions = Deletions(removed + o.removed, bytes + o.bytes, alreadyGone + o.alreadyGone,
    failed + o.failed, (firstFailures ++ o.firstFailures).take(Deletions.Kept))
}

object Deletions {
  val Kept = 10
  val Empty: Deletions = Deletions(0L, 0L, 0L, 0L, Nil)
}

/**
 * Removes old versions of a table and the files no kept version names, as Lance's
 * `cleanup_old_versions` does:
 *  - kept: the latest version, versions the policy does not select, every version a tag of this
 *    line names, every version of this line a branch was created from (its files are the ones
 *    branches name through their base path to us);
 *  - each folder (`_versions`, `_transactions`, `data`, `_deletions`, `_indices`) is listed once
 *    and each manifest read once;
 *  - a file a removed version names (and no kept one) is removed; a file no manifest names (left
 *    by a failed or killed write, or by a write still in progress) only when older than the
 *    retention floor, or with `deleteUnverified`;
 *  - manifests go first, then the files: killed at any point, every remaining version still
 *    reads whole ([[execute]]).
 * Only the table's own folders are listed: files under other base paths (multi-base tables,
 * the source of a shallow clone) are never removed, as in Lance.
 */
object Cleanup {

  /** Below this age nothing is removed without an explicit override (Lance's and Delta's default). */
  val RetentionFloor: Duration = Duration.ofDays(7)

  /**
   * Cleans the main line of the table at `main`, or `branch`, on this machine alone (auto
   * cleanup after a commit; the `cleanup` procedure runs the same plan as Spark jobs);
   * `log` gets progress lines.
   */
  def run(store: ObjectStore, main: String, branch: Option[String], policy: CleanupPolicy, dryRun: Boolean,
      log: String => Unit = _ => ()): CleanupResult = {
    val p = plan(store, main, branch, policy, log)
    if (dryRun) p.dryRunResult
    else execute(p, (_, files) => delete(store, files), log)
  }

  /**
   * Runs `p`: its manifests first, then, once every one of them is gone, its other files, each
   * batch through `deleteAll(what, files)` (on this machine, or spread over executors), which
   * attempts every file it is given. Files only go after the manifests that name them (killed at any point,
   * every version still listed reads whole); so when a manifest could not be deleted, its
   * version is still there and none of the other files is touched. Failures are reported once
   * everything else was attempted: an error naming how many failed and the first of them.
   */
  def execute(p: CleanupPlan, deleteAll: (String, Seq[CleanupFile]) => Deletions, log: String => Unit = _ => ()): CleanupResult = {
    def timed(what: String, files: Seq[CleanupFile]): Deletions = {
      val started = System.nanoTime()
      val d = if (files.isEmpty) Deletions.Empty else deleteAll(what, files)
      log(s"deleted ${d.removed} of ${files.length} $what (${d.bytes} bytes, ${d.alreadyGone} already gone, " +
        s"${d.failed} failed) in ${(System.nanoTime() - started) / 1000000} ms")
      d
    }
    val manifests = timed("manifests of removed versions", p.manifests)
    val done =
      if (manifests.failed > 0) {
        log(s"${manifests.failed} manifests could not be deleted: their versions remain, so no other file is deleted")
        manifests
      } else manifests + timed("files", p.files)
    if (done.failed > 0)
      throw Errors.cleanupIncomplete(p.root, done.failed, done.firstFailures, done.removed, p.all.length, skipped = manifests.failed > 0)
    CleanupResult(p.versionsRemoved, done.removed, done.bytes, dryRun = false, Nil)
  }

  /** Deletes `files` one by one, attempting each: a file already gone is no failure. */
  def delete(store: ObjectStore, files: Seq[CleanupFile]): Deletions =
    files.foldLeft(Deletions.Empty) { (acc, f) =>
      try {
        if (store.delete(f.path)) acc.copy(removed = acc.removed + 1, bytes = acc.bytes + f.bytes)
        else acc.copy(removed = acc.removed + 1, alreadyGone = acc.alreadyGone + 1)
      } catch {
        case NonFatal(e) => acc + Deletions(0L, 0L, 0L, 1L, Seq(f.path -> String.valueOf(e.getMessage)))
      }
    }

  /** What a cleanup of the main line at `main`, or of `branch`, removes; `log` gets progress lines. */
  def plan(store: ObjectStore, main: String, branch: Option[String], policy: CleanupPolicy,
      log: String => Unit = _ => ()): CleanupPlan = {
    val started = System.nanoTime()
    var listings = 0
    var manifestsRead = 0
    var bytesRead = 0L
    def list(dir: String, recursive: Boolean = false): Seq[FileEntry] = {
      listings += 1
      if (recursive) store.listRecursive(dir) else store.list(dir)
    }
    def readManifest(e: FileEntry): Option[Manifest] = {
      manifestsRead += 1
      bytesRead += e.size
      read(store, e)
    }
    val mainRoot = Paths.stripTrailingSlash(main)
    val root = branch.fold(mainRoot)(b => Refs.branchRoot(mainRoot, b))
    val versionsDir = Paths.join(root, Snapshot.VersionsDir)
    val versionListing = list(versionsDir)
    val manifests = versionListing.flatMap(e => ManifestNaming.parse(e.name).map { case (v, _) => (v, e) }).sortBy(_._1)
    if (manifests.isEmpty) throw Errors.notADataset(root, "its _versions/ folder holds no *.manifest files")
    val latest = manifests.last._1

    listings += 2 // the tags' and the branches' folders
    val tagged = Refs.tags(store, mainRoot).map(Refs.tag(store, mainRoot, _)).filter(_.branch == branch)
    val branchOrigins = branchOriginVersions(store, mainRoot, branch)
    val retainBefore = policy.retainVersions.map { n =>
      if (n <= 0) throw Errors.invalidArgument(s"retain_versions must be at least 1, got $n")
      if (manifests.length <= n) manifests.head._1 else manifests(manifests.length - n)._1
    }
    def selected(m: Manifest): Boolean =
      m.version < latest &&
        policy.olderThan.forall(cut => m.timestamp.getOrElse(Instant.EPOCH).isBefore(cut)) &&
        retainBefore.forall(m.version < _)

    val kept = new Referenced
    val verified = new Referenced
    val removed = Seq.newBuilder[(Long, FileEntry)]
    val taggedOld = Seq.newBuilder[Long]
    log(s"reading ${manifests.length} versions of $root")
    // Read and decoded a few at a time ahead of the loop (decoding is most of a long history's planning).
    manifestsRead += manifests.length
    bytesRead += manifests.map(_._2.size).sum
    val reads = new Lookahead[(Long, FileEntry), Option[Manifest]](manifests.toIndexedSeq, threads = 4, ahead = 32,
      "lance-cleanup-read")(e => read(store, e._2))
    try manifests.foreach { case (v, entry) =>
      reads.next().foreach { m =>
        val isTagged = tagged.exists(_.version == v)
        if (isTagged && selected(m)) taggedOld += v
        if (selected(m) && !isTagged && !branchOrigins.contains(v)) { verified.add(m); removed += ((v, entry)) }
        else kept.add(m)
      }
    } finally reads.close()
    val tagErrors = taggedOld.result()
    if (policy.errorIfTaggedOldVersions && tagErrors.nonEmpty)
      throw Errors.invalidArgument(s"cleanup of $root: tagged versions ${tagErrors.mkString(", ")} (tags " +
        tagged.filter(t => tagErrors.contains(t.version)).map(_.name).mkString(", ") + ") match the cleanup's cut-off; " +
        "they are kept either way: delete the tags, or run without error_if_tagged_old_versions")
    // A branch whose origin version is gone already (removed by an older cleanup) may name our
    // files only from its own manifests: read them.
    branchOrigins.foreach { case (v, b) =>
      if (!manifests.exists(_._1 == v)) {
        val bRoot = Refs.branchRoot(mainRoot, b)
        log(s"branch $b was created from version $v, which is gone; reading its versions")
        list(Paths.join(bRoot, Snapshot.VersionsDir)).filter(e => ManifestNaming.parse(e.name).isDefined)
          .foreach(e => readManifest(e).foreach(kept.add))
      }
    }

    val floor = policy.now.minus(RetentionFloor).toEpochMilli
    def unverifiedMayGo(e: FileEntry): Boolean = policy.deleteUnverified || e.lastModified.exists(_ < floor)
    def decide(e: FileEntry, keptHas: Boolean, verifiedHas: Boolean, kind: String): Option[CleanupFile] =
      if (keptHas) None
      else if (verifiedHas || unverifiedMayGo(e)) Some(CleanupFile(e.path, kind, e.size))
      else None

    val removedVersions = removed.result()
    val files = Seq.newBuilder[CleanupFile]
    versionListing.filter(e => isTemporary(e.name) && unverifiedMayGo(e)).foreach(e => files += CleanupFile(e.path, "temporary", e.size))

    def listed(folder: String, recursive: Boolean): Seq[(FileEntry, String)] = {
      val dir = Paths.join(root, folder)
      list(dir, recursive).map(e => (e, relative(dir, e.path)))
    }
    listed("_transactions", recursive = false).foreach { case (e, rel) =>
      if (e.name.endsWith(".txn")) decide(e, kept.transactions(rel), verified.transactions(rel), "transaction").foreach(files += _)
      else if (isTemporary(e.name) && unverifiedMayGo(e)) files += CleanupFile(e.path, "temporary", e.size)
    }
    listed("data", recursive = true).foreach { case (e, rel) =>
      if (isTemporary(e.name)) { if (unverifiedMayGo(e)) files += CleanupFile(e.path, "temporary", e.size) }
      else if (e.name.endsWith(".lance")) decide(e, kept.data(rel), verified.data(rel), "data").foreach(files += _)
    }
    listed("_deletions", recursive = false).foreach { case (e, rel) =>
      if (isTemporary(e.name)) { if (unverifiedMayGo(e)) files += CleanupFile(e.path, "temporary", e.size) }
      else if (e.name.endsWith(".arrow") || e.name.endsWith(".bin"))
        decide(e, kept.deletions(rel), verified.deletions(rel), "deletion").foreach(files += _)
    }
    listed("_indices", recursive = true).foreach { case (e, rel) =>
      val uuid = rel.takeWhile(_ != '/')
      if (rel.contains('/')) decide(e, kept.indices(uuid), verified.indices(uuid), "index").foreach(files += _)
    }

    val p = CleanupPlan(root, removedVersions.length, removedVersions.map { case (_, e) => CleanupFile(e.path, "manifest", e.size) },
      files.result(), listings, manifestsRead, bytesRead)
    log(s"planned: ${p.versionsRemoved} versions and ${p.all.length} files (${p.bytes} bytes) of $root to remove; " +
      s"listed $listings folders, read $manifestsRead manifests ($bytesRead bytes) in ${(System.nanoTime() - started) / 1000000} ms")
    p
  }

  /** Temporary names: ours (`.<name>.<uuid>.tmp`) and Lance's (`.tmp…`): files a killed writer left. */
  private def isTemporary(name: String): Boolean = name.startsWith(".") && (name.endsWith(".tmp") || name.startsWith(".tmp"))

  /** The manifest in `entry`, or None when a concurrent cleanup removed it after the listing. */
  private def read(store: ObjectStore, entry: FileEntry): Option[Manifest] =
    try Some(ManifestFile.parse(Bytes.wrap(entry.path, 0, {
      val r = store.open(entry.path, Some(entry.size))
      try { val b = r.read(0, r.size.toInt); val a = new Array[Byte](b.remaining()); b.get(a); a } finally r.close()
    }))).map(io.sparklance.table.WriterCorrections(_))
    catch { case _: NotFoundException => None }

  /**
   * The versions of this line (`branch`, None: the main line) that branches were created from,
   * with the branch: Lance's branch identifiers (the lineage from the main line down) when the
   * branch files carry them, else the parent branch and version they record.
   */
  private def branchOriginVersions(store: ObjectStore, mainRoot: String, branch: Option[String]): Map[Long, String] = {
    val all = Refs.branches(store, mainRoot).map(Refs.branch(store, mainRoot, _))
    val ours = branch.flatMap(b => all.find(_.name == b)).map(_.identifier).getOrElse(Nil)
    all.filterNot(b => branch.contains(b.name)).flatMap { b =>
      if (b.identifier.nonEmpty && (branch.isEmpty || ours.nonEmpty)) {
        if (b.identifier.length > ours.length && b.identifier.take(ours.length) == ours) Some(b.identifier(ours.length)._1 -> b.name)
        else None
      } else if (b.parentBranch == branch) Some(b.parentVersion -> b.name)
      else None
    }.toMap
  }

  /** The path of `path` below `dir`, whatever form (`file:/…`, `file:///…`, plain) each is written in. */
  private[maintenance] def relative(dir: String, path: String): String = {
    val d = pathPart(dir)
    val p = pathPart(path)
    if (p.startsWith(d + "/")) p.substring(d.length + 1) else Paths.name(path)
  }

  private def pathPart(s: String): String = {
    val noScheme =
      if (s.contains("://")) { val rest = s.substring(s.indexOf("://") + 3); rest.substring(math.max(rest.indexOf('/'), 0)) }
      else if (s.startsWith("file:")) s.substring(5)
      else s
    Paths.stripTrailingSlash("/" + noScheme.dropWhile(_ == '/'))
  }

  /** The files a set of versions names, as paths below the table's root (index files by uuid). */
  private final class Referenced {
    private val dataPaths = scala.collection.mutable.HashSet.empty[String]
    private val deletionPaths = scala.collection.mutable.HashSet.empty[String]
    private val transactionPaths = scala.collection.mutable.HashSet.empty[String]
    private val indexUuids = scala.collection.mutable.HashSet.empty[String]

    // As Lance: a data or deletion file is taken below our own `data/` / `_deletions/` whatever
    // its base, so a file in our folder is never removed while any kept version names that name.
    def add(m: Manifest): Unit = {
      m.fragments.foreach { f =>
        f.files.foreach(d => dataPaths += d.path)
        f.deletionFile.foreach(d => deletionPaths += d.fileName(f.id))
      }
      m.transactionFile.foreach(transactionPaths += _)
      m.indices.foreach(indexUuids += _.uuid)
    }
    def data(rel: String): Boolean = dataPaths(rel)
    def deletions(rel: String): Boolean = deletionPaths(rel)
    def transactions(rel: String): Boolean = transactionPaths(rel)
    def indices(uuid: String): Boolean = indexUuids(uuid)
  }
}
