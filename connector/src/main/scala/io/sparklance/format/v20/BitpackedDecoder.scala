package io.sparklance.format.v20

import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.format.encoding.FastLanesBitpacking
import io.sparklance.util.Bytes

// Spec: lance-format/lance protos/encodings_v2_0.proto `Bitpacked`, `BitpackedForNonNeg` and
// rust/lance-encoding/src/previous/encodings/physical/bitpack.rs. Neither is written by a
// stable 2.0 writer (the previous encoder gates them on version >= 2.1); files from the
// pre-release "2.1" writers that used 2.0 pages carry them.
//  * bitpacked: every value `compressed_bits` wide, back to back, LSB-first; `signed` values
//    are sign-extended from their top stored bit.
//  * bitpacked_for_non_neg: FastLanes blocks of 1024 values, each 128 * compressed_bits bytes,
//    the last block zero-padded.

object BitpackedDecoder {

  private def checkWidths(compressed: Long, uncompressed: Long, minCompressed: Int, ctx: PageContext, what: String): Unit = {
    if (uncompressed != 8 && uncompressed != 16 && uncompressed != 32 && uncompressed != 64)
      throw ctx.corrupt(s"$what values unpack to $uncompressed bits; expected 8, 16, 32 or 64")
    if (compressed < minCompressed || compressed > uncompressed)
      throw ctx.corrupt(s"$what values are packed to $compressed bits, outside $minCompressed..$uncompressed")
  }

  def bitpacked(b: ArrayEncoding.Bitpacked, n: Long, ctx: PageContext): PageValues = {
    checkWidths(b.compressedBits, b.uncompressedBits, 1, ctx, "bitpacked")
    val len = ctx.arrayLength(n, "bitpacked values")
    val c = b.compressedBits.toInt
    val outWidth = b.uncompressedBits.toInt / 8
    val src = ctx.buffer(b.buffer, "bitpacked")
    val needed = (n * c + 7) / 8
    if (needed > src.length)
      throw ctx.corrupt(s"$n values of $c bits need $needed bytes but the buffer holds ${src.length}")
    val in = new Array[Byte](needed.toInt)
    src.copyTo(0, in, 0, in.length)
    val out = ByteBuffer.allocate(ctx.arrayLength(len.toLong * outWidth, "bitpacked output")).order(ByteOrder.LITTLE_ENDIAN)
    val mask = if (c == 64) -1L else (1L << c) - 1
    var i = 0
    var bit = 0L
    while (i < len) {
      var v = 0L
      var got = 0
      while (got < c) {
        val p = bit + got
        val byte = (in((p >>> 3).toInt) & 0xff) >>> (p & 7).toInt
        v |= byte.toLong << got
        got += 8 - (p & 7).toInt
      }
      v &= mask
      if (b.signed && c < 64 && ((v >>> (c - 1)) & 1) == 1) v |= ~mask
      outWidth match {
        case 1 => out.put(v.toByte)
        case 2 => out.putShort(v.toShort)
        case 4 => out.putInt(v.toInt)
        case _ => out.putLong(v)
      }
      bit += c
      i += 1
    }
    PageValues.Fixed(outWidth * 8, out.array(), n, Validity.AllValid)
  }

  def forNonNegative(b: ArrayEncoding.BitpackedForNonNeg, n: Long, ctx: PageContext): PageValues = {
    checkWidths(b.compressedBits, b.uncompressedBits, 1, ctx, "bitpacked_for_non_neg")
    val len = ctx.arrayLength(n, "bitpacked values")
    val w = b.compressedBits.toInt
    val t = b.uncompressedBits.toInt
    val blocks = (len + FastLanesBitpacking.BlockValues - 1) / FastLanesBitpacking.BlockValues
    val blockBytes = FastLanesBitpacking.packedBytes(w).toLong
    val src: Bytes = ctx.buffer(b.buffer, "bitpacked_for_non_neg")
    if (blocks * blockBytes > src.length)
      throw ctx.corrupt(s"$blocks blocks of $blockBytes bytes need ${blocks * blockBytes} bytes but the buffer holds ${src.length}")
    // Whole blocks unpack to little-endian values; the last block's padding is cut off.
    val out = new Array[Byte](ctx.arrayLength(blocks.toLong * FastLanesBitpacking.BlockValues * (t / 8), "bitpacked output"))
    var k = 0
    while (k < blocks) {
      FastLanesBitpacking.unpack(t, src, k * blockBytes, w, out, k * FastLanesBitpacking.BlockValues * (t / 8))
      k += 1
    }
    PageValues.Fixed(t, java.util.Arrays.copyOf(out, len * (t / 8)), n, Validity.AllValid)
  }
}
