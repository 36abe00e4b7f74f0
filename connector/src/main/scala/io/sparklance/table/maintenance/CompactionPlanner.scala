package io.sparklance.table.maintenance

import scala.collection.mutable.ArrayBuffer

import io.sparklance.table.{Fragment, IndexLookup, Manifest, ZoneMapIndex}
import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance/src/dataset/optimize.rs (CompactionOptions,
// DefaultCompactionPlanner::plan, CandidateBin::is_noop and split_for_size). Which fragments of
// one pinned version a compaction rewrites, and how they are grouped. Nothing here reads data.

/**
 * What pylance's `compact_files` takes (num_threads excepted: Spark decides parallelism).
 *
 * @param targetRowsPerFragment          rows per new fragment; fragments with fewer rows are
 *                                       candidates (Lance's default 1,048,576)
 * @param maxRowsPerGroup                rows read and written per batch (Lance's default 1,024;
 *                                       2.x files have no row groups)
 * @param materializeDeletions           rewrite fragments whose deleted share passes the threshold
 * @param materializeDeletionsThreshold  that share (Lance's default 0.1)
 */
final case class CompactionOptions(
    targetRowsPerFragment: Long = 1024L * 1024,
    maxRowsPerGroup: Int = 1024,
    materializeDeletions: Boolean = true,
    materializeDeletionsThreshold: Double = 0.1) {
  if (targetRowsPerFragment < 1 || targetRowsPerFragment > 0xffffffffL)
    throw Errors.invalidOption("target_rows_per_fragment", targetRowsPerFragment.toString, "a row count from 1 to 4294967295")
  if (maxRowsPerGroup < 1) throw Errors.invalidOption("max_rows_per_group", maxRowsPerGroup.toString, "a positive row count")
  if (materializeDeletionsThreshold.isNaN)
    throw Errors.invalidOption("materialize_deletions_threshold", "NaN", "a fraction (0.1 = 10 % of a fragment's rows deleted)")
}

/** One rewrite: adjacent fragments of the read version whose live rows go into new fragments. */
final case class CompactionTask(fragments: IndexedSeq[Fragment]) {
  def liveRows: Long = fragments.map(_.liveRows).sum
}

/**
 * The plan made on `readVersion`. `heldBack`: fragments left alone because an index covers them
 * that this writer cannot remap (tables without stable row ids; kinds other than BTREE, BITMAP
 * and ZONEMAP).
 */
final case class CompactionPlan(readVersion: Long, tasks: IndexedSeq[CompactionTask], heldBack: IndexedSeq[Long])

object CompactionPlanner {

  private sealed trait Candidacy
  private case object CompactItself extends Candidacy
  private case object CompactWithNeighbors extends Candidacy

  private final case class Bin(fragments: ArrayBuffer[Fragment], candidacy: ArrayBuffer[Candidacy], indices: Set[String]) {
    /** A lone fragment that is only small has no neighbour to merge with. */
    def isNoop: Boolean = fragments.isEmpty || (fragments.length == 1 && candidacy.head == CompactWithNeighbors)
  }

  /**
   * The tasks for `m`, in fragment order. A fragment qualifies when its deleted share passes the
   * threshold (rewritten even alone) or when it has fewer rows than the target (rewritten with
   * qualifying neighbours). Runs of adjacent qualifying fragments covered by the same indices
   * form bins (an index covers a group whole or not at all), which are split into tasks of about
   * the target's rows.
   */
  def plan(m: Manifest, options: CompactionOptions): CompactionPlan = {
    if (m.indices.exists(_.kind == IndexLookup.FragmentReuseKind))
      throw Errors.unsupported("compacting a table with a fragment reuse index (a compaction that deferred remapping its " +
        "indices); run pylance's optimize_indices first", s"version ${m.version}")
    // Blob columns read as descriptors of bytes stored apart; rewriting them is not done yet.
    if (m.schema.fields.exists(_.preOrder.exists(_.blobVersion.isDefined)))
      throw Errors.unsupported("compacting a table with blob columns", s"version ${m.version}")
    val indices = m.indices.filter(_.name != "__lance_mem_wal")
    def coveredBy(f: Fragment): Set[String] = indices.filter(_.fragments.exists(_.contains(f.id.toInt))).map(_.uuid).toSet
    // Without stable row ids an index names row addresses, which a rewrite moves: BTREE and
    // BITMAP indices are remapped ([[IndexRemap]]) and a ZONEMAP stops covering the rewritten
    // fragments, as Lance does; the fragments other kinds cover (which Lance remaps and this
    // writer cannot) stay as they are.
    val unmappable = indices.filterNot(i => IndexRemap.Remapped(i.kind) || i.kind == ZoneMapIndex.Kind).map(_.uuid).toSet
    val heldBack = if (m.stableRowIds) IndexedSeq.empty else m.fragments.filter(coveredBy(_).exists(unmappable)).map(_.id)
    val bins = ArrayBuffer.empty[Bin]
    var current: Option[Bin] = None
    def flush(): Unit = { current.foreach(bins += _); current = None }
    m.fragments.foreach { f =>
      if (heldBack.contains(f.id)) flush()
      else {
        val deleted = f.deletionFile.map(_.numDeletedRows).getOrElse(0L)
        val share = if (f.physicalRows > 0) deleted.toDouble / f.physicalRows else 0.0
        val candidacy =
          if (options.materializeDeletions && share > options.materializeDeletionsThreshold) Some(CompactItself)
          else if (f.physicalRows < options.targetRowsPerFragment) Some(CompactWithNeighbors)
          else None
        val covered = coveredBy(f)
        (candidacy, current) match {
          case (None, _) => flush()
          case (Some(c), Some(bin)) if bin.indices == covered => bin.fragments += f; bin.candidacy += c
          case (Some(c), _) => flush(); current = Some(Bin(ArrayBuffer(f), ArrayBuffer(c), covered))
        }
      }
    }
    flush()
    val tasks = bins.filterNot(_.isNoop).flatMap(b => split(b.fragments.toIndexedSeq, options.targetRowsPerFragment)).map(CompactionTask(_))
    CompactionPlan(m.version, tasks.toIndexedSeq, heldBack)
  }

  /**
   * Splits a bin into runs of at least `target` live rows, the last run taking the rest when
   * what is left would not make another run of that size (optimize.rs, split_for_size).
   */
  private def split(fragments: IndexedSeq[Fragment], target: Long): Seq[IndexedSeq[Fragment]] = {
    val out = ArrayBuffer.empty[IndexedSeq[Fragment]]
    var rest = fragments
    var done = false
    while (!done) {
      var n = 0
      var rows = 0L
      while (rows < target && n < rest.length) { rows += rest(n).liveRows; n += 1 }
      if (rest.drop(n).map(_.liveRows).sum >= target) { out += rest.take(n); rest = rest.drop(n) }
      else { out += rest; done = true }
    }
    out.toSeq
  }
}
