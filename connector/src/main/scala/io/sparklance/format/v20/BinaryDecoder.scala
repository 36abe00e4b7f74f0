package io.sparklance.format.v20

import io.sparklance.format.encoding.{Fsst, VariableData}

// Spec: lance-format/lance protos/encodings_v2_0.proto `Binary`, `Fsst`, `FixedSizeBinary` and
// rust/lance-encoding/src/previous/encodings/physical/{binary,fsst,fixed_size_binary}.rs.
//
// Binary indices are page-relative cumulative END offsets into the bytes buffer, one per value
// and no leading 0. A null value's index has `null_adjustment` (the writer uses total bytes + 1)
// added, so `v >= null_adjustment` means null with end `v - null_adjustment`. Lengths come from
// the Arrow offsets, so a null normally spans 0 bytes. The bytes are a flat of 8-bit values,
// possibly zstd/lz4-compressed as a whole.

object BinaryDecoder {

  def binary(b: ArrayEncoding.Binary, n: Long, ctx: PageContext): PageValues = {
    val len = ctx.arrayLength(n, "binary values")
    val (raw, _) = PageDecoder.unsignedLongs(b.indices, n, ctx, "binary indices")
    val adj = b.nullAdjustment
    if (len > 0 && adj <= 0)
      throw ctx.corrupt(s"binary null_adjustment is ${java.lang.Long.toUnsignedString(adj)}; it must be positive")
    val offsets = new Array[Int](len + 1)
    var bits: Array[Byte] = null
    var prev = 0L
    var i = 0
    while (i < len) {
      val v = raw(i)
      if (v < 0) throw ctx.corrupt(s"binary index $i is ${java.lang.Long.toUnsignedString(v)}")
      val end =
        if (v >= adj) {
          if (bits == null) {
            bits = new Array[Byte]((len + 7) / 8)
            java.util.Arrays.fill(bits, 0xff.toByte)
          }
          bits(i >>> 3) = (bits(i >>> 3) & ~(1 << (i & 7))).toByte
          v - adj
        } else v
      if (end < prev || end > Int.MaxValue - 8)
        throw ctx.corrupt(s"binary value $i ends at byte $end, before the previous end $prev or beyond any page")
      offsets(i + 1) = end.toInt
      prev = end
      i += 1
    }
    val bytes = PageDecoder.decode(b.bytes, prev, ctx) match {
      case PageValues.Fixed(8, data, _, _) => data
      case other => throw ctx.corrupt(s"binary bytes decoded to ${PageDecoder.describe(other)}, not bytes")
    }
    PageValues.Variable(new VariableData(offsets, bytes), if (bits == null) Validity.AllValid else Validity.Bits(bits))
  }

  def fsst(f: ArrayEncoding.Fsst, n: Long, ctx: PageContext): PageValues = {
    val table = Fsst.parseSymbolTable(f.symbolTable, s"${ctx.path}, column '${ctx.column}'")
    PageDecoder.decode(f.binary, n, ctx) match {
      case PageValues.Variable(data, validity) => PageValues.Variable(Fsst.decode(table, data), validity)
      case other => throw ctx.corrupt(s"FSST values decoded to ${PageDecoder.describe(other)}, not strings")
    }
  }

  def fixedSizeBinary(f: ArrayEncoding.FixedSizeBinary, n: Long, ctx: PageContext): PageValues = {
    val len = ctx.arrayLength(n, "fixed-size binary values")
    val width = f.byteWidth
    if (width < 1 || width > Int.MaxValue / 8) throw ctx.corrupt(s"fixed-size binary width is $width bytes")
    val (data, validity) = PageDecoder.decode(f.bytes, n, ctx) match {
      case PageValues.Fixed(bits, data, _, v) if bits == width * 8 => (data, v)
      case other => throw ctx.corrupt(s"fixed-size binary of width $width decoded to ${PageDecoder.describe(other)}")
    }
    val offsets = new Array[Int](len + 1)
    var i = 1
    while (i <= len) { offsets(i) = offsets(i - 1) + width.toInt; i += 1 }
    PageValues.Variable(new VariableData(offsets, data), validity)
  }
}
