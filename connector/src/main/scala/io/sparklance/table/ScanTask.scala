package io.sparklance.table

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
 * Rows `[rowStart, rowEnd)` (physical offsets) of fragment `fragmentId`; rows its
 * deletion file names are never returned.
 */
final case class ScanTask(
    fragmentId: Long,
    files: IndexedSeq[ScanFile],
    physicalRows: Long,
    rowStart: Long,
    rowEnd: Long,
    deletion: Option[ScanDeletion],
    rowIds: Option[RowIdLocation] = None) {
  def numRows: Long = rowEnd - rowStart
  /** A rough size for packing tasks into splits. */
  def estimatedBytes: Long = {
    val total = files.iterator.map(_.sizeBytes).sum
    if (physicalRows == 0) 0 else (BigInt(total) * (rowEnd - rowStart) / physicalRows).toLong
  }
}
