// Spec: lance-format/lance protos/encodings_v2_1.proto `Variable` (offsets described as
// `flat{32|64}`) and rust/lance-encoding/src/encodings/physical/binary.rs (the mini-block chunker
// and decompressor, `VariableEncoder` and `BinaryBlockDecompressor`); docs/src/format/file/encoding.md
// "Variable".
//
// Two byte layouts of variable-width data:
//  * mini-block value buffer (one per chunk): `[(n+1) offsets][value bytes][padding]`, offsets
//    32 or 64 bits and counted from the start of this buffer, so offsets(0) = (n+1)·width when the
//    chunk is read whole. Padding is 0x48 up to 4 bytes (32-bit) or 8 bytes (64-bit).
//  * block form (dictionaries): `[u32 32][u32 bytes_start][(n+1) u32 offsets][bytes]` or
//    `[u64 64][u64 bytes_start][(n+1) u64 offsets][bytes]`, offsets counted from bytes_start.
//    An older form `[u8 width][u32|u64 n][u32|u64 bytes_start][offsets][bytes]` is still read:
//    the Rust reader tells them apart by bytes 1..3, which are zero in the current form (the
//    high bytes of a small little-endian width) and the low bytes of n in the old one.
package io.sparklance.format.encoding

import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.util.{Bytes, Errors, LittleEndian}

object VariableLayout {

  /** Padding byte the Rust chunker writes after a chunk's values ('H'). */
  final val MiniBlockPad: Byte = 0x48

  /** The size the binary chunker aims each mini-block chunk at (binary.rs `AIM_MINICHUNK_SIZE`). */
  final val MiniBlockAimBytes = 4 * 1024

  /**
   * Reads the first `numValues` values of a mini-block value buffer. The chunk may hold more
   * values than asked for (the Rust reader allows that), so offsets(0) may exceed (n+1)·width.
   */
  def decodeMiniBlock(src: Bytes, bitsPerOffset: Int, numValues: Int): VariableData = {
    val width = offsetBytes(src, bitsPerOffset, "mini-block Variable")
    if (numValues < 0)
      throw Errors.corrupt(src.path, src.fileOffset, s"mini-block Variable buffer asked for $numValues values")
    val offsetsLen = (numValues + 1L) * width
    src.check(0, offsetsLen, s"${numValues + 1} offsets of a mini-block Variable buffer")
    toVariableData(src, 0, width, numValues + 1, firstMin = offsetsLen, bytesStart = 0, limit = src.length,
      what = "mini-block Variable")
  }

  /** The mini-block value buffer for all of `data`, padded as the Rust chunker pads. */
  def encodeMiniBlock(data: VariableData, bitsPerOffset: Int): Array[Byte] = {
    val width = writerOffsetBytes(bitsPerOffset)
    val out = new Array[Byte](Math.toIntExact(miniBlockBytes(data, 0, data.count, width)))
    writeMiniBlock(data, 0, data.count, width, out, 0)
    out
  }

  /** Bytes of the padded mini-block buffer of values `[from, until)` with `width`-byte offsets. */
  private def miniBlockBytes(data: VariableData, from: Int, until: Int, width: Int): Long = {
    val end = (until - from + 1L) * width + data.offsets(until) - data.offsets(from)
    if (width == 4 && end > 0xffffffffL) throw new IllegalArgumentException(s"$end bytes do not fit 32-bit offsets")
    (end + width - 1) / width * width
  }

  /** Writes the mini-block buffer of values `[from, until)` at `out(at)`; returns its padded size. */
  private def writeMiniBlock(data: VariableData, from: Int, until: Int, width: Int, out: Array[Byte], at: Int): Int = {
    val size = miniBlockBytes(data, from, until, width).toInt
    // Offsets count from the start of the chunk's buffer, where the first value follows them.
    val shift = (until - from + 1L) * width - data.offsets(from)
    var o = at
    var i = from
    while (i <= until) {
      if (width == 4) LittleEndian.putInt(out, o, (shift + data.offsets(i)).toInt) else LittleEndian.putLong(out, o, shift + data.offsets(i))
      o += width
      i += 1
    }
    val len = data.offsets(until) - data.offsets(from)
    System.arraycopy(data.bytes, data.offsets(from), out, o, len)
    java.util.Arrays.fill(out, o + len, at + size, MiniBlockPad)
    size
  }

