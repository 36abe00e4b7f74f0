package io.sparklance.spark.maintenance

import scala.util.control.NonFatal

import org.apache.arrow.memory.RootAllocator
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

import io.sparklance.format.FileVersion
import io.sparklance.format.write.FileWriterOptions
import io.sparklance.spark.LanceTable
import io.sparklance.spark.write.CommitTracking
import io.sparklance.storage.ObjectStore
import io.sparklance.table.{FileLocations, Fragment, ScanPlanner, Snapshot, VersionSpec}
import io.sparklance.table.commit.{CommitRequest, Operation, TableCommitter}
import io.sparklance.table.proto.ManifestCodec
import io.sparklance.table.maintenance.{CompactionOptions, CompactionPlanner, CompactionTask, FragmentRewriter, IndexRemap}
import io.sparklance.table.write.FragmentWriter
import io.sparklance.util.Errors

/** What a compaction did (Lance's CompactionMetrics, with the rows rewritten and the version committed). */
final case class CompactionResult(fragmentsRemoved: Int, fragmentsAdded: Int, filesRemoved: Int, filesAdded: Int, rows: Long, version: Long)

/**
 * Compaction of a Lance table with Spark, in three phases, each a Spark job description naming
 * the table and the phase: plan on the driver on the version the table was loaded at; rewrite on
 * the executors, one Spark task per group of fragments; commit one Rewrite on the driver through
 * the transaction manager, whose conflict rules decide what landed meanwhile (appends pass; a
 * delete or update of a rewritten fragment fails the compaction, which can be run again). When it
 * does not commit, it removes the files it wrote, once the table shows that its version did not
 * land ([[CommitTracking]]).
 *
 * No ReserveFragments version is committed first, unlike pylance: Lance reserves the new
 * fragments' ids so that a distributed planner knows them before the commit; here the ids are
 * given when the manifest is built, where the indices' fragment bitmaps are rewritten with them.
 */
object Compaction extends Logging {

  /** Compacts `table`; `beforeCommit` runs between the rewrite and the commit (tests race other writers there). */
  def run(table: LanceTable, options: CompactionOptions, beforeCommit: () => Unit = () => ()): CompactionResult = {
    if (table.options.version != VersionSpec.Latest)
      throw Errors.invalidArgument(s"compaction of ${table.name()}: the table was loaded at an older version; compact its latest version")
    val snapshot = table.snapshot
    val m = snapshot.manifest
    val name = table.name()
    val sc = SparkSession.active.sparkContext
    val store = table.stores.create()
    // The caller's own job description comes back when the procedure ends (a notebook may have set one).
    val callersDescription = sc.getLocalProperty("spark.job.description")
    val started = System.nanoTime()
    def phase(what: String): Unit = {
      sc.setJobDescription(s"Lance compact $name: $what")
      logInfo(s"compaction of $name: $what (at ${(System.nanoTime() - started) / 1000000} ms)")
    }
    try {
      phase(s"plan on version ${m.version}")
      val plan = CompactionPlanner.plan(m, options)
      if (plan.heldBack.nonEmpty)
        logInfo(s"compaction of $name: fragments ${plan.heldBack.mkString(", ")} are held back: an index this writer cannot " +
          "remap covers them and the table has no stable row ids, so their rows cannot move")
      if (plan.tasks.isEmpty) {
        logInfo(s"compaction of $name: no fragment qualifies; nothing is committed")
        return CompactionResult(0, 0, 0, 0, 0L, m.version)
      }
      val fileVersion = m.fileVersion(snapshot.manifestPath).getOrElse(FileVersion.V2_2)
      val file = FileWriterOptions(fileVersion)
      val rows = plan.tasks.map(_.liveRows).sum

      phase(s"rewrite ${plan.tasks.map(_.fragments.length).sum} fragments ($rows rows) in ${plan.tasks.length} groups")
      val written = rewrite(table, snapshot, plan.tasks, file, options)
      val rewritten = plan.tasks.zip(written).map { case (t, w) => Operation.RewriteGroup(t.fragments, w) }
      val added = written.flatten

      phase(s"remap ${m.indices.length} index segments over ${rewritten.length} groups")
      val properties = table.writeOptions().commitProperties
      val (groups, indices) =
        try IndexRemap.prepare(store, snapshot.root, m, rewritten, properties)
        catch { case NonFatal(e) => FragmentWriter.discard(store, snapshot.root, added); throw e }

      phase(s"commit ${groups.length} groups on version ${m.version}")
      val tracking = new CommitTracking(s"compaction of $name")
      val outcome =
        try {
          beforeCommit()
          tracking(store, snapshot.root, added) {
            new TableCommitter(store, snapshot.root).commit(CommitRequest(Some(m.version), Operation.Rewrite(groups, indices), properties))
          }
        } catch {
          case NonFatal(e) =>
            abort(tracking, store, snapshot, added, indices, name)
            throw e
        }
      val removed = plan.tasks.flatMap(_.fragments)
      val result = CompactionResult(removed.length, added.length,
        removed.map(f => f.files.length + f.deletionFile.size).sum, added.map(_.files.length).sum, rows, outcome.version)
      logInfo(s"compaction of $name: version ${outcome.version} replaces ${result.fragmentsRemoved} fragments by " +
        s"${result.fragmentsAdded} (${(System.nanoTime() - started) / 1000000} ms)")
      result
    } finally sc.setJobDescription(callersDescription)
  }

