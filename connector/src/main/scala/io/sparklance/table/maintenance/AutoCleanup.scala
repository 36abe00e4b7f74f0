package io.sparklance.table.maintenance

import java.time.Instant

import scala.util.control.NonFatal

import io.sparklance.storage.{ObjectStore, Paths}
import io.sparklance.table.Manifest
import io.sparklance.util.ScalaCompat._

// Spec: lance-format/lance rust/lance/src/dataset/cleanup.rs (auto_cleanup_hook,
// build_cleanup_policy) and rust/lance/src/io/commit.rs (run after a successful commit, its
// failure logged, never the commit's).

/**
 * A table's `lance.auto_cleanup.*` config honoured after a commit, as Lance does: when
 * `lance.auto_cleanup.interval` is set and the new version is a multiple of it (0: every
 * version), versions older than `lance.auto_cleanup.older_than` (a duration) and beyond the
 * newest `lance.auto_cleanup.retain_versions` are cleaned up. Files no manifest names keep the
 * retention floor. Its failure never fails the commit that ran it: it is logged.
 */
object AutoCleanup {
  val Interval = "lance.auto_cleanup.interval"
  val OlderThan = "lance.auto_cleanup.older_than"
  val RetainVersions = "lance.auto_cleanup.retain_versions"

  private val log = org.slf4j.LoggerFactory.getLogger(getClass)

  /** After `committed` was committed at `root` (the main line's root or a branch's). */
  def afterCommit(store: ObjectStore, root: String, committed: Manifest): Option[CleanupResult] =
    try {
      val due = committed.config.get(Interval).map { s =>
        val n = s.trim.toLongOption.filter(_ >= 0).getOrElse(
          throw io.sparklance.util.Errors.invalidArgument(s"table config $Interval is '$s', not a whole number of versions"))
        n == 0 || committed.version % n == 0
      }
      if (!due.contains(true)) None
      else {
        val now = Instant.now()
        val policy = CleanupPolicy(
          committed.config.get(OlderThan).map(s => now.minus(Durations.require(s"table config $OlderThan", s))),
          committed.config.get(RetainVersions).map(s => s.trim.toIntOption.getOrElse(
            throw io.sparklance.util.Errors.invalidArgument(s"table config $RetainVersions is '$s', not a whole number"))),
          deleteUnverified = false, errorIfTaggedOldVersions = false, now)
        val main = committed.branch.fold(Paths.stripTrailingSlash(root)) { b =>
          Paths.stripTrailingSlash(root).stripSuffix("/" + ("tree" +: b.split('/').toSeq).mkString("/"))
        }
        val r = Cleanup.run(store, main, committed.branch, policy, dryRun = false, line => log.info(s"auto cleanup: $line"))
        log.info(s"auto cleanup of $root after version ${committed.version}: removed ${r.versionsRemoved} versions, " +
          s"${r.filesRemoved} files, ${r.bytesRemoved} bytes")
        Some(r)
      }
    } catch {
      case NonFatal(e) =>
        log.warn(s"auto cleanup of $root after version ${committed.version} failed; the commit stands", e)
        None
    }
}
