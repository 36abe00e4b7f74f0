// Spec: lance-format/lance protos/encodings_v2_1.proto `ByteStreamSplit` (values `flat{32|64}`),
// rust/lance-encoding/src/encodings/physical/byte_stream_split.rs; docs/src/format/file/encoding.md
// "Byte Stream Split (BSS)". The same transform as Parquet's BYTE_STREAM_SPLIT.
//
// A mini-block value buffer of n values of B bytes is laid out byte-plane major: byte 0 of every
// value, then byte 1 of every value, ... byte B-1. The planes of floating-point data (sign and
// exponent bytes especially) are far more repetitive than the interleaved values, which is why the
// writer only picks it under a General (zstd/lz4) wrapper. Values travel as their raw bit patterns.
package io.sparklance.format.encoding

import io.sparklance.util.{Bytes, Errors}

object ByteStreamSplit {

  /** Decodes `numValues` values of `bitsPerValue` bits (32 or 64) to their little-endian bytes. */
  def decode(src: Bytes, bitsPerValue: Int, numValues: Int): Array[Byte] = {
    if (bitsPerValue != 32 && bitsPerValue != 64)
      throw Errors.corrupt(src.path, src.fileOffset, s"byte-stream-split values of $bitsPerValue bits; Lance splits 32 or 64-bit values")
    val width = bitsPerValue / 8
    val in = planes(src, numValues, width)
    val out = new Array[Byte](in.length)
    var plane = 0
    while (plane < width) {
      val base = plane * numValues
      var i = 0
      while (i < numValues) { out(i * width + plane) = in(base + i); i += 1 }
      plane += 1
    }
    out
  }

  /** Decodes `numValues` 32-bit patterns (e.g. floats via `intBitsToFloat`); `src` holds exactly their planes. */
  def decode32(src: Bytes, numValues: Int): Array[Int] = {
    val in = planes(src, numValues, 4)
    val out = new Array[Int](numValues)
    var plane = 0
    while (plane < 4) {
      val base = plane * numValues
      val shift = plane * 8
      var i = 0
      while (i < numValues) { out(i) |= (in(base + i) & 0xff) << shift; i += 1 }
      plane += 1
    }
    out
  }

  def decode64(src: Bytes, numValues: Int): Array[Long] = {
    val in = planes(src, numValues, 8)
    val out = new Array[Long](numValues)
    var plane = 0
    while (plane < 8) {
      val base = plane * numValues
      val shift = plane * 8
      var i = 0
      while (i < numValues) { out(i) |= (in(base + i) & 0xffL) << shift; i += 1 }
      plane += 1
    }
    out
  }

  def encode32(values: Array[Int], off: Int, n: Int): Array[Byte] = {
    val out = new Array[Byte](Math.multiplyExact(n, 4))
    var plane = 0
    while (plane < 4) {
      var i = 0
      while (i < n) { out(plane * n + i) = (values(off + i) >>> (plane * 8)).toByte; i += 1 }
      plane += 1
    }
    out
  }

  def encode64(values: Array[Long], off: Int, n: Int): Array[Byte] = {
    val out = new Array[Byte](Math.multiplyExact(n, 8))
    var plane = 0
    while (plane < 8) {
      var i = 0
      while (i < n) { out(plane * n + i) = (values(off + i) >>> (plane * 8)).toByte; i += 1 }
      plane += 1
    }
    out
  }

  /**
   * The mini-block compressor (byte_stream_split.rs `ByteStreamSplitEncoder`): chunks of 1024
   * 32-bit or 512 64-bit values, each split into byte planes on its own.
   */
  final class MiniBlock(bits: Int) extends MiniBlockCompressor {
    require(bits == 32 || bits == 64, s"byte stream split of $bits-bit values")
    private val width = bits / 8
    private val perChunk = if (bits == 32) 1024 else 512

    def compress(values: DecodedValues): (MiniBlockCompressed, CompressiveEncoding) = values match {
      case f: FixedWidthValues if f.bitsPerValue == bits =>
        val n = f.count
        val out = new Array[Byte](Math.multiplyExact(n, width))
        val chunks = IndexedSeq.newBuilder[MiniBlockChunk]
        var pos = 0
        while (pos < n) {
          val here = math.min(perChunk, n - pos)
          val base = pos * width
          var plane = 0
          while (plane < width) {
            val dst = base + plane * here
            val src = f.offset + base + plane
            var i = 0
            while (i < here) { out(dst + i) = f.data(src + i * width); i += 1 }
            plane += 1
          }
          pos += here
          chunks += MiniBlockChunk(IndexedSeq(here * width), if (pos == n) 0 else Integer.numberOfTrailingZeros(here))
        }
        (new MiniBlockCompressed(if (n == 0) IndexedSeq.empty else IndexedSeq(out), chunks.result(), n),
          CompressiveEncoding.ByteStreamSplit(CompressiveEncoding.Flat(bits, None)))
      case other => throw new IllegalArgumentException(s"$bits-bit byte stream split cannot hold ${other.describe}")
    }
  }

  private def planes(src: Bytes, numValues: Int, width: Int): Array[Byte] = {
    // The writer records each buffer's exact size and the Rust reader insists on it.
    if (numValues < 0 || numValues.toLong * width != src.length)
      throw Errors.corrupt(src.path, src.fileOffset,
        s"byte-stream-split buffer of ${src.length} bytes cannot hold exactly $numValues ${width * 8}-bit values")
    src.toArray
  }
}
