// Spec: lance-format/lance protos/encodings_v2_1.proto `OutOfLineBitpacking` (the packed width is
// `values.flat.bits_per_value`) and rust/lance-encoding/src/encodings/physical/bitpacking.rs
// (the out-of-line variant).
//
// A block compressor: one bit width W for the whole buffer, given by the encoding description
// rather than stored inline. Full 1024-value blocks are FastLanes-packed back to back with no
// headers. The n mod 1024 tail values are either zero-padded and packed as one more full block,
// or appended as raw T-bit words when padding would cost more than packing saves. Nothing records
// which: the reader tells them apart by the buffer length. The writer uses it for rep/def levels
// of more than 1024 entries.
package io.sparklance.format.encoding

import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.format.encoding.FastLanesBitpacking.{packedBytes, packedWords, BlockValues, WordKind}
import io.sparklance.util.{Bytes, Errors}

object OutOfLineBitpacking {

  /**
   * Decodes `numValues` unsigned `bits`-bit values (8, 16, 32 or 64) packed at `bitWidth` bits to
   * their little-endian bytes. The buffer length must match exactly one of the two tail layouts.
   * With `bitWidth` 0 the buffer is empty whatever `numValues` is, so the caller must have bounded
   * `numValues` already (it comes from page metadata).
   */
  def decode(bits: Int, src: Bytes, bitWidth: Int, numValues: Int): FixedWidthValues = {
    val k = FastLanesBitpacking.wordKind(bits)
    if (bitWidth < 0 || bitWidth > k.bits)
      throw Errors.corrupt(src.path, src.fileOffset,
        s"out-of-line bit packing width $bitWidth is outside 0..${k.bits} for ${k.bits}-bit values")
    if (numValues < 0)
      throw Errors.corrupt(src.path, src.fileOffset, s"out-of-line bit-packed buffer asked for $numValues values")
    if (src.length % k.bytes != 0)
      throw Errors.corrupt(src.path, src.fileOffset,
        s"out-of-line bit-packed buffer of ${src.length} bytes is not a whole number of ${k.bits}-bit words")
    val perBlock = packedWords(k.bits, bitWidth)
    val fullBlocks = numValues / BlockValues
    val tail = numValues % BlockValues
    val fullWords = fullBlocks.toLong * perBlock
    val haveWords = (src.length / k.bytes).toLong
    // When both layouts have the same length the writer chose raw (padding must strictly win).
    val rawTail = tail > 0 && haveWords == fullWords + tail
    val packedTail = tail > 0 && !rawTail
    val expected = fullWords + (if (rawTail) tail else if (packedTail) perBlock else 0)
    if (haveWords != expected)
      throw Errors.corrupt(src.path, src.fileOffset,
        s"$numValues values bit-packed out of line at $bitWidth bits need ${fullWords + (if (tail > 0) perBlock else 0)} " +
          s"${k.bits}-bit words${if (tail > 0) s" (or ${fullWords + tail} with an unpacked tail)" else ""}, " +
          s"but the buffer holds $haveWords")
    if (numValues.toLong * k.bytes > GeneralCompression.MaxArrayBytes)
      throw Errors.unsupported(s"a buffer of $numValues ${k.bits}-bit values (over 2 GiB)", src.path)
    val out = new Array[Byte](numValues * k.bytes)
    val blockBytes = packedBytes(bitWidth)
    val packed = new Array[Byte](blockBytes)
    var b = 0
    while (b < fullBlocks) {
      src.copyTo(b.toLong * blockBytes, packed, 0, blockBytes)
      k.unpack(bitWidth, packed, 0, out, b * BlockValues * k.bytes)
      b += 1
    }
    val tailOff = fullBlocks.toLong * blockBytes
    val tailAt = fullBlocks * BlockValues * k.bytes
    if (rawTail) {
      // Raw tail words are already the little-endian values.
      src.copyTo(tailOff, out, tailAt, tail * k.bytes)
    } else if (packedTail) {
      val block = new Array[Byte](BlockValues * k.bytes)
      src.copyTo(tailOff, packed, 0, blockBytes)
      k.unpack(bitWidth, packed, 0, block, 0)
      System.arraycopy(block, 0, out, tailAt, tail * k.bytes)
    }
    new FixedWidthValues(bits, out, numValues)
  }

