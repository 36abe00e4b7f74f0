package io.sparklance.table

import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer

import io.sparklance.format.{DataFileReader, FileVersion}
import io.sparklance.storage
import io.sparklance.storage.ObjectStore

// Spec: lance-format/lance docs/src/format/table/index.md (fragments). Turns a pinned
// snapshot into scan tasks and cuts them into splits by bytes, so that parallelism does not
// depend on how the data was written: large fragments are cut into row ranges, small ones
// share a split, and the splits come out equal and a multiple of the cores, so that no core
// is left reading a last split alone.

/**
 * How to size splits: at most `targetBytes` each, `openCostBytes` charged for every piece
 * of a fragment a split reads (as spark.sql.files.openCostInBytes), spread over
 * `parallelism` cores.
 */
final case class SplitSizing(targetBytes: Long, openCostBytes: Long, parallelism: Int = 1) {
  require(targetBytes > 0 && openCostBytes >= 0 && parallelism > 0, "split sizes and parallelism must be positive")
}

object SplitSizing {
  val Default: SplitSizing = SplitSizing(128L << 20, 4L << 20)
}

/**
 * The tasks of a scan, what statistics pruned from it, and how many fragments and rows
 * BTREE and BITMAP index look-ups chose (rows before deletions).
 */
final case class ScanPlan(
    tasks: IndexedSeq[ScanTask],
    fragmentsPruned: Int,
    zonesPruned: Int,
    zonesKept: Int,
    indexFragments: Int = 0,
    indexRows: Long = 0)

object ScanPlanner {

  /**
   * One task per fragment with rows, every file located, version pinned. Manifests of the
   * earliest Lance releases do not record a fragment's rows (physical_rows 0), and those of
   * 0.8.0 may record wrong ones ([[WriterCorrections]] makes them 0); those are read from
   * its first data file here, on the driver.
   */
  def plan(store: ObjectStore, snapshot: Snapshot): IndexedSeq[ScanTask] =
    tasks(store, snapshot.root, new FileLocations(snapshot.root, snapshot.manifest), snapshot.manifest.fragments)

  /** The tasks of `fragments` of the table at `root`, whose files `locations` finds (as [[plan]]). */
  def tasks(store: ObjectStore, root: String, locations: FileLocations, fragments: IndexedSeq[Fragment]): IndexedSeq[ScanTask] =
    fragments.filter(_.files.nonEmpty).flatMap { f =>
      val files = f.files.map { d =>
        ScanFile(locations.dataFile(d), d.fileSizeBytes, d.fields, d.columnIndices,
          FileVersion.fromDataFile(d.path, d.majorVersion, d.minorVersion))
      }
      val rows =
        if (f.physicalRows > 0) f.physicalRows
        else {
          val r = DataFileReader.open(store, files.head.path, Some(files.head.sizeBytes).filter(_ > 0), files.head.version)
          try r.numRows finally r.close()
        }
      val deletion = f.deletionFile.map(d => ScanDeletion(locations.deletionFile(f.id, d), d.fileType, d.numDeletedRows))
      val rowIds = f.rowIds.map {
        case RowIdSource.Inline(bytes) => RowIdLocation(Some(bytes), None, None)
        case RowIdSource.External(e) => RowIdLocation(None, Some(e), Some(storage.Paths.join(root, e.path)))
      }
      if (rows == 0) None else Some(ScanTask(f.id, files, rows, 0, rows, deletion, rowIds))
    }

  /**
   * The tasks of a scan filtered by `predicate`. In fragments a BTREE or BITMAP index
   * covers, only the rows its look-up found are read (a fragment with none is dropped);
   * in the others a zone map on a column of the predicate keeps only the row ranges of
   * zones that may match; fragments no index covers are read whole.
   */
  def plan(store: ObjectStore, snapshot: Snapshot, predicate: Option[expr.Expr]): ScanPlan = {
    val tasks = plan(store, snapshot)
    predicate match {
      case None => ScanPlan(tasks, 0, 0, 0)
      case Some(p) =>
        val selected = IndexLookup.select(store, snapshot, p, tasks.map(t => t.fragmentId -> t.physicalRows).toMap)
        // Zone maps only narrow the fragments no index look-up answered for.
        val zones = if (tasks.forall(t => selected.contains(t.fragmentId))) (_: ScanTask) => None else zoneRanges(store, snapshot, p)
        var fragmentsPruned = 0
        var zonesPruned = 0
        var zonesKept = 0
        var indexFragments = 0
        var indexRows = 0L
        val kept = tasks.flatMap { t =>
          val pieces = selected.get(t.fragmentId) match {
            case Some(rows) =>
              if (rows.isEmpty) Seq.empty
              else {
                indexFragments += 1
                indexRows += rows.getLongCardinality
                Seq(t.select(rows))
              }
            case None =>
              val ranges = zones(t).map { case (kept, pruned, rs) => zonesKept += kept; zonesPruned += pruned; rs }
              ranges.getOrElse(Seq((t.rowStart, t.rowEnd))).map { case (a, b) => t.copy(rowStart = a, rowEnd = b) }
          }
          if (pieces.isEmpty) fragmentsPruned += 1
          pieces
        }
        ScanPlan(kept, fragmentsPruned, zonesPruned, zonesKept, indexFragments, indexRows)
    }
  }

