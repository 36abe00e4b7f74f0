package io.sparklance.format.v20

import io.sparklance.format.encoding.{CompressionScheme, GeneralCompression}
import io.sparklance.util.Bytes

// Spec: lance-format/lance protos/encodings_v2_0.proto `Flat`, `Compression` and
// rust/lance-encoding/src/previous/encodings/physical/{value,bitmap}.rs. A flat buffer holds
// fixed-width values back to back: LSB-first bits when 1 bit wide (booleans, validity),
// otherwise whole little-endian bytes (up to 256-bit decimals and fixed-size binaries). With
// `compression` the whole buffer is one zstd or lz4 frame (framing as in 2.1 `General`).

object FlatDecoder {

  def decode(f: ArrayEncoding.Flat, n: Long, ctx: PageContext): PageValues = {
    val bits = f.bitsPerValue
    val needed: Long =
      if (bits == 1) (n + 7) / 8
      else if (bits > 0 && bits % 8 == 0) {
        try Math.multiplyExact(n, bits / 8)
        catch { case _: ArithmeticException => throw ctx.corrupt(s"$n values of $bits bits overflow") }
      } else throw ctx.unsupported(s"flat values of $bits bits (only 1 or a multiple of 8)")
    val raw = ctx.buffer(f.buffer, "flat")
    val src = f.compression.map(_.scheme) match {
      case None | Some("none") | Some("") => raw
      case Some(scheme) => decompress(scheme, raw, needed, ctx)
    }
    if (needed > src.length)
      throw ctx.corrupt(s"$n values of $bits bits need $needed bytes but the buffer holds ${src.length}")
    val data = new Array[Byte](ctx.arrayLength(needed, "flat buffer"))
    src.copyTo(0, data, 0, data.length)
    PageValues.Fixed(bits.toInt, data, n, Validity.AllValid)
  }

  private def decompress(scheme: String, src: Bytes, needed: Long, ctx: PageContext): Bytes = {
    val s = scheme match {
      case "zstd" => CompressionScheme.Zstd
      case "lz4" => CompressionScheme.Lz4
      case other => throw ctx.unsupported(s"flat buffer compression '$other'")
    }
    // The buffer decompresses to exactly the page's values, so that is also the limit.
    GeneralCompression.decompress(s, src, needed)
  }
}
