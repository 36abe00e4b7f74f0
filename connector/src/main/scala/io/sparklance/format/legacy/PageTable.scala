package io.sparklance.format.legacy

import io.sparklance.util.{Bytes, Errors}

// Spec: lance-format/lance protos/file.proto `Metadata.page_table_position`;
// rust/lance-file/src/previous/page_table.rs. The table is a dense array of
// (i64 position, i64 length) pairs, field-major: for each field id from the smallest to the
// largest in the file's schema, one pair per batch. Struct fields and ids the file does not
// store hold (0, 0). `length` counts items (rows of the page, or n + 1 list offsets), not
// bytes: byte ranges are only known once the field's type is, so they are checked when read.

/** One page: `length` items whose encoding starts at byte `position`. */
final case class PageRef(position: Long, length: Int)

/** The pages of field ids `[minFieldId, maxFieldId]` across `numBatches` batches. */
final class PageTable private (
    path: String,
    what: String,
    val minFieldId: Int,
    val maxFieldId: Int,
    val numBatches: Int,
    positions: Array[Long],
    lengths: Array[Int]) {

  def covers(fieldId: Int): Boolean = fieldId >= minFieldId && fieldId <= maxFieldId

  /** The page of `fieldId` in `batch`. */
  def page(fieldId: Int, batch: Int): PageRef = {
    if (!covers(fieldId))
      throw Errors.corrupt(path, s"the $what covers field ids $minFieldId..$maxFieldId, not field id $fieldId")
    if (batch < 0 || batch >= numBatches)
      throw Errors.corrupt(path, s"the $what has $numBatches batches, not batch $batch")
    val i = (fieldId - minFieldId) * numBatches + batch
    PageRef(positions(i), lengths(i))
  }
}

object PageTable {
  private val EntryBytes = 16L

  /** The table's size in bytes, or None when it would exceed any file (and the id range is bogus). */
  def byteSize(minFieldId: Int, maxFieldId: Int, numBatches: Int): Option[Long] =
    if (maxFieldId < minFieldId || numBatches < 0) None
    else
      try Some(Math.multiplyExact(Math.multiplyExact(maxFieldId.toLong - minFieldId + 1, numBatches.toLong), EntryBytes))
      catch { case _: ArithmeticException => None }

  /**
   * Parses a table already cut to [[byteSize]] bytes. Every page position must lie inside
   * the file and every length must be a non-negative item count that fits an Arrow vector.
   */
  def parse(bytes: Bytes, minFieldId: Int, maxFieldId: Int, numBatches: Int, fileSize: Long, what: String): PageTable = {
    val expected = byteSize(minFieldId, maxFieldId, numBatches)
    if (!expected.contains(bytes.length.toLong))
      throw Errors.corrupt(bytes.path, bytes.fileOffset,
        s"the $what for field ids $minFieldId..$maxFieldId and $numBatches batches cannot be ${bytes.length} bytes")
    val n = bytes.length / EntryBytes.toInt
    val positions = new Array[Long](n)
    val lengths = new Array[Int](n)
    var i = 0
    while (i < n) {
      val pos = bytes.i64(i * EntryBytes)
      val len = bytes.i64(i * EntryBytes + 8)
      if (pos < 0 || pos > fileSize)
        throw Errors.corrupt(bytes.path, bytes.fileOffset + i * EntryBytes,
          s"$what entry $i (field id ${minFieldId + i / math.max(numBatches, 1)}) has page position $pos outside the $fileSize-byte file")
      if (len < 0 || len > Int.MaxValue)
        throw Errors.corrupt(bytes.path, bytes.fileOffset + i * EntryBytes + 8,
          s"$what entry $i (field id ${minFieldId + i / math.max(numBatches, 1)}) has page length $len")
      positions(i) = pos
      lengths(i) = len.toInt
      i += 1
    }
    new PageTable(bytes.path, what, minFieldId, maxFieldId, numBatches, positions, lengths)
  }
}
