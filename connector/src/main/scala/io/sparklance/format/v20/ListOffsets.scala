package io.sparklance.format.v20

// Spec: lance-format/lance protos/encodings_v2_0.proto `List` and
// rust/lance-encoding/src/previous/encodings/logical/list.rs (`ListOffsetsEncoder`,
// `decode_offsets`).
//
// A list column's page stores, per list, the page-relative END offset of its items (no
// leading 0: list 0 starts at item 0 of the page). A null list has `null_offset_adjustment`
// (the writer uses num_items + 1) added, so list i is null iff `off[i] >= adjustment` and
// ends at `off[i] % adjustment`. `num_items` is how many items of the item column(s) the
// page covers, so whole pages can be skipped without reading them.

/** The decoded offsets of one list page: `ends(i)` is where list i's items end in the page. */
final class ListOffsets(val ends: Array[Long], val validity: Validity, val numItems: Long) {
  def numLists: Int = ends.length
  def start(i: Int): Long = if (i == 0) 0L else ends(i - 1)
}

object ListOffsets {

  def decode(l: ArrayEncoding.ListOffsets, numLists: Long, ctx: PageContext): ListOffsets = {
    val len = ctx.arrayLength(numLists, "list offsets")
    val adj = l.nullOffsetAdjustment
    val numItems = l.numItems
    if (numItems < 0) throw ctx.corrupt(s"a list page covers ${java.lang.Long.toUnsignedString(numItems)} items")
    if (len > 0 && adj <= 0)
      throw ctx.corrupt(s"list null_offset_adjustment is ${java.lang.Long.toUnsignedString(adj)}; it must be positive")
    val (raw, _) = PageDecoder.unsignedLongs(l.offsets, numLists, ctx, "list offsets")
    val ends = new Array[Long](len)
    var bits: Array[Byte] = null
    var prev = 0L
    var i = 0
    while (i < len) {
      val v = raw(i)
      if (v < 0) throw ctx.corrupt(s"list offset $i is ${java.lang.Long.toUnsignedString(v)}")
      if (v >= adj) {
        if (bits == null) {
          bits = new Array[Byte]((len + 7) / 8)
          java.util.Arrays.fill(bits, 0xff.toByte)
        }
        bits(i >>> 3) = (bits(i >>> 3) & ~(1 << (i & 7))).toByte
      }
      val end = v % adj
      if (end < prev || end > numItems)
        throw ctx.corrupt(s"list $i ends at item $end, before the previous end $prev or beyond the page's $numItems items")
      ends(i) = end
      prev = end
      i += 1
    }
    if (len > 0 && prev != numItems)
      throw ctx.corrupt(s"the page's lists end at item $prev but the page says it covers $numItems items")
    new ListOffsets(ends, if (bits == null) Validity.AllValid else Validity.Bits(bits), numItems)
  }
}
