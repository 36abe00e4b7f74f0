package io.sparklance.spark.write

import java.util.concurrent.TimeUnit

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.connector.metric.CustomTaskMetric

import io.sparklance.spark.LanceMetrics
import io.sparklance.storage.ObjectStore
import io.sparklance.table.Fragment
import io.sparklance.table.commit.CommitOutcome
import io.sparklance.table.write.{FileTarget, FragmentWriter}
import io.sparklance.util.CommitStateUnknownException

/**
 * What the driver keeps of one write's commits (appends, overwrites, row-level changes): their
 * attempts and time (the driver metrics), and whether the table holds the write, or may: from
 * then on an abort deletes nothing.
 */
/** `targets`: the bases the write's files went to besides the table's own `data/` (its files there are removed too). */
private[spark] final class CommitTracking(where: String, targets: Seq[FileTarget] = Nil) extends Logging {
  private var attempts = 0
  private var nanos = 0L
  @volatile private var keepFiles = false

  /** Runs the commit `c` of a write that wrote the fragments `written` ([[settle]]), counting its time too. */
  def apply(store: => ObjectStore, root: String, written: Seq[Fragment])(c: => CommitOutcome): CommitOutcome =
    timed(settle(store, root, written)(c))

  /** Runs `body`, adding its time to the commit time. */
  def timed[T](body: => T): T = {
    val started = System.nanoTime()
    try body finally nanos += System.nanoTime() - started
  }

  /**
   * Runs the commit `c` of a write that wrote the fragments `written`, counting its attempts;
   * once it happened, or its outcome is unknown, every file is kept. When it finds the write's
   * (txnAppId, txnVersion) committed already, nothing was committed and the fragments are removed.
   */
  def settle(store: => ObjectStore, root: String, written: Seq[Fragment])(c: => CommitOutcome): CommitOutcome = {
    val outcome =
      try c
      catch { case e: CommitStateUnknownException => keepFiles = true; throw e }
    attempts += outcome.attempts
    if (outcome.duplicate) {
      logInfo(s"$where: version ${outcome.version} already holds this application's write; the files this write wrote are removed")
      FragmentWriter.discard(store, root, written, targets)
    } else keepFiles = true
    outcome
  }

  /** Removes the fragments the tasks wrote, unless the commit happened or may have. */
  /** Whether the commit happened or may have: then no file written for it may be deleted. */
  def mayHaveCommitted: Boolean = keepFiles

  def abort(store: => ObjectStore, root: String, written: Seq[Fragment]): Unit =
    if (keepFiles) logWarning(s"$where: the commit happened or may have happened; no written file is deleted")
    else
      try FragmentWriter.discard(store, root, written, targets)
      catch { case NonFatal(e) => logWarning(s"$where: could not remove the files of the aborted write", e) }

  /** A commit attempt that ended without an outcome (another writer created the table first). */
  def refused(): Unit = attempts += 1

  def driverMetrics: Array[CustomTaskMetric] = Array(
    LanceMetrics.task(LanceMetrics.CommitAttempts, attempts),
    LanceMetrics.task(LanceMetrics.CommitRetries, math.max(attempts - 1, 0)),
    LanceMetrics.task(LanceMetrics.CommitTime, TimeUnit.NANOSECONDS.toMillis(nanos)))
}
