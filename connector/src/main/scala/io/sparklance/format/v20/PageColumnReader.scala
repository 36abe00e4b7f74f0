package io.sparklance.format.v20

import scala.collection.mutable.ArrayBuffer

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.FieldVector
import org.apache.arrow.vector.types.pojo.Field

import io.sparklance.format.{ColumnInfo, LanceFileReader}

// Spec: lance-format/lance rust/lance-encoding/src/previous/encodings/logical/primitive.rs.
// A column whose pages each decode on their own: primitives, fixed-size lists, strings,
// dictionaries, packed structs and blob descriptors. Pages are decoded only when a batch
// needs their rows, one at a time, and dropped once consumed; skipping whole pages reads
// nothing.

private[v20] final class PageColumnReader(
    file: LanceFileReader,
    column: ColumnInfo,
    val arrowField: Field,
    zeroBasedDictionary: Boolean,
    name: String) extends ColumnReader {

  private val what = s"field '$name'"

  private val rows = ColumnReader.pageRows(file, column, what)
  private var left = ColumnReader.sum(rows, file, column)
  private var page = 0
  private var inPage = 0L
  private var decoded: PageValues = null

  override def remaining: Long = left

  private def advancePastEmpty(): Unit =
    while (page < rows.length && inPage == rows(page)) { page += 1; inPage = 0; decoded = null }

  override def skip(n: Long): Unit = {
    if (n > left) throw ColumnReader.tooFew(file, what, n, left)
    var k = n
    advancePastEmpty()
    while (k > 0) {
      val step = math.min(k, rows(page) - inPage)
      inPage += step
      k -= step
      left -= step
      advancePastEmpty()
    }
  }

  override def read(runs: Seq[Run], vector: FieldVector, allocator: BufferAllocator): Unit = {
    ColumnReader.span(runs, left, file, what)
    val slices = ArrayBuffer.empty[PageSlice]
    runs.foreach { run =>
      skip(run.skip)
      var k = run.count
      advancePastEmpty()
      while (k > 0) {
        if (decoded == null) decoded = decodePage(page)
        val step = math.min(k.toLong, rows(page) - inPage).toInt
        slices += PageSlice(decoded, inPage, step)
        inPage += step
        k -= step
        left -= step
        advancePastEmpty()
      }
    }
    PageSliceAssembler.fill(vector, slices.toSeq, allocator, file.path, what)
  }

  private def decodePage(i: Int): PageValues = {
    val where = ColumnReader.label(name, column, i)
    val encoding = ColumnReader.encoding(file, name, column, i)
    val buffers = file.readBuffers(column.pages(i), where)
    val values = PageDecoder.decode(encoding, rows(i), new PageContext(file.path, where, buffers, zeroBasedDictionary))
    if (values.length != rows(i))
      throw new IllegalStateException(s"$where decoded ${values.length} values for ${rows(i)} rows")
    values
  }
}
