package io.sparklance.format.legacy

import io.sparklance.util.{Bytes, Errors}

// Spec: lance-format/lance rust/lance-io/src/encodings/binary.rs (the legacy var-binary
// encoding; no prose spec describes its bytes). The writer emits a batch's value bytes first, then
// n + 1 little-endian i64 *absolute file positions* (value i is bytes [pos(i), pos(i + 1)));
// the page table points at the positions, not at the bytes, and its length is n. There is no
// validity: a null was written as a zero-length value, and pylance reads every zero-length
// value of a nullable field (and of any dictionary) as null, so an empty string written to a
// nullable column also comes back null.

/** Strings and binaries (large or not). */
private[legacy] final class BinaryColumn(src: PageSource, pages: PageTable, fieldId: Int, emptyIsNull: Boolean, where: String)
    extends ColumnReader {
  val builder = new VarBuilder(emptyIsNull, where)

  def read(batch: Int, from: Int, count: Int): Unit = {
    val page = ColumnReader.page(pages, src.path, fieldId, batch, from, count, where)
    if (count > 0) {
      val values = BinaryPages.read(src, page.position, from, count, s"$where, batch $batch var-binary page")
      var i = 0
      while (i < count) {
        builder.append(values.data, values.start(i), values.length(i))
        i += 1
      }
    }
  }
}

/** `count` values: `data` holds their bytes; value i starts at `start(i)` within `data`. */
private[legacy] final class BinaryValues(val data: Bytes, positions: Array[Long]) {
  def count: Int = positions.length - 1
  def start(i: Int): Long = positions(i) - positions(0)
  def length(i: Int): Int = (positions(i + 1) - positions(i)).toInt
}

private[legacy] object BinaryPages {

  /**
   * Reads values `[from, from + count)` of the var-binary array whose positions start at
   * byte `position`: first their `count + 1` positions, then the bytes they span. The
   * positions must not decrease and must lie inside the file.
   */
  def read(src: PageSource, position: Long, from: Int, count: Int, what: => String): BinaryValues = {
    val posBytes = src.read(position + from.toLong * 8, (count.toLong + 1) * 8, s"$what (positions)")
    val positions = new Array[Long](count + 1)
    var i = 0
    while (i <= count) {
      val p = posBytes.i64(i.toLong * 8)
      if (p < 0 || (i > 0 && p < positions(i - 1)))
        throw Errors.corrupt(src.path, posBytes.fileOffset + i.toLong * 8,
          s"$what: value position $p ${if (p < 0) "is negative" else s"precedes the previous one (${positions(i - 1)})"}")
      positions(i) = p
      i += 1
    }
    val data = src.read(positions(0), positions(count) - positions(0), s"$what (value bytes)")
    new BinaryValues(data, positions)
  }
}