  /** Encodes `values(off until off + n)` at `bitWidth` bits, which must hold every value. */
  def encode8(values: Array[Byte], off: Int, n: Int, bitWidth: Int): Array[Byte] =
    encode(FastLanesBitpacking.Words8, values, off, n, bitWidth)
  def encode16(values: Array[Short], off: Int, n: Int, bitWidth: Int): Array[Byte] =
    encode(FastLanesBitpacking.Words16, values, off, n, bitWidth)
  def encode32(values: Array[Int], off: Int, n: Int, bitWidth: Int): Array[Byte] =
    encode(FastLanesBitpacking.Words32, values, off, n, bitWidth)
  def encode64(values: Array[Long], off: Int, n: Int, bitWidth: Int): Array[Byte] =
    encode(FastLanesBitpacking.Words64, values, off, n, bitWidth)

  /** The narrowest width that holds every value of `values(off until off + n)`, read as unsigned. */
  def bitWidth8(values: Array[Byte], off: Int, n: Int): Int = FastLanesBitpacking.bitLength(FastLanesBitpacking.Words8.or(values, off, n))
  def bitWidth16(values: Array[Short], off: Int, n: Int): Int = FastLanesBitpacking.bitLength(FastLanesBitpacking.Words16.or(values, off, n))
  def bitWidth32(values: Array[Int], off: Int, n: Int): Int = FastLanesBitpacking.bitLength(FastLanesBitpacking.Words32.or(values, off, n))
  def bitWidth64(values: Array[Long], off: Int, n: Int): Int = FastLanesBitpacking.bitLength(FastLanesBitpacking.Words64.or(values, off, n))

  private def encode(k: WordKind, values: AnyRef, off: Int, n: Int, bitWidth: Int): Array[Byte] = {
    require(n >= 0 && off >= 0 && off <= java.lang.reflect.Array.getLength(values) - n, s"range [$off, +$n) outside the input")
    require(bitWidth >= 0 && bitWidth <= k.bits, s"bit width $bitWidth is outside 0..${k.bits}")
    require(FastLanesBitpacking.bitLength(k.or(values, off, n)) <= bitWidth, s"values need more than $bitWidth bits")
    val perBlock = packedWords(k.bits, bitWidth)
    val fullBlocks = n / BlockValues
    val tail = n % BlockValues
    // Same rule as the Rust writer, so our files are byte-identical to its: pad the tail only
    // when the padding bits cost strictly less than packing the tail saves.
    val padTail = tail > 0 && bitWidth.toLong * (BlockValues - tail) < (k.bits - bitWidth).toLong * tail
    val words = fullBlocks.toLong * perBlock + (if (padTail) perBlock else tail)
    val out = new Array[Byte](Math.toIntExact(Math.multiplyExact(words, k.bytes.toLong)))
    val buf = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN)
    val packed = k.newArray(perBlock)
    var b = 0
    while (b < fullBlocks) {
      k.pack(bitWidth, values, off + b * BlockValues, packed, 0)
      k.writeWords(packed, 0, perBlock, buf)
      b += 1
    }
    if (padTail) {
      val block = k.newArray(BlockValues)
      System.arraycopy(values, off + fullBlocks * BlockValues, block, 0, tail)
      k.pack(bitWidth, block, 0, packed, 0)
      k.writeWords(packed, 0, perBlock, buf)
    } else if (tail > 0) {
      k.writeWords(values, off + fullBlocks * BlockValues, tail, buf)
    }
    out
  }

  /**
   * The block compressor for rep/def levels of pages of more than 1024 levels: every chunk's
   * levels packed at the page's widest block width (compression.rs `try_bitpack_for_block`).
   */
  final class Block(bits: Int, bitWidth: Int) extends BlockCompressor {
    private val k = FastLanesBitpacking.wordKind(bits)
    val encoding: CompressiveEncoding = CompressiveEncoding.OutOfLineBitpacking(bits, CompressiveEncoding.Flat(bitWidth, None))
    def compress(values: DecodedValues): Array[Byte] = values match {
      case f: FixedWidthValues if f.bitsPerValue == bits =>
        val typed = k.newArray(f.count)
        k.loadWords(f.data, f.offset, typed, 0, f.count)
        encode(k, typed, 0, f.count, bitWidth)
      case other => throw new IllegalArgumentException(s"out-of-line $bits-bit bit packing cannot hold ${other.describe}")
    }
  }

  /**
   * Bytes `n` values take packed at `bitWidth` with the tail rule above, or None when the width
   * saves nothing (compression.rs `estimate_out_of_line_bitpacking_words`).
   */
  def estimatedBytes(bits: Int, bitWidth: Int, n: Int): Option[Long] = {
    if (bitWidth >= bits) return None
    val perBlock = packedWords(bits, bitWidth).toLong
    val tail = n % BlockValues
    val padTail = tail > 0 && bitWidth.toLong * (BlockValues - tail) < (bits - bitWidth).toLong * tail
    Some(((n / BlockValues) * perBlock + (if (padTail) perBlock else tail)) * (bits / 8))
  }
}