  /**
   * For a fragment's task, what a zone map on a column of `p` keeps: (zones kept, zones
   * pruned, the row ranges of the kept zones, adjacent ones joined); None when no zone map
   * covers the fragment.
   */
  private def zoneRanges(store: ObjectStore, snapshot: Snapshot, p: expr.Expr): ScanTask => Option[(Int, Int, Seq[(Long, Long)])] = {
    val m = snapshot.manifest
    val byName = m.schema.fields.map(f => f.name -> f).toMap
    val zoneMaps = expr.Expr.columns(p).toSeq.sorted.flatMap { c =>
      byName.get(c).flatMap { f =>
        m.indices.find(i => i.kind == ZoneMapIndex.Kind && i.fields == IndexedSeq(f.id)).map { index =>
          val arrowType = f.toArrow(snapshot.manifestPath).getType
          val zones = ZoneMapIndex.load(store, new FileLocations(snapshot.root, m).indexDir(index), index, arrowType)
          (c, index, zones.groupBy(_.fragmentId))
        }
      }
    }
    t => zoneMaps.find { case (_, index, byFragment) =>
      index.fragments.forall(_.contains(t.fragmentId.toInt)) && byFragment.contains(t.fragmentId)
    }.map { case (column, _, byFragment) =>
      val zones = byFragment(t.fragmentId).sortBy(_.start)
      val (matching, pruned) = zones.partition(z => expr.InclusiveEvaluator.mayMatch(p, c => if (c == column) Some(z.stats) else None))
      // Adjacent matching zones become one row range.
      val ranges = mutable.ArrayBuffer.empty[(Long, Long)]
      matching.foreach { z =>
        val end = math.min(z.start + z.length, t.rowEnd)
        if (ranges.nonEmpty && ranges.last._2 == z.start) ranges(ranges.length - 1) = (ranges.last._1, end)
        else ranges += ((z.start, end))
      }
      (matching.length, pruned.length, ranges.filter { case (a, b) => b > a }.toSeq)
    }
  }

  /**
   * Cuts `tasks` into splits reading about equal bytes (of the files holding `fieldIds`, or
   * all files when empty, shared among fields by `widths`), each task's open cost included.
   * There are as many splits as the cores, or, when that would make them larger than the
   * target, the next multiple of the cores that does not: every wave of tasks keeps every
   * core busy. A split holds consecutive pieces of the tasks, in order, so splits read the
   * table front to back; a task is cut where a split ends unless one side would be smaller
   * than the open cost, which keeps slivers of fragments from costing an open of their own.
   */
  def splits(tasks: IndexedSeq[ScanTask], fieldIds: Set[Int], widths: Map[Int, Long], sizing: SplitSizing): IndexedSeq[IndexedSeq[ScanTask]] = {
    if (tasks.isEmpty) return IndexedSeq.empty
    val weights = tasks.map(t => (t.bytesToRead(fieldIds, widths) + sizing.openCostBytes).toDouble.max(1.0))
    val total = weights.sum
    val p = sizing.parallelism
    val waves = math.max(1.0, math.ceil(total / (p.toDouble * sizing.targetBytes)))
    val rows = tasks.iterator.map(_.rowsToRead).sum
    val n = math.max(1L, math.min(rows, (p * waves).toLong))
    val per = total / n
    val out = ArrayBuffer.empty[IndexedSeq[ScanTask]]
    val current = ArrayBuffer.empty[ScanTask]
    def close(): Unit = if (current.nonEmpty) { out += current.toIndexedSeq; current.clear() }
    var k = 1L // the current split ends at k * per
    var start = 0.0 // where the task begins, in weight
    tasks.indices.foreach { i =>
      val (t, w) = (tasks(i), weights(i))
      var from = 0.0 // the fraction of the task already placed
      while (from < 1.0) {
        val cut = (k * per - start) / w // where the current split ends, in fractions of the task
        if (k >= n || cut >= 1.0 - 1e-9) {
          current ++= t.part(from, 1.0)
          from = 1.0
        } else {
          // Not cut when the piece before or after the split's end would be a sliver.
          val at =
            if ((cut - from) * w < sizing.openCostBytes) from
            else if ((1.0 - cut) * w < sizing.openCostBytes) 1.0
            else math.max(from, cut)
          current ++= t.part(from, at)
          from = at
          close()
          k += 1
        }
      }
      start += w
    }
    close()
    out.toIndexedSeq
  }
}
