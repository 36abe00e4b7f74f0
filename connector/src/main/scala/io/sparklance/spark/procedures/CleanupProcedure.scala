package io.sparklance.spark.procedures

import java.time.{Duration, Instant}

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{DateTimeUtils, GenericArrayData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import io.sparklance.spark.maintenance.CleanupJobs
import io.sparklance.spark.procedures.LanceProcedure.{optional, str, TableParam}
import io.sparklance.table.maintenance.{Cleanup, CleanupPolicy, Durations}
import io.sparklance.util.Errors

/**
 * `CALL <catalog>.system.cleanup(table, older_than => NULL, retain_versions => NULL,
 * dry_run => false, override => false, error_if_tagged_old_versions => false)`: pylance's
 * `cleanup_old_versions` from Spark ([[Cleanup]]). `older_than` is a duration ('14 days') or a
 * timestamp ('2026-11-01 00:00:00', in the session time zone); with neither it and
 * `retain_versions`, versions older than 14 days go, as in pylance. A retention floor of 7 days
 * holds unless `override => true`: a cut-off inside it is an error, `retain_versions` alone
 * removes only versions older than it, and files no manifest names (writes that may still be
 * in progress) are removed only once older than it. The deletions run as Spark jobs on the
 * executors ([[CleanupJobs]]). One row: versions, files and bytes removed;
 * with `dry_run`, `files` lists what would go and nothing is removed.
 */
final class CleanupProcedure(context: ProcedureContext) extends LanceProcedure(context) with Logging {

  override protected def params: Seq[LanceProcedure.Param] = Seq(
    TableParam,
    optional("older_than", StringType, "remove versions older than this duration ('14 days') or committed before this timestamp"),
    optional("retain_versions", IntegerType, "keep at least the newest N versions"),
    optional("dry_run", BooleanType, "list what would be removed, remove nothing", "false"),
    optional("override", BooleanType, "allow removing what is younger than the 7-day retention floor", "false"),
    optional("error_if_tagged_old_versions", BooleanType, "fail when a tagged version matches the cut-off", "false"))

  private val fileType = new StructType()
    .add("path", StringType, nullable = false).add("kind", StringType, nullable = false).add("bytes", LongType, nullable = false)

  override def output: StructType = new StructType()
    .add("versions_removed", LongType, nullable = false)
    .add("files_removed", LongType, nullable = false)
    .add("bytes_removed", LongType, nullable = false)
    .add("dry_run", BooleanType, nullable = false)
    .add("files", ArrayType(fileType, containsNull = false))

  override protected def run(args: ProcedureArgs): Seq[InternalRow] = {
    val table = args.table()
    val overrideFloor = args.boolean("override").getOrElse(false)
    val dryRun = args.boolean("dry_run").getOrElse(false)
    val now = Instant.now()
    val floorCut = now.minus(Cleanup.RetentionFloor)
    val retain = args.int("retain_versions")
    retain.foreach(n => if (n <= 0) throw Errors.invalidArgument(s"CALL cleanup: retain_versions must be at least 1, got $n"))
    val olderThan = args.string("older_than") match {
      case Some(text) =>
        val cut = CleanupProcedure.cutOff(text, now)
        if (cut.isAfter(now))
          throw Errors.invalidArgument(s"CALL cleanup: older_than '$text' is in the future ($cut); give a past timestamp or a duration")
        if (cut.isAfter(floorCut) && !overrideFloor)
          throw Errors.invalidArgument(s"CALL cleanup: older_than '$text' ($cut) is inside the retention floor of " +
            s"${Cleanup.RetentionFloor.toDays} days: versions that recent may still be read, and files that recent may belong to " +
            "writes in progress. Give a cut-off of at least 7 days, or pass override => true if no reader or writer uses them")
        Some(cut)
      case None if retain.isEmpty => Some(now.minus(Duration.ofDays(14))) // pylance's default
      case None => if (overrideFloor) None else Some(floorCut)
    }
    val name = table.name()
    val started = System.nanoTime()
    val r = CleanupJobs.run(table,
      CleanupPolicy(olderThan, retain, deleteUnverified = overrideFloor, args.boolean("error_if_tagged_old_versions").getOrElse(false), now),
      dryRun)
    logInfo(s"cleanup of $name: ${if (dryRun) "would remove" else "removed"} ${r.versionsRemoved} versions, ${r.filesRemoved} files, " +
      s"${r.bytesRemoved} bytes (${(System.nanoTime() - started) / 1000000} ms)")
    val files = if (!dryRun) null else new GenericArrayData(r.files.map(f => InternalRow(str(f.path), str(f.kind), f.bytes)).toArray[Any])
    Seq(InternalRow(r.versionsRemoved, r.filesRemoved, r.bytesRemoved, dryRun, files))
  }
}

private object CleanupProcedure {
  /** The instant `text` names: a duration back from `now`, or a timestamp in the session time zone. */
  def cutOff(text: String, now: Instant): Instant = {
    val asDuration = Durations.parse(text.trim.replaceAll("(?i)^interval\\s*", "").replace("'", ""))
    asDuration.map(now.minus).getOrElse {
      val zone = DateTimeUtils.getZoneId(SparkSession.active.sessionState.conf.sessionLocalTimeZone)
      DateTimeUtils.stringToTimestamp(UTF8String.fromString(text.trim), zone)
        .map(micros => Instant.EPOCH.plus(micros, java.time.temporal.ChronoUnit.MICROS))
        .getOrElse(throw Errors.invalidArgument(s"CALL cleanup: older_than '$text' is neither a duration (e.g. '14 days') " +
          "nor a timestamp (e.g. '2026-11-01 00:00:00')"))
    }
  }
}
