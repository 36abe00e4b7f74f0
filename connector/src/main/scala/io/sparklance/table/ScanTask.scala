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
   * The task's share of the bytes of its files holding `fieldIds` (all files when empty),
   * from the sizes the manifest records: what reading it costs, for splits and statistics.
   */
  def bytesToRead(fieldIds: Set[Int]): Long = {
    val held = if (fieldIds.isEmpty) files else files.filter(f => fieldIds.exists(f.holds))
    val total = held.iterator.map(_.sizeBytes).sum
    if (physicalRows == 0) 0L else (BigInt(total) * rowsToRead / physicalRows).toLong
  }

  /** Only the selected `offsets` of this task, spanning from the first to the last of them. */
  def select(offsets: RoaringBitmap): ScanTask = {
    require(!offsets.isEmpty, "an empty selection is a pruned task, not a task")
    copy(rowStart = offsets.first() & 0xffffffffL, rowEnd = (offsets.last() & 0xffffffffL) + 1, selection = Some(offsets))
  }

  /**
   * Piece `i` of `parts` pieces of about equal rows to read: row ranges, or runs of the
   * selection holding equal numbers of offsets.
   */
  def piece(i: Int, parts: Int): ScanTask = selection match {
    case None => copy(rowStart = rowStart + numRows * i / parts, rowEnd = rowStart + numRows * (i + 1) / parts)
    case Some(s) =>
      val n = s.getLongCardinality
      val from = n * i / parts
      val until = n * (i + 1) / parts
      val rows = RoaringBitmap.and(s, RoaringBitmap.bitmapOfRange(s.select(from.toInt) & 0xffffffffL, (s.select((until - 1).toInt) & 0xffffffffL) + 1))
      select(rows)
  }
}
