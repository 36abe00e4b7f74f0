package io.sparklance.format.v20

import java.nio.{ByteBuffer, ByteOrder}

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.FieldVector
import org.apache.arrow.vector.complex.{LargeListVector, ListVector}
import org.apache.arrow.vector.types.pojo.Field

import io.sparklance.format.{ColumnInfo, LanceFileReader}
import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance-encoding/src/previous/encodings/logical/list.rs
// (`ListFieldScheduler`, `ListRequestsIter`). A 2.0 list owns an offsets column; its items
// are the next field's column(s), paged independently and counted in items. Each offsets
// page says how many items it covers (`num_items`), so skipping whole pages of lists skips
// their items without reading either. Pages of 0 lists are ignored, as the Rust reader does.

private[v20] final class ListColumnReader(
    file: LanceFileReader,
    column: ColumnInfo,
    items: ColumnReader,
    large: Boolean,
    val arrowField: Field,
    name: String) extends ColumnReader {

  private val what = s"field '$name'"

  private val rows = ColumnReader.pageRows(file, column, what)
  private var left = ColumnReader.sum(rows, file, column)
  private var page = 0
  private var inPage = 0L
  private var decoded: ListOffsets = null

  override def remaining: Long = left

  /** Items the pages of lists cover in all: the rows the item column must hold. */
  def itemsCovered: Long = rows.indices.filter(rows(_) > 0).foldLeft(0L) { (sum, i) =>
    val k = offsetsEncoding(i).numItems
    if (k < 0 || sum + k < 0) throw Errors.corrupt(file.path, s"column '${ColumnReader.label(name, column, i)}' covers ${java.lang.Long.toUnsignedString(k)} items")
    sum + k
  }

  private def advancePastEmpty(): Unit =
    while (page < rows.length && inPage == rows(page)) { page += 1; inPage = 0; decoded = null }

  private def offsetsEncoding(i: Int): ArrayEncoding.ListOffsets = ColumnReader.encoding(file, name, column, i) match {
    case l: ArrayEncoding.ListOffsets => l
    case other => throw Errors.corrupt(file.path, s"column '${ColumnReader.label(name, column, i)}': a list column page has encoding ${other.describe}")
  }

  private def decodePage(i: Int): ListOffsets = {
    val where = ColumnReader.label(name, column, i)
    val enc = offsetsEncoding(i)
    val buffers = file.readBuffers(column.pages(i), where)
    ListOffsets.decode(enc, rows(i), new PageContext(file.path, where, buffers, zeroBasedDictionary = false))
  }

  override def skip(n: Long): Unit = items.skip(skipLists(n))

  /** Passes over `n` lists and returns how many items they hold (the caller skips those). */
  private def skipLists(n: Long): Long = {
    if (n > left) throw ColumnReader.tooFew(file, what, n, left)
    var k = n
    var skippedItems = 0L
    advancePastEmpty()
    while (k > 0) {
      val inThisPage = rows(page) - inPage
      if (decoded == null && inPage == 0 && k >= inThisPage) {
        val numItems = offsetsEncoding(page).numItems
        if (numItems < 0) throw Errors.corrupt(file.path, s"column '${ColumnReader.label(name, column, page)}' covers a negative number of items")
        skippedItems += numItems
        inPage = rows(page)
        k -= inThisPage
        left -= inThisPage
      } else {
        if (decoded == null) decoded = decodePage(page)
        val step = math.min(k, inThisPage).toInt
        val from = inPage.toInt
        skippedItems += decoded.ends(from + step - 1) - decoded.start(from)
        inPage += step
        k -= step
        left -= step
      }
      advancePastEmpty()
    }
    skippedItems
  }

  override def read(runs: Seq[Run], vector: FieldVector, allocator: BufferAllocator): Unit = {
    ColumnReader.span(runs, left, file, what)
    val n = runs.map(_.count).sum
    val ow = if (large) 8 else 4
    val offsets = ByteBuffer.allocate((n + 1) * ow).order(ByteOrder.LITTLE_ENDIAN)
    val validity = new Array[Byte]((n + 7) / 8)
    val itemRuns = scala.collection.mutable.ArrayBuffer.empty[Run]
    var itemTotal = 0L
    def putOffset(): Unit =
      if (large) offsets.putLong(itemTotal)
      else {
        if (itemTotal > Int.MaxValue)
          throw Errors.unsupported(s"a batch of lists with $itemTotal items (more than a list vector holds)", s"${file.path}, $what; lower the batch size")
        offsets.putInt(itemTotal.toInt)
      }
    putOffset()
    var row = 0
    runs.foreach { run =>
      val itemsToSkip = skipLists(run.skip)
      val itemsBefore = itemTotal
      val end = row + run.count
      advancePastEmpty()
      while (row < end) {
        if (decoded == null) decoded = decodePage(page)
        val step = math.min((end - row).toLong, rows(page) - inPage).toInt
        val from = inPage.toInt
        var i = 0
        while (i < step) {
          if (decoded.validity.isValid((from + i).toLong))
            validity((row + i) >>> 3) = (validity((row + i) >>> 3) | (1 << ((row + i) & 7))).toByte
          itemTotal += decoded.ends(from + i) - decoded.start(from + i)
          putOffset()
          i += 1
        }
        inPage += step
        row += step
        left -= step
        advancePastEmpty()
      }
      if (itemTotal > Int.MaxValue - 8)
        throw Errors.unsupported(s"a batch of lists with $itemTotal items (more than a vector holds)", s"${file.path}, $what; lower the batch size")
      itemRuns += Run(itemsToSkip, (itemTotal - itemsBefore).toInt)
    }
    PageSliceAssembler.loadBuffers(vector, n, validity, Seq(offsets.array()), allocator)
    val data = vector match {
      case l: ListVector => l.getDataVector
      case l: LargeListVector => l.getDataVector
      case other => throw new IllegalStateException(s"a list column fills a ${other.getClass.getSimpleName}")
    }
    items.read(itemRuns.toSeq, data, allocator)
  }
}