  /**
   * The new fragments of each group, written by one Spark task per group. A task receives its
   * group's fragments encoded as protobuf ([[ManifestCodec.encodeFragments]]) and locates their
   * files itself: Java serialization of located scan tasks took seconds on each side for 100,000
   * one-row fragments. When the job fails, the fragments the finished tasks wrote are removed (a
   * failed task removes its own).
   */
  private def rewrite(table: LanceTable, snapshot: Snapshot, tasks: IndexedSeq[CompactionTask], file: FileWriterOptions,
      options: CompactionOptions): IndexedSeq[IndexedSeq[Fragment]] = {
    val sc = SparkSession.active.sparkContext
    val stores = table.executorStores
    val root = snapshot.root
    val m = snapshot.manifest
    val (version, bases, schema, stableRowIds) = (m.version, m.basePaths, m.schema, m.stableRowIds)
    val results = new Array[IndexedSeq[Fragment]](tasks.length)
    val rdd = sc.parallelize(tasks.map(t => ManifestCodec.encodeFragments(t.fragments)), tasks.length)
    try sc.runJob(rdd, (groups: Iterator[Array[Byte]]) =>
      groups.map { bytes =>
        val store = stores.create()
        val fragments = ManifestCodec.decodeFragments(bytes, s"$root: the fragments of a compaction task")
        val scans = ScanPlanner.tasks(store, root, new FileLocations(root, version, bases), fragments)
        val allocator = new RootAllocator()
        try FragmentRewriter.rewrite(store, root, schema, file, options.targetRowsPerFragment, options.maxRowsPerGroup,
          CompactionTask(fragments), scans, stableRowIds, allocator)
        finally allocator.close()
      }.toIndexedSeq,
      (partition: Int, out: IndexedSeq[IndexedSeq[Fragment]]) => results(partition) = out.head)
    catch {
      case NonFatal(e) =>
        FragmentWriter.discard(table.stores.create(), root, results.toSeq.filter(_ != null).flatten)
        throw e
    }
    results.toIndexedSeq
  }

  /**
   * Removes the compaction's files (data and remapped index files) after a commit that failed,
   * unless it happened or may have ([[CommitTracking]]); and only when the table's latest version
   * names none of them, read
   * back here, since a file a committed version names must never go.
   */
  private def abort(tracking: CommitTracking, store: ObjectStore, snapshot: Snapshot, added: Seq[Fragment],
      indices: Seq[Operation.RewrittenIndex], name: String): Unit =
    try {
      val latest = Snapshot.open(store, snapshot.root, None).manifest
      val ours = added.flatMap(_.files.map(_.path)).toSet
      val ourIndices = indices.map(_.newId).toSet
      if (latest.fragments.exists(_.files.exists(f => ours(f.path))) || latest.indices.exists(i => ourIndices(i.uuid)))
        logWarning(s"compaction of $name: version ${latest.version} names the compaction's files; none is deleted")
      else {
        tracking.abort(store, snapshot.root, added)
        if (!tracking.mayHaveCommitted) IndexRemap.discard(store, snapshot.root, indices)
      }
    } catch {
      case NonFatal(e) => logWarning(s"compaction of $name: could not read the table back; the compaction's files are left to cleanup", e)
    }
}
