package io.sparklance.format.legacy

import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance-file/src/previous/{writer/mod.rs, reader.rs} (legacy
// list arrays). A list field's own
// page holds, per batch, n + 1 plain offsets (i32 for list, i64 for large_list; the page
// length is n + 1) that start at 0 in every batch and index the items of that batch, which
// live in the child field's page of the same batch. There is no validity: a null list was
// written as an empty one and reads back empty, as pylance reads it.

private[legacy] final class ListColumn(src: PageSource, pages: PageTable, fieldId: Int, large: Boolean, child: ColumnReader, where: String)
    extends ColumnReader {
  private val width = if (large) 8 else 4
  val builder = new ListBuilder(child.builder, where)

  def read(batch: Int, from: Int, count: Int): Unit = {
    // count + 1 offsets: the end of the last list is the start of the next.
    val page = ColumnReader.page(pages, src.path, fieldId, batch, from, count + 1, where)
    val what = s"$where, batch $batch list offsets"
    val bytes = src.read(page.position + from.toLong * width, (count.toLong + 1) * width, what)
    def offset(i: Int): Long = if (large) bytes.i64(i.toLong * 8) else bytes.i32(i.toLong * 4).toLong
    val first = offset(0)
    var prev = first
    if (first < 0) throw Errors.corrupt(src.path, bytes.fileOffset, s"$what: offset $first is negative")
    var i = 1
    while (i <= count) {
      val o = offset(i)
      if (o < prev) throw Errors.corrupt(src.path, bytes.fileOffset + i.toLong * width, s"$what: offset $o precedes the previous one ($prev)")
      builder.addList(o - prev)
      prev = o
      i += 1
    }
    // The child's page holds at most Int.MaxValue items, so a range beyond it is corrupt.
    if (prev > Int.MaxValue)
      throw Errors.corrupt(src.path, bytes.fileOffset + count.toLong * width, s"$what: offset $prev is beyond any page")
    child.read(batch, first.toInt, (prev - first).toInt)
  }
}