  /**
   * The binary mini-block compressor (binary.rs `BinaryMiniBlockEncoder`): chunks aimed at
   * `chunkBytes` (4 KiB) of offsets and values. From two values, a chunk's count doubles while
   * the doubled chunk fits and stays within 4096 values; the rest of the page becomes the last
   * chunk when it fits whole. Two values are always taken, so a chunk of long values may be
   * larger than the aim.
   */
  final class MiniBlock(bitsPerOffset: Int, chunkBytes: Int = MiniBlockAimBytes) extends MiniBlockCompressor {
    private val width = writerOffsetBytes(bitsPerOffset)

    def compress(values: DecodedValues): (MiniBlockCompressed, CompressiveEncoding) = values match {
      case data: VariableData =>
        val n = data.count
        val ends = Array.newBuilder[Int]
        var from = 0
        var total = 0L
        var more = true
        while (more) {
          val until = nextChunkEnd(data, from)
          ends += until
          total += miniBlockBytes(data, from, until, width)
          more = until < n
          from = until
        }
        val cuts = ends.result()
        val out = new Array[Byte](Math.toIntExact(total))
        var at = 0
        from = 0
        val chunks = cuts.toIndexedSeq.map { until =>
          val size = writeMiniBlock(data, from, until, width, out, at)
          at += size
          val chunk = MiniBlockChunk(IndexedSeq(size), if (until == n) 0 else Integer.numberOfTrailingZeros(until - from))
          from = until
          chunk
        }
        (new MiniBlockCompressed(IndexedSeq(out), chunks, n), CompressiveEncoding.Variable(CompressiveEncoding.Flat(bitsPerOffset, None), None))
      case other => throw new IllegalArgumentException(s"variable mini-block encoding cannot hold ${other.describe}")
    }

    /** binary.rs `search_next_offset_idx`: where the chunk starting at value `from` ends. */
    private def nextChunkEnd(data: VariableData, from: Int): Int = {
      val n = data.count
      val o = data.offsets
      // A chunk of one value would read as the last chunk, so only the last chunk may have one.
      if (n - from <= 1) return n
      var take = 2
      var next = 4
      while (true) {
        if (from + next >= n + 1) {
          val rest = o(n) - o(from) + (n + 1L - from) * width
          return if (rest <= chunkBytes) n else from + take
        }
        val size = o(from + next) - o(from) + (next + 1L) * width
        if (size > chunkBytes || next * 2 > MiniBlockChunk.MaxValues) return from + take
        take = next
        next *= 2
      }
      n
    }
  }

  /** The block compressor (dictionaries): the current block form with 32- or 64-bit offsets. */
  final class Block(bitsPerOffset: Int) extends BlockCompressor {
    val encoding: CompressiveEncoding = CompressiveEncoding.Variable(CompressiveEncoding.Flat(bitsPerOffset, None), None)
    def compress(values: DecodedValues): Array[Byte] = values match {
      case data: VariableData => encodeBlock(data, bitsPerOffset)
      case other => throw new IllegalArgumentException(s"variable block encoding cannot hold ${other.describe}")
    }
  }

  /** The per-value compressor (binary.rs `VariableEncoder`): each value as it is. */
  final class PerValue(bitsPerOffset: Int) extends PerValueCompressor {
    def compress(values: DecodedValues): (PerValueData, CompressiveEncoding) = values match {
      case data: VariableData =>
        (PerValueData.Variable(bitsPerOffset, data), CompressiveEncoding.Variable(CompressiveEncoding.Flat(bitsPerOffset, None), None))
      case other => throw new IllegalArgumentException(s"variable per-value encoding cannot hold ${other.describe}")
    }
  }

  /** Reads a block-form Variable buffer of `numValues` values (a dictionary, typically). */
  def decodeBlock(src: Bytes, numValues: Int): VariableData = {
    if (numValues < 0)
      throw Errors.corrupt(src.path, src.fileOffset, s"block Variable buffer asked for $numValues values")
    src.check(0, 4, "block Variable header")
    val legacy = src.u8(1) != 0 || src.u8(2) != 0 || src.u8(3) != 0
    val (width, offsetsStart, bytesStart) =
      if (!legacy) {
        src.u32(0) match {
          case 32L => (4, 8L, src.u32(4))
          case 64L =>
            if (src.u32(4) != 0)
              throw Errors.corrupt(src.path, src.fileOffset, "block Variable header has offset width 64 with non-zero high bytes")
            (8, 16L, src.u64AsSize(8, "block Variable bytes start"))
          case other =>
            throw Errors.corrupt(src.path, src.fileOffset, s"block Variable offsets are $other bits wide; expected 32 or 64")
        }
      } else {
        val (w, count, start) = src.u8(0) match {
          case 32 => (4, src.u32(1), src.u32(5))
          case 64 => (8, src.u64AsSize(1, "block Variable value count"), src.u64AsSize(9, "block Variable bytes start"))
          case other =>
            throw Errors.corrupt(src.path, src.fileOffset, s"legacy block Variable offsets are $other bits wide; expected 32 or 64")
        }
        if (count != numValues)
          throw Errors.corrupt(src.path, src.fileOffset + 1, s"legacy block Variable header counts $count values, expected $numValues")
        (w, if (w == 4) 9L else 17L, start)
      }
    val offsetsLen = (numValues + 1L) * width
    // The offsets run exactly up to bytes_start; any other length means the value count is wrong.
    if (bytesStart != offsetsStart + offsetsLen || bytesStart > src.length)
      throw Errors.corrupt(src.path, src.fileOffset,
        s"block Variable data starts at byte $bytesStart, but ${numValues + 1} ${width * 8}-bit offsets after a " +
          s"$offsetsStart-byte header end at byte ${offsetsStart + offsetsLen} (buffer of ${src.length} bytes)")
    toVariableData(src, offsetsStart, width, numValues + 1, firstMin = 0, bytesStart = bytesStart,
      limit = src.length - bytesStart, what = "block Variable")
  }

