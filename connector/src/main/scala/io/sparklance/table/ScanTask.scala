package io.sparklance.table

import org.roaringbitmap.RoaringBitmap

import io.sparklance.format.FileVersion

// A unit of work for one executor task: a row range of one fragment, with every file
// location already resolved on the driver, so executors never look at the manifest.

/** A data file of a fragment, located. */
final case class ScanFile(path: String, sizeBytes: Long, fieldIds: IndexedSeq[Int], columnIndices: IndexedSeq[Int], version: FileVersion) {
  /**
   * True when this file stores `fieldId`. Legacy (0.1) files list their field ids without
   * column indices: their page table is keyed by field id.
   */
  def holds(fieldId: Int): Boolean =
    columnOf(fieldId).isDefined || (version == FileVersion.Legacy && columnIndices.isEmpty && fieldIds.contains(fieldId))

  /** The column holding `fieldId` in this file, if it has one. */
  def columnOf(fieldId: Int): Option[Int] = {
    val i = fieldIds.indexOf(fieldId)
    if (i < 0 || i >= columnIndices.length || columnIndices(i) < 0) None else Some(columnIndices(i))
  }
}

/** A fragment's deletion file, located. */
final case class ScanDeletion(path: String, fileType: DeletionFileType, numDeletedRows: Long)

/**
 * Rows `[rowStart, rowEnd)` (physical offsets) of fragment `fragmentId`, or only the
 * offsets in `selection` (all inside that range) when an index chose the rows; rows its
 * deletion file names are never returned.
 */
final case class ScanTask(
    fragmentId: Long,
    files: IndexedSeq[ScanFile],
    physicalRows: Long,
    rowStart: Long,
    rowEnd: Long,
    deletion: Option[ScanDeletion],
    rowIds: Option[RowIdLocation] = None,
    selection: Option[RoaringBitmap] = None) {
  /** Rows the task spans. */
  def numRows: Long = rowEnd - rowStart

  /** Rows the task reads (deleted ones included). */
  def rowsToRead: Long = selection.fold(numRows)(_.getLongCardinality)

  /**
   * The task's share of the bytes of `fieldIds` (all fields when empty) in its files, from
   * the sizes the manifest records: what reading it costs, for splits and statistics. A
   * file's bytes are shared among its fields by their estimated `widths` (see
   * [[ValueWidths]]; a field without one counts as one byte).
   */
  def bytesToRead(fieldIds: Set[Int], widths: Map[Int, Long]): Long = {
    val bytes = files.iterator.map { f =>
      if (fieldIds.isEmpty) f.sizeBytes.toDouble
      else if (!fieldIds.exists(f.holds)) 0.0
      else {
        val all = f.fieldIds.iterator.map(widths.getOrElse(_, 1L)).sum
        val read = f.fieldIds.iterator.filter(fieldIds.contains).map(widths.getOrElse(_, 1L)).sum
        if (all <= 0) f.sizeBytes.toDouble else f.sizeBytes.toDouble * math.min(read, all) / all
      }
    }.sum
    if (physicalRows == 0) 0L else (bytes * rowsToRead / physicalRows).toLong
  }

  /** Only the selected `offsets` of this task, spanning from the first to the last of them. */
  def select(offsets: RoaringBitmap): ScanTask = {
    require(!offsets.isEmpty, "an empty selection is a pruned task, not a task")
    copy(rowStart = offsets.first() & 0xffffffffL, rowEnd = (offsets.last() & 0xffffffffL) + 1, selection = Some(offsets))
  }

  /**
   * The part of the task from fraction `from` to fraction `until` (0 to 1) of the rows it
   * reads: a row range, or the run of the selection's offsets with those ranks; None when
   * it holds no row.
   */
  def part(from: Double, until: Double): Option[ScanTask] = {
    require(from >= 0 && from <= until && until <= 1, s"a part [$from, $until) of a task")
    // Rounded, not truncated: a cut computed as 0.6 may arrive as 0.59999…, and flooring
    // would move it a row and make equal pieces differ by two.
    def rank(n: Long, f: Double): Long = if (f >= 1) n else math.min(n, math.round(n * f))
    selection match {
      case None =>
        val (a, b) = (rowStart + rank(numRows, from), rowStart + rank(numRows, until))
        if (b <= a) None else Some(copy(rowStart = a, rowEnd = b))
      case Some(s) =>
        val n = s.getLongCardinality
        val (a, b) = (rank(n, from), rank(n, until))
        if (b <= a) None
        else Some(select(RoaringBitmap.and(s, RoaringBitmap.bitmapOfRange(s.select(a.toInt) & 0xffffffffL, (s.select((b - 1).toInt) & 0xffffffffL) + 1))))
    }
  }
}
