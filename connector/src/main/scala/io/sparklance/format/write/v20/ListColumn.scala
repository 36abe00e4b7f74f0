package io.sparklance.format.write.v20

import org.apache.arrow.vector.ValueVector
import org.apache.arrow.vector.complex.{BaseRepeatedValueVector, LargeListVector}

import io.sparklance.format.proto.ArrayEncodingCodec
import io.sparklance.format.v20.{ArrayEncoding => AE}
import io.sparklance.format.write.{BitArrayBuilder, EncodedPage, LongArrayBuilder}
import io.sparklance.util.Errors

// Spec: rust/lance-encoding/src/previous/encodings/logical/list.rs (ListOffsetsEncoder,
// ListFieldEncoder) and lance-format-facts §14.2. A list (or large list) column holds, per list,
// the page-relative end of its items as u64, `list{offsets: nullable{no_nulls{flat{64}}},
// null_offset_adjustment, num_items}`, with null_offset_adjustment = num_items + 1 added to the
// end of a null list. The items follow in the next column(s), whose pages count items.
//
// Lists are buffered like values (offsets plus validity count toward the page budget). When an
// offsets page is written, every items column below is flushed too, so that an items page never
// straddles two offsets pages (Rust's scheduler cannot read that; for a single items column
// this is exactly what ListFieldEncoder does).

private[v20] final class ListColumn(column: Int, path: String, large: Boolean, pageBytes: Long, items: ColumnNode) extends ColumnNode {
  private val ends = new LongArrayBuilder()
  private val nullLists = new BitArrayBuilder
  private val pending = Vector.newBuilder[EncodedPage]
  private var buffered = 0L
  private var touched = false

  def numColumns: Int = 1 + items.numColumns

  private def offset(v: ValueVector, i: Int): Long =
    if (large) v.asInstanceOf[LargeListVector].getOffsetBuffer.getLong(i.toLong * 8)
    else v.asInstanceOf[BaseRepeatedValueVector].getOffsetBuffer.getInt(i.toLong * 4).toLong

  private def itemVector(v: ValueVector): ValueVector =
    if (large) v.asInstanceOf[LargeListVector].getDataVector else v.asInstanceOf[BaseRepeatedValueVector].getDataVector

  /** Calls `f(start, length)` for the item ranges of lists `[from, from + count)`, adjacent ranges joined. */
  private def itemRuns(v: ValueVector, from: Int, count: Int)(f: (Int, Int) => Unit): Unit = {
    var runStart = offset(v, from)
    var runEnd = runStart
    var i = from
    while (i < from + count) {
      val s = offset(v, i)
      val e = offset(v, i + 1)
      if (e < s) throw Errors.invalidArgument(s"list field '$path' has offsets that decrease at position $i ($s, then $e); the Arrow vector is malformed")
      if (s != runEnd) {
        if (runEnd > runStart) f(runStart.toInt, (runEnd - runStart).toInt)
        runStart = s
      }
      runEnd = e
      i += 1
    }
    if (runEnd > runStart) f(runStart.toInt, (runEnd - runStart).toInt)
  }

  def check(v: ValueVector, from: Int, count: Int): Unit = {
    val inner = itemVector(v)
    itemRuns(v, from, count)((s, n) => items.check(inner, s, n))
  }

  def append(v: ValueVector, from: Int, count: Int): Unit = {
    var end = if (ends.length == 0) 0L else ends(ends.length - 1)
    var i = from
    while (i < from + count) {
      end += offset(v, i + 1) - offset(v, i)
      ends.append(end)
      nullLists.append(v.isNull(i))
      i += 1
    }
    touched = true
    buffered += (count + 1L) * (if (large) 8 else 4) + (if (v.getNullCount > 0) (count + 7L) / 8 else 0)
    // Items as Rust slices them: the lists' item ranges, an empty batch when there are none.
    val inner = itemVector(v)
    var any = false
    itemRuns(v, from, count) { (s, n) => any = true; items.append(inner, s, n) }
    if (!any) items.append(inner, 0, 0)
    if (buffered > pageBytes) {
      pending += page()
      pending ++= items.flush()
    }
  }

  private def page(): EncodedPage = {
    val n = ends.length
    val numItems = if (n == 0) 0L else ends(n - 1)
    val adjustment = numItems + 1
    val flags = nullLists.toArray
    val raw = PageBuffers.longs(n, i => if ((flags(i >>> 3) & (1 << (i & 7))) != 0) ends(i) + adjustment else ends(i))
    val out = new PageBuffers
    val encoding = AE.ListOffsets(AE.NoNulls(AE.Flat(64, out.add(raw), None)), adjustment, numItems)
    val p = EncodedPage(column, out.result, n, 0L, ArrayEncodingCodec.toAny(encoding))
    ends.clear()
    nullLists.clear()
    buffered = 0
    touched = false
    p
  }

  def ready(): Seq[EncodedPage] = {
    val out = pending.result() ++ items.ready()
    pending.clear()
    out
  }

  def flush(): Seq[EncodedPage] = {
    if (touched) pending += page()
    val out = pending.result() ++ items.flush()
    pending.clear()
    out
  }

  def finish(): Seq[EncodedPage] = {
    if (touched) pending += page()
    val out = pending.result() ++ items.finish()
    pending.clear()
    out
  }
}
