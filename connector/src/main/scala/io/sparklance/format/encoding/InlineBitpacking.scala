// Spec: lance-format/lance protos/encodings_v2_1.proto `InlineBitpacking` and
// rust/lance-encoding/src/encodings/physical/bitpacking.rs (the inline variant);
// docs/src/format/file/encoding.md "Bitpacking".
//
// Values are cut into blocks of 1024; each block is stored as one little-endian word of the value
// width T holding the block's bit width W, followed by the block's FastLanes packing
// (1024·W/T words). The last block is zero-padded to 1024 values before packing, so its packed
// size is a full block's. W is the bit length of the OR of the block's values: there is no
// zig-zag or frame of reference, so any negative value forces W = T.
//
// The writer uses this as a mini-block value compressor (one block per chunk) and as a block
// compressor for up to 1024 rep/def levels. We decode any number of blocks back to back, to the
// little-endian bytes of the values.
package io.sparklance.format.encoding

import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.format.encoding.FastLanesBitpacking.{packedBytes, packedWords, BlockValues, WordKind}
import io.sparklance.util.{Bytes, Errors}

object InlineBitpacking {

  /** Decodes `numValues` unsigned `bits`-bit values (8, 16, 32 or 64); `src` must hold exactly their blocks. */
  def decode(bits: Int, src: Bytes, numValues: Int): FixedWidthValues = new Decoder(bits).decode(src, numValues)

  /**
   * Decodes inline bit-packed values of one word size to little-endian bytes. A page keeps one
   * for all its chunks: it holds a block of scratch, so that decoding a chunk allocates nothing
   * but the chunk's output.
   */
  final class Decoder(bits: Int) {
    private val k: WordKind = FastLanesBitpacking.wordKind(bits)
    // A block packed at W = T is 1024 words, the most possible; a short last block unpacks
    // into `tail` first.
    private val packed = new Array[Byte](BlockValues * k.bytes)
    private val tail = new Array[Byte](BlockValues * k.bytes)

    def decode(src: Bytes, numValues: Int): FixedWidthValues = {
      if (numValues < 0)
        throw Errors.corrupt(src.path, src.fileOffset, s"inline bit-packed buffer asked for $numValues values")
      val blocks = ((numValues.toLong + BlockValues - 1) / BlockValues).toInt
      // Every block carries at least its width word, which bounds numValues by the buffer size
      // before anything is allocated from it.
      if (blocks.toLong * k.bytes > src.length)
        throw Errors.corrupt(src.path, src.fileOffset,
          s"$numValues inline bit-packed ${k.bits}-bit values need $blocks blocks of at least ${k.bytes} bytes " +
            s"each, but the buffer has only ${src.length} bytes")
      if (numValues.toLong * k.bytes > GeneralCompression.MaxArrayBytes)
        throw Errors.unsupported(s"a buffer of $numValues ${k.bits}-bit values (over 2 GiB)", src.path)
      val out = new Array[Byte](numValues * k.bytes)
      val blockBytes = BlockValues * k.bytes
      var pos = 0L
      var b = 0
      while (b < blocks) {
        val width = k.readUnsigned(src, pos)
        if (width < 0 || width > k.bits)
          throw Errors.corrupt(src.path, src.fileOffset + pos,
            s"inline bit-packed block $b declares bit width ${java.lang.Long.toUnsignedString(width)}, " +
              s"more than the ${k.bits}-bit value width")
        val w = width.toInt
        val size = packedBytes(w)
        src.check(pos + k.bytes, size, s"inline bit-packed block $b at $w bits")
        src.copyTo(pos + k.bytes, packed, 0, size)
        val first = b * blockBytes
        if (numValues - b * BlockValues >= BlockValues) k.unpack(w, packed, 0, out, first)
        else {
          k.unpack(w, packed, 0, tail, 0)
          System.arraycopy(tail, 0, out, first, out.length - first)
        }
        pos += k.bytes + size
        b += 1
      }
      // The writer records each buffer's exact size, so bytes left over mean the count or the
      // buffer boundaries are wrong; decoding on would hand back values from the wrong place.
      if (pos != src.length)
        throw Errors.corrupt(src.path, src.fileOffset + pos,
          s"$numValues inline bit-packed ${k.bits}-bit values end at byte $pos of a ${src.length}-byte buffer")
      new FixedWidthValues(bits, out, numValues)
    }
  }

  /** Encodes `values(off until off + n)`, each block at the narrowest width that holds it. */
  def encode8(values: Array[Byte], off: Int, n: Int): Array[Byte] = encode(FastLanesBitpacking.Words8, values, off, n)
  def encode16(values: Array[Short], off: Int, n: Int): Array[Byte] = encode(FastLanesBitpacking.Words16, values, off, n)
  def encode32(values: Array[Int], off: Int, n: Int): Array[Byte] = encode(FastLanesBitpacking.Words32, values, off, n)
  def encode64(values: Array[Long], off: Int, n: Int): Array[Byte] = encode(FastLanesBitpacking.Words64, values, off, n)

  private def encode(k: WordKind, values: AnyRef, off: Int, n: Int): Array[Byte] = {
    require(n >= 0 && off >= 0 && off <= java.lang.reflect.Array.getLength(values) - n, s"range [$off, +$n) outside the input")
    encode(k, values, off, n, widths(k, values, off, n))
  }

  /** The bit width of each 1024-value block: the bit length of the OR of its values. */
  private def widths(k: WordKind, values: AnyRef, off: Int, n: Int): Array[Int] = {
    val w = new Array[Int]((n + BlockValues - 1) / BlockValues)
    var b = 0
    while (b < w.length) {
      val first = off + b * BlockValues
      w(b) = FastLanesBitpacking.bitLength(k.or(values, first, math.min(BlockValues, off + n - first)))
      b += 1
    }
    w
  }

