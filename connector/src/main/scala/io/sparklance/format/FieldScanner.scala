package io.sparklance.format

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.FieldVector

import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/file/index.md ("columns"). The reader of one
// top-level field, whatever the file version: 2.0 files (format.v20) give every field a
// column, 2.1 and later (format.v21) only leaves; legacy 0.1 files (format.legacy) have
// their own scanner. The caller maps field ids to column indices (from the manifest's
// DataFile.fields / column_indices).

/** Reads one top-level field of an open data file, batch after batch, front to back. */
trait FieldScanner {
  def field: LanceField

  /** Skips `n` rows. */
  def skip(n: Long): Unit

  /** The next `n` rows as one Arrow vector (fewer only at the end of the file). */
  def next(n: Int, allocator: BufferAllocator): FieldVector

  /**
   * The given rows (row numbers in the file, strictly ascending, none before the rows
   * already read) as one vector. Pages and chunks between them are skipped undecoded.
   */
  def take(rows: Array[Long], allocator: BufferAllocator): FieldVector
}

object FieldScanner {

  /**
   * Opens a scanner for `field` in `file`. `columnOf` gives the column index of a field
   * id, if this file stores it.
   */
  def open(file: LanceFileReader, field: LanceField, columnOf: Int => Option[Int]): FieldScanner = {
    val where = s"${file.path}, field '${field.name}'"
    // File format 2.0 gives every field a column of its own, struct and list parents included.
    if (file.version == FileVersion.V2_0) v20.V20FieldScanners.open(file, field, columnOf)
    else if (file.version >= FileVersion.V2_1) v21.V21FieldScanners.open(file, field, columnOf)
    else throw Errors.unsupported(s"reading file format ${file.version} data files", where)
  }
}
