package io.sparklance.format.v21

import io.sparklance.format.WindowedBuffer
import io.sparklance.format.layout.PageLayout
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/file/encoding.md ("Full zip page layout") and
// rust/lance-encoding/src/encodings/logical/primitive/fullzip.rs (its fixed-width
// scheduling, which computes byte ranges from row numbers).
//
// A full-zip page of fixed-width values without repetition (vectors, wide fixed-size
// binaries) holds one item per row, each a control word of the same width followed by the
// value, so row r starts at byte r * stride. Such a page is read in windows of rows, like
// mini-block chunks, rather than whole: a task reading a quarter of a 512 MB page reads a
// quarter of it, and skipping rows reads nothing.

object FullZipStridedPage {

  /** True when every item of a page with `layout` takes the same number of bytes and is a row. */
  def applies(layout: PageLayout.FullZip): Boolean =
    layout.bitsRep == 0 && layout.bitsPerValue.exists(b => b > 0 && b % 8 == 0) && !layout.layers.exists(_.isList)
}

/** The rows of a page for which [[FullZipStridedPage.applies]], window by window. */
final class FullZipStridedPage(data: WindowedBuffer, numRows: Long, layout: PageLayout.FullZip, where: String) extends PageUnits {
  if (layout.bitsDef < 0 || layout.bitsDef > 32) throw Errors.corrupt(where, s"control word of ${layout.bitsDef} bits")
  if (layout.numItems != numRows || layout.numVisibleItems != numRows)
    throw Errors.corrupt(where, s"a full-zip page of $numRows rows without repetition declares ${layout.numItems} items, ${layout.numVisibleItems} visible")

  private val stride: Long = FullZipPage.controlBytes(layout.bitsDef) + layout.bitsPerValue.get / 8
  if (numRows < 0 || numRows > Int.MaxValue || data.length != Math.multiplyExact(numRows, stride))
    throw Errors.corrupt(data.path, data.fileOffset, s"a full-zip page of $numRows rows of $stride bytes each has ${data.length} bytes ($where)")

  /** Rows per unit: a read-ahead window's worth, or a few rows when the file is read sparsely. */
  private val unitRows: Long = math.max(1L, (if (data.sparse) WindowedBuffer.FirstWindow else WindowedBuffer.Window) / stride)

  private var row = 0L

  override def next(): Option[LeafData] =
    if (row >= numRows) None
    else {
      val n = math.min(unitRows, numRows - row)
      val bytes = data.slice(row * stride, n * stride, s"$where, rows [$row, +$n)")
      row += n
      // The rows of one window are a full-zip page of their own.
      FullZipPage.decode(IndexedSeq(bytes), n, layout.copy(numItems = n, numVisibleItems = n), where).next()
    }

  override def skipWholeUnits(rows: Long): Long = {
    val n = math.max(0L, math.min(rows, numRows - row))
    row += n
    n
  }
}
