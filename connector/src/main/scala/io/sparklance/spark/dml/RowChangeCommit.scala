package io.sparklance.spark.dml

import java.util.concurrent.TimeUnit

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.connector.metric.CustomTaskMetric

import io.sparklance.spark.LanceMetrics
import io.sparklance.storage.ObjectStore
import io.sparklance.table.Fragment
import io.sparklance.table.commit.CommitOutcome
import io.sparklance.table.write.FragmentWriter
import io.sparklance.util.CommitStateUnknownException

/**
 * What the driver keeps of one row-level write's commit: its attempts and time (the driver
 * metrics), and whether the table holds it, or may: from then on an abort deletes nothing.
 */
private[dml] final class RowChangeCommit(where: String) extends Logging {
  private var attempts = 0
  private var nanos = 0L
  @volatile private var keepFiles = false

  /** Runs the commit `c`, counting it; an unknown outcome keeps every file. */
  def apply(c: => CommitOutcome): CommitOutcome = {
    val started = System.nanoTime()
    try {
      val outcome = c
      attempts += outcome.attempts
      keepFiles = true
      outcome
    } catch {
      case e: CommitStateUnknownException => keepFiles = true; throw e
    } finally nanos += System.nanoTime() - started
  }

  /** Removes the fragments the tasks wrote, unless the commit happened or may have. */
  def abort(store: => ObjectStore, root: String, written: Seq[Fragment]): Unit =
    if (keepFiles) logWarning(s"$where: the commit happened or may have happened; no written file is deleted")
    else
      try FragmentWriter.discard(store, root, written)
      catch { case NonFatal(e) => logWarning(s"$where: could not remove the files of the aborted write", e) }

  def driverMetrics: Array[CustomTaskMetric] = Array(
    LanceMetrics.task(LanceMetrics.CommitAttempts, attempts),
    LanceMetrics.task(LanceMetrics.CommitRetries, math.max(attempts - 1, 0)),
    LanceMetrics.task(LanceMetrics.CommitTime, TimeUnit.NANOSECONDS.toMillis(nanos)))
}
