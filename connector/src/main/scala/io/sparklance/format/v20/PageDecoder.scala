package io.sparklance.format.v20

import io.sparklance.format.v20.{ArrayEncoding => AE}

// Spec: lance-format/lance protos/encodings_v2_0.proto `ArrayEncoding` and
// rust/lance-encoding/src/previous/encodings/physical.rs (which decoder each message gets).
// Decodes one array encoding of a 2.0 page, front to back, into PageValues. Every encoding
// decodes exactly the number of values its parent asks for; a buffer shorter than that
// is corrupt.

object PageDecoder {

  /** Decodes `n` values described by `encoding` from the page in `ctx`. */
  def decode(encoding: ArrayEncoding, n: Long, ctx: PageContext): PageValues = {
    if (n < 0) throw ctx.corrupt(s"${encoding.describe} asked for $n values")
    encoding match {
      case f: AE.Flat => FlatDecoder.decode(f, n, ctx)
      case AE.Constant(value) => PageValues.Constant(value, n, Validity.AllValid)
      case AE.NoNulls(values) => decode(values, n, ctx)
      case s: AE.SomeNulls => NullableDecoder.someNulls(s, n, ctx)
      case AE.AllNulls => PageValues.Nulls(n)
      case AE.FixedSizeList(dimension, _, items) =>
        // has_validity is a 2.1 flag; 2.0 writers put list validity in the Nullable around it.
        if (dimension < 1 || dimension > Int.MaxValue)
          throw ctx.corrupt(s"a fixed-size list has dimension $dimension")
        val itemCount =
          try Math.multiplyExact(n, dimension)
          catch { case _: ArithmeticException => throw ctx.corrupt(s"$n lists of $dimension items overflow") }
        PageValues.FixedSizeList(dimension.toInt, decode(items, itemCount, ctx), n, Validity.AllValid)
      case b: AE.Binary => BinaryDecoder.binary(b, n, ctx)
      case f: AE.Fsst => BinaryDecoder.fsst(f, n, ctx)
      case f: AE.FixedSizeBinary => BinaryDecoder.fixedSizeBinary(f, n, ctx)
      case d: AE.Dictionary => DictionaryDecoder.decode(d, n, ctx)
      case p: AE.PackedStruct => PackedStructDecoder.decode(p, n, ctx)
      case b: AE.Bitpacked => BitpackedDecoder.bitpacked(b, n, ctx)
      case b: AE.BitpackedForNonNeg => BitpackedDecoder.forNonNegative(b, n, ctx)
      case _: AE.ListOffsets =>
        // Pre-release 2.0 writers stored binary columns as list<u8> (offsets column + bytes
        // column); stable writers use `binary`. Anywhere else list offsets mean damage, but
        // the message has to cover both.
        throw ctx.unsupported("list offsets where values were expected (a binary column written as list<u8> by a pre-release 2.0 writer)")
      case AE.SimpleStruct =>
        throw ctx.corrupt("a struct header page where values were expected")
      case AE.Unsupported(name) =>
        throw ctx.unsupported(s"$name (a 2.1 mini-block encoding, not valid in a 2.0 page)")
    }
  }

  /**
   * Decodes `n` unsigned integers (offsets, indices) as Longs. The values must be 8, 16,
   * 32 or 64 bits wide; a 64-bit value above 2^63 reads as negative and callers reject it.
   */
  def unsignedLongs(encoding: ArrayEncoding, n: Long, ctx: PageContext, what: String): (Array[Long], PageValues) = {
    val len = ctx.arrayLength(n, what)
    decode(encoding, n, ctx) match {
      case f @ PageValues.Fixed(bits, data, _, _) if bits == 8 || bits == 16 || bits == 32 || bits == 64 =>
        val width = bits / 8
        val out = new Array[Long](len)
        val buf = java.nio.ByteBuffer.wrap(data).order(java.nio.ByteOrder.LITTLE_ENDIAN)
        var i = 0
        while (i < len) {
          out(i) = width match {
            case 1 => data(i) & 0xffL
            case 2 => buf.getShort(i * 2) & 0xffffL
            case 4 => buf.getInt(i * 4) & 0xffffffffL
            case _ => buf.getLong(i * 8)
          }
          i += 1
        }
        (out, f)
      case other => throw ctx.corrupt(s"$what decoded to ${describe(other)}, not integers")
    }
  }

  def describe(v: PageValues): String = v match {
    case f: PageValues.Fixed => s"${f.bits}-bit values"
    case c: PageValues.Constant => s"a constant of ${c.value.length} bytes"
    case _: PageValues.Variable => "variable-width values"
    case _: PageValues.Dictionary => "dictionary values"
    case l: PageValues.FixedSizeList => s"fixed-size lists of ${l.dimension}"
    case s: PageValues.Struct => s"a struct of ${s.children.length} fields"
    case _: PageValues.Nulls => "all nulls"
  }
}
