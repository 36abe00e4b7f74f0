package io.sparklance.format.v20

import io.sparklance.format.v20.{ArrayEncoding => AE}

// Spec: lance-format/lance protos/encodings_v2_0.proto `PackedStruct` and
// rust/lance-encoding/src/previous/encodings/physical/packed_struct.rs. One buffer holds the
// rows one after the other, each row the concatenation of every child's fixed-width value.
// Children are flat values (optionally wrapped in `nullable{no_nulls}`) or fixed-size lists
// of them; a packed struct has no validity, neither its own nor its children's. Blob
// descriptors (position u64, size u64) use this encoding.
//
// The Rust reader takes the child widths from the schema; we take them from the child
// encodings and let the Arrow layer check them against the schema.

object PackedStructDecoder {

  def decode(p: AE.PackedStruct, n: Long, ctx: PageContext): PageValues = {
    val len = ctx.arrayLength(n, "packed struct rows")
    val widths = p.inner.map(byteWidth(_, ctx))
    val rowBytes = widths.sum
    val needed =
      try Math.multiplyExact(n, rowBytes)
      catch { case _: ArithmeticException => throw ctx.corrupt(s"$n rows of $rowBytes bytes overflow") }
    val src = ctx.buffer(p.buffer, "packed struct")
    if (needed > src.length)
      throw ctx.corrupt(s"$n packed rows of $rowBytes bytes need $needed bytes but the buffer holds ${src.length}")
    var fieldStart = 0L
    val children = p.inner.indices.map { c =>
      val w = widths(c).toInt
      val out = new Array[Byte](ctx.arrayLength(len.toLong * w, "packed struct field"))
      var row = 0
      while (row < len) {
        src.copyTo(row.toLong * rowBytes + fieldStart, out, row * w, w)
        row += 1
      }
      fieldStart += w
      shape(p.inner(c), out, n)
    }
    PageValues.Struct(children, n, Validity.AllValid)
  }

  /** Bytes per row of one child; only fixed-width shapes can be packed. */
  private def byteWidth(e: ArrayEncoding, ctx: PageContext): Long = e match {
    case AE.Flat(bits, _, None) if bits > 0 && bits % 8 == 0 && bits <= Int.MaxValue => bits / 8
    case AE.NoNulls(values) => byteWidth(values, ctx)
    case AE.FixedSizeList(dim, _, items) if dim >= 1 && dim <= Int.MaxValue =>
      val w = Math.multiplyExact(dim, byteWidth(items, ctx))
      if (w > Int.MaxValue) throw ctx.corrupt(s"a packed fixed-size list of $w bytes") else w
    case other => throw ctx.unsupported(s"${other.describe} inside a packed struct")
  }

  /** The child's bytes in the shape its encoding describes. */
  private def shape(e: ArrayEncoding, data: Array[Byte], n: Long): PageValues = e match {
    case AE.Flat(bits, _, _) => PageValues.Fixed(bits.toInt, data, n, Validity.AllValid)
    case AE.NoNulls(values) => shape(values, data, n)
    case AE.FixedSizeList(dim, _, items) =>
      PageValues.FixedSizeList(dim.toInt, shape(items, data, n * dim), n, Validity.AllValid)
    case other => throw new IllegalStateException(s"unchecked packed child ${other.describe}")
  }
}