  /** The block form (current layout) of `data` with 32- or 64-bit offsets. */
  def encodeBlock(data: VariableData, bitsPerOffset: Int): Array[Byte] = {
    val width = writerOffsetBytes(bitsPerOffset)
    val bytesStart = 2L * width + (data.count + 1L) * width
    if (width == 4 && data.dataLength.toLong > 0xffffffffL - bytesStart)
      throw new IllegalArgumentException("data too large for 32-bit offsets")
    val out = new Array[Byte](Math.toIntExact(bytesStart + data.dataLength))
    val buf = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN)
    if (width == 4) { buf.putInt(32); buf.putInt(bytesStart.toInt) } else { buf.putLong(64); buf.putLong(bytesStart) }
    data.offsets.foreach { o => if (width == 4) buf.putInt(o) else buf.putLong(o.toLong) }
    buf.put(data.bytes, 0, data.dataLength)
    out
  }

  private def offsetBytes(src: Bytes, bits: Int, what: String): Int = bits match {
    case 32 => 4
    case 64 => 8
    case _ => throw Errors.corrupt(src.path, src.fileOffset, s"$what offsets are $bits bits wide; expected 32 or 64")
  }

  /** Bytes of an offset a writer stores, 32 or 64 bits wide; any other width is a writer bug. */
  def writerOffsetBytes(bits: Int): Int = bits match {
    case 32 => 4
    case 64 => 8
    case _ => throw new IllegalArgumentException(s"offsets must be 32 or 64 bits, not $bits")
  }

  /**
   * Reads `count` offsets of `width` bytes at `src(at)`, checks that they start at or after
   * `firstMin`, never decrease and end within `limit`, then copies the values they cover
   * (located at `bytesStart + offset` in `src`) and rebases the offsets to 0. Offsets are
   * unsigned: a 64-bit offset with the top bit set is out of range, not negative.
   */
  private def toVariableData(src: Bytes, at: Long, width: Int, count: Int, firstMin: Long, bytesStart: Long,
      limit: Long, what: String): VariableData = {
    val offsets = new Array[Int](count)
    val wide = if (width == 8) new Array[Long](count) else null
    if (wide == null) FastLanesBitpacking.Words32.readWords(src, at, offsets, 0, count, s"$what offsets")
    else FastLanesBitpacking.Words64.readWords(src, at, wide, 0, count, s"$what offsets")
    def raw(i: Int): Long = if (wide == null) offsets(i) & 0xffffffffL else wide(i)
    val first = raw(0)
    if (java.lang.Long.compareUnsigned(first, firstMin) < 0 || java.lang.Long.compareUnsigned(first, limit) > 0)
      throw Errors.corrupt(src.path, src.fileOffset,
        s"$what offset 0 is ${java.lang.Long.toUnsignedString(first)}, outside [$firstMin, $limit]")
    var prev = first
    var i = 0
    while (i < count) {
      val o = raw(i)
      if (java.lang.Long.compareUnsigned(o, prev) < 0 || java.lang.Long.compareUnsigned(o, limit) > 0)
        throw Errors.corrupt(src.path, src.fileOffset,
          s"$what offset $i is ${java.lang.Long.toUnsignedString(o)}; offsets must not decrease " +
            s"(previous $prev) and must stay within $limit bytes")
      offsets(i) = (o - first).toInt
      prev = o
      i += 1
    }
    new VariableData(offsets, src.copyOfRange(bytesStart + first, offsets(count - 1), s"$what values"))
  }
}
