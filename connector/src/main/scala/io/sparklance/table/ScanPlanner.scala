package io.sparklance.table

import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer

import io.sparklance.format.{DataFileReader, FileVersion}
import io.sparklance.storage
import io.sparklance.storage.ObjectStore

// Spec: lance-format/lance docs/src/format/table/index.md (fragments). Turns a pinned
// snapshot into scan tasks and groups them into splits sized by bytes, the way Spark's own
// file sources size theirs, so that parallelism does not depend on how the data was
// written: a fragment larger than the target is cut into row ranges, small fragments are
// packed together.

/** How to size splits: a target in bytes, and the cost charged for opening one task. */
final case class SplitSizing(targetBytes: Long, openCostBytes: Long) {
  require(targetBytes > 0 && openCostBytes >= 0, "split sizes must be positive")
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
   * earliest Lance releases do not record a fragment's rows (physical_rows 0); those are
   * read from its first data file here, on the driver.
   */
  def plan(store: ObjectStore, snapshot: Snapshot): IndexedSeq[ScanTask] = {
    val m = snapshot.manifest
    val locations = new FileLocations(snapshot.root, m)
    m.fragments.filter(_.files.nonEmpty).flatMap { f =>
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
        case RowIdSource.External(e) => RowIdLocation(None, Some(e), Some(storage.Paths.join(snapshot.root, e.path)))
      }
      if (rows == 0) None else Some(ScanTask(f.id, files, rows, 0, rows, deletion, rowIds))
    }
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
   * Groups tasks into splits of about `sizing.targetBytes` (counting only the files that hold
   * `fieldIds`, or all files when empty): large fragments become several row ranges, small
   * ones share a split. Order is kept, so splits read the table front to back.
   */
  def splits(tasks: IndexedSeq[ScanTask], fieldIds: Set[Int], sizing: SplitSizing): IndexedSeq[IndexedSeq[ScanTask]] = {
    val pieces = tasks.flatMap { t =>
      val bytes = t.bytesToRead(fieldIds)
      val parts = math.max(1L, math.min(t.rowsToRead, (bytes + sizing.targetBytes - 1) / sizing.targetBytes)).toInt
      if (parts == 1) IndexedSeq(t -> bytes)
      else (0 until parts).map(i => t.piece(i, parts) -> bytes / parts)
    }
    val out = ArrayBuffer.empty[IndexedSeq[ScanTask]]
    val current = ArrayBuffer.empty[ScanTask]
    var size = 0L
    pieces.foreach { case (t, bytes) =>
      // As Spark's FilePartition: a piece joins the split unless its bytes overflow it; its
      // open cost counts against the pieces after it.
      if (current.nonEmpty && size + bytes > sizing.targetBytes) {
        out += current.toIndexedSeq
        current.clear()
        size = 0
      }
      current += t
      size += bytes + sizing.openCostBytes
    }
    if (current.nonEmpty) out += current.toIndexedSeq
    out.toIndexedSeq
  }
}
