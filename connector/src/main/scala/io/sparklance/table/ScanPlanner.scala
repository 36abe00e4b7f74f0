package io.sparklance.table

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
   * Groups tasks into splits of about `sizing.targetBytes` (counting only the files that hold
   * `fieldIds`, or all files when empty): large fragments become several row ranges, small
   * ones share a split. Order is kept, so splits read the table front to back.
   */
  def splits(tasks: IndexedSeq[ScanTask], fieldIds: Set[Int], sizing: SplitSizing): IndexedSeq[IndexedSeq[ScanTask]] = {
    def bytesOf(t: ScanTask): Long = {
      val files = if (fieldIds.isEmpty) t.files else t.files.filter(f => fieldIds.exists(f.holds))
      val total = files.iterator.map(_.sizeBytes).sum
      if (t.physicalRows == 0) 0 else (BigInt(total) * t.numRows / t.physicalRows).toLong
    }
    val pieces = tasks.flatMap { t =>
      val bytes = bytesOf(t)
      val parts = math.max(1L, math.min(t.numRows, (bytes + sizing.targetBytes - 1) / sizing.targetBytes)).toInt
      if (parts == 1) IndexedSeq(t -> bytes)
      else (0 until parts).map { i =>
        val from = t.rowStart + t.numRows * i / parts
        val until = t.rowStart + t.numRows * (i + 1) / parts
        t.copy(rowStart = from, rowEnd = until) -> bytes / parts
      }
    }
    val out = ArrayBuffer.empty[IndexedSeq[ScanTask]]
    val current = ArrayBuffer.empty[ScanTask]
    var size = 0L
    pieces.foreach { case (t, bytes) =>
      val cost = bytes + sizing.openCostBytes
      if (current.nonEmpty && size + cost > sizing.targetBytes) {
        out += current.toIndexedSeq
        current.clear()
        size = 0
      }
      current += t
      size += cost
    }
    if (current.nonEmpty) out += current.toIndexedSeq
    out.toIndexedSeq
  }
}