  /** Bytes of the block packed at `width` bits, with its width word. */
  private def blockBytes(k: WordKind, width: Int): Int = k.bytes + packedBytes(width)

  private def encode(k: WordKind, values: AnyRef, off: Int, n: Int, widths: Array[Int]): Array[Byte] = {
    var size = 0L
    widths.foreach(w => size += blockBytes(k, w))
    val out = new Array[Byte](Math.toIntExact(size))
    val buf = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN)
    val packed = k.newArray(BlockValues)
    var b = 0
    while (b < widths.length) {
      val first = off + b * BlockValues
      val here = math.min(BlockValues, off + n - first)
      val (in, inOff) =
        if (here == BlockValues) (values, first)
        else {
          val padded = k.newArray(BlockValues)
          System.arraycopy(values, first, padded, 0, here)
          (padded, 0)
        }
      k.putWord(buf, widths(b).toLong)
      k.pack(widths(b), in, inOff, packed, 0)
      k.writeWords(packed, 0, packedWords(k.bits, widths(b)), buf)
      b += 1
    }
    out
  }

  /**
   * Encodes the values of `f` at the block widths `w`, loading one block at a time into a
   * reused word array: a page's values are never copied whole into words (which cost a pass and
   * as many heap bytes as the page).
   */
  private def encodeBlocks(k: WordKind, f: FixedWidthValues, w: Array[Int]): Array[Byte] = {
    require(f.bitsPerValue == k.bits, s"${f.bitsPerValue}-bit values given to a ${k.bits}-bit bit packer")
    var size = 0L
    w.foreach(x => size += blockBytes(k, x))
    val out = new Array[Byte](Math.toIntExact(size))
    val buf = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN)
    var block = k.newArray(BlockValues)
    val packed = k.newArray(BlockValues)
    var b = 0
    while (b < w.length) {
      val first = b * BlockValues
      val here = math.min(BlockValues, f.count - first)
      if (here < BlockValues) block = k.newArray(BlockValues) // the last block, zero-padded
      k.loadWords(f.data, f.offset + first * k.bytes, block, 0, here)
      k.putWord(buf, w(b).toLong)
      k.pack(w(b), block, 0, packed, 0)
      k.writeWords(packed, 0, packedWords(k.bits, w(b)), buf)
      b += 1
    }
    out
  }

  /** The little-endian values of `f` as an array of their word type, for packing. */
  private def words(k: WordKind, f: FixedWidthValues): AnyRef = {
    require(f.bitsPerValue == k.bits, s"${f.bitsPerValue}-bit values given to a ${k.bits}-bit bit packer")
    val typed = k.newArray(f.count)
    k.loadWords(f.data, f.offset, typed, 0, f.count)
    typed
  }

  /**
   * The mini-block compressor (bitpacking.rs `InlineBitpacking::chunk_data`): each 1024-value
   * block is one chunk of one buffer, its width word then its packed words. Every chunk but the
   * last holds 1024 values; the last is marked as such even when it is full. `blockWidths`, when
   * given, are the values' per-block bit widths (FixedWidthStatistics.blockWidths).
   */
  final class MiniBlock(bits: Int, blockWidths: Array[Int] = null) extends MiniBlockCompressor {
    private val k = FastLanesBitpacking.wordKind(bits)
    def compress(values: DecodedValues): (MiniBlockCompressed, CompressiveEncoding) = values match {
      case f: FixedWidthValues =>
        // The statistics that chose this encoding already hold each block's width.
        val (w, encoded) =
          if (blockWidths != null && blockWidths.length == (f.count + BlockValues - 1) / BlockValues) (blockWidths, encodeBlocks(k, f, blockWidths))
          else {
            val typed = words(k, f)
            val w = widths(k, typed, 0, f.count)
            (w, encode(k, typed, 0, f.count, w))
          }
        val chunks = w.indices.map(b => MiniBlockChunk(IndexedSeq(blockBytes(k, w(b))), if (b == w.length - 1) 0 else 10))
        (new MiniBlockCompressed(IndexedSeq(encoded), chunks, f.count), CompressiveEncoding.InlineBitpacking(bits, None))
      case other => throw new IllegalArgumentException(s"inline bit packing cannot hold ${other.describe}")
    }
  }

  /** The block compressor (rep/def levels of pages of at most 1024 levels): all blocks back to back. */
  final class Block(bits: Int) extends BlockCompressor {
    private val k = FastLanesBitpacking.wordKind(bits)
    val encoding: CompressiveEncoding = CompressiveEncoding.InlineBitpacking(bits, None)
    def compress(values: DecodedValues): Array[Byte] = values match {
      case f: FixedWidthValues =>
        val typed = words(k, f)
        encode(k, typed, 0, f.count, widths(k, typed, 0, f.count))
      case other => throw new IllegalArgumentException(s"inline bit packing cannot hold ${other.describe}")
    }
  }

  /**
   * Bytes inline bit packing takes for blocks of these widths, or None when that is not less
   * than the raw `dataSize` (compression.rs `estimate_inline_bitpacking_bytes`).
   */
  def estimatedBytes(bits: Int, blockWidths: Array[Int], dataSize: Long): Option[Long] = {
    if (blockWidths.isEmpty || dataSize == 0) return None
    var words = 0L
    blockWidths.foreach(w => words += 1 + BlockValues.toLong * w / bits)
    val bytes = words * (bits / 8)
    if (bytes >= dataSize) None else Some(bytes)
  }
}
