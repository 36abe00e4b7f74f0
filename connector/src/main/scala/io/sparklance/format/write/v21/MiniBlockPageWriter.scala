package io.sparklance.format.write.v21

import io.sparklance.format.encoding.{BlockCompressor, FixedWidthValues, MiniBlockCompressed}
import io.sparklance.format.write.ByteArrayBuilder

// Spec: rust/lance-encoding/src/encodings/logical/primitive.rs (serialize_miniblocks,
// compress_levels) and lance-format-facts §15.4. A mini-block page is
//   buffer 0: one word per chunk, ((chunk bytes / 8 - 1) << 4) | log2(values), u16 (2.1) or
//             u32 (2.2, "large chunks");
//   buffer 1: the chunks, each 8-byte aligned: u16 level count, [u16 rep bytes], [u16 def
//             bytes], one size per value buffer (u16, or u32 with large chunks), padding, then
//             rep, def and value buffers, each padded to 8 bytes with 0xFE;
//   buffer 2: the dictionary, if any; last: the repetition index, if the page has lists.
// Levels travel with the values: a chunk carries the level entries up to and including its last
// value slot; invisible entries after it (null or empty lists) go with the next chunk's values,
// and the last chunk takes what is left.

private[write] object MiniBlockPageWriter {
  private val Fill: Byte = 0xFE.toByte

  /** The serialized page buffers in order: chunk metadata, chunk data, [dictionary], [repetition index]. */
  final case class Buffers(metadata: Array[Byte], data: Array[Byte], repetitionIndex: Option[Array[Byte]])

  /**
   * Interleaves compressed values with their chunks' levels. A level entry has a value slot
   * when there are no definition levels or its level is at most `maxVisible`.
   */
  def write(
      values: MiniBlockCompressed,
      rep: Array[Short],
      defs: Array[Short],
      numEntries: Int,
      maxVisible: Int,
      maxRep: Int,
      repCompressor: Option[BlockCompressor],
      defCompressor: Option[BlockCompressor],
      largeChunks: Boolean,
      repBytes: FixedWidthValues,
      defBytes: FixedWidthValues): Buffers = {
    val chunks = values.chunks
    val hasLevels = rep != null || defs != null
    // Level ranges per chunk.
    val levelStart = new Array[Int](chunks.length + 1)
    if (hasLevels) {
      var entry = 0
      var c = 0
      while (c < chunks.length) {
        levelStart(c) = entry
        if (c == chunks.length - 1) entry = numEntries
        else {
          val want = 1L << chunks(c).logNumValues
          var seen = 0L
          if (defs == null) entry += want.toInt
          // Counted without a branch: where null and empty lists fall follows the data.
          else while (seen < want) { seen += ((maxVisible - defs(entry)) >>> 31) ^ 1; entry += 1 }
        }
        c += 1
      }
      levelStart(chunks.length) = numEntries
    }
    // The chunks' levels first, so that the page is assembled in one exactly sized array.
    val repChunks = new Array[Array[Byte]](chunks.length)
    val defChunks = new Array[Array[Byte]](chunks.length)
    def pad8(n: Int): Int = (n + 7) & ~7
    var total = 0L
    var c = 0
    while (c < chunks.length) {
      val lo = levelStart(c)
      val hi = levelStart(c + 1)
      if (hasLevels && hi - lo > 0xffff)
        throw new IllegalStateException(s"a mini-block chunk would carry ${hi - lo} levels, more than 65535")
      if (rep != null) repChunks(c) = repCompressor.get.compress(levelSlice(repBytes, lo, hi))
      if (defs != null) defChunks(c) = defCompressor.get.compress(levelSlice(defBytes, lo, hi))
      val header = 2 + (if (rep != null) 2 else 0) + (if (defs != null) 2 else 0) + values.numBuffers * (if (largeChunks) 4 else 2)
      total += pad8(header) + (if (rep != null) pad8(repChunks(c).length) else 0) + (if (defs != null) pad8(defChunks(c).length) else 0) +
        chunks(c).bufferSizes.iterator.map(pad8).sum
      c += 1
    }
    if (total > Int.MaxValue - 16) throw new IllegalStateException(s"a mini-block page of $total bytes")
    val meta = new ByteArrayBuilder(chunks.length * 4)
    val data = new ByteArrayBuilder(total.toInt)
    val bufferPos = new Array[Int](values.numBuffers)
    val repIndex = if (maxRep > 0) new Array[Long](chunks.length * 2) else null
    def pad(): Unit = while ((data.length & 7) != 0) { data.reserve(1)(data.length) = Fill; data.advance(1) }
    def u16(v: Int): Unit = { val a = data.reserve(2); a(data.length) = v.toByte; a(data.length + 1) = (v >> 8).toByte; data.advance(2) }
    def u32(v: Int): Unit = { u16(v & 0xffff); u16(v >>> 16) }
    c = 0
    while (c < chunks.length) {
      val chunk = chunks(c)
      val start = data.length
      val lo = levelStart(c)
      val hi = levelStart(c + 1)
      val repChunk = repChunks(c)
      val defChunk = defChunks(c)
      u16(if (hasLevels) hi - lo else 0)
      if (repChunk != null) u16(repChunk.length)
      if (defChunk != null) u16(defChunk.length)
      chunk.bufferSizes.foreach(s => if (largeChunks) u32(s) else u16(s))
      pad()
      if (repChunk != null) { data.append(repChunk, 0, repChunk.length); pad() }
      if (defChunk != null) { data.append(defChunk, 0, defChunk.length); pad() }
      var b = 0
      while (b < values.numBuffers) {
        val size = chunk.bufferSizes(b)
        data.append(values.buffers(b), bufferPos(b), size)
        bufferPos(b) += size
        pad()
        b += 1
      }
      val chunkBytes = data.length - start
      if (!largeChunks && chunkBytes > 32 * 1024)
        throw new IllegalStateException(s"a mini-block chunk of $chunkBytes bytes exceeds 32 KiB")
      val word = ((chunkBytes / 8 - 1).toLong << 4) | chunk.logNumValues
      meta.reserve(4)
      if (largeChunks) { writeLe(meta, word, 4) } else writeLe(meta, word, 2)
      if (repIndex != null) fillRepIndex(repIndex, rep, lo, hi, c, chunks.length, maxRep)
      c += 1
    }
    val ri = Option(repIndex).map { r =>
      val out = new Array[Byte](r.length * 8)
      val bb = java.nio.ByteBuffer.wrap(out).order(java.nio.ByteOrder.LITTLE_ENDIAN)
      r.foreach(bb.putLong)
      out
    }
    Buffers(meta.result(), data.result(), ri)
  }

  private def writeLe(b: ByteArrayBuilder, v: Long, width: Int): Unit = {
    val a = b.reserve(width)
    var i = 0
    while (i < width) { a(b.length + i) = (v >>> (8 * i)).toByte; i += 1 }
    b.advance(width)
  }

  /** Levels `[lo, hi)` of a page's little-endian u16 levels, without copying them. */
  private def levelSlice(all: FixedWidthValues, lo: Int, hi: Int): FixedWidthValues =
    new FixedWidthValues(16, all.data, hi - lo, all.offset + lo * 2)

  // Per chunk: rows that finish in it, and the level entries left over after its last row
  // start (rust compress_levels): a row starting at a chunk's first entry finishes the
  // previous chunk's leftovers instead.
  private def fillRepIndex(index: Array[Long], rep: Array[Short], lo: Int, hi: Int, c: Int, numChunks: Int, maxRep: Int): Unit = {
    var rows = 0L
    var i = lo + 1
    // Counted without a branch: where rows start follows the data, a branch would mispredict
    // once a row (levels are 0..maxRep, so `rep ^ maxRep` is 0 exactly at a row start).
    while (i < hi) { rows += ((rep(i) ^ maxRep) - 1) >>> 31; i += 1 }
    val leftovers =
      if (c < numChunks - 1) {
        var j = hi - 1
        while (j >= lo && rep(j) != maxRep) j -= 1
        if (j >= lo) (hi - j).toLong else (hi - lo).toLong
      } else 0L
    if (c > 0 && hi > lo && rep(lo) == maxRep && index(2 * c - 1) != 0) {
      index(2 * c - 2) += 1
      index(2 * c - 1) = 0
    }
    if (c == numChunks - 1) rows += 1
    index(2 * c) = rows
    index(2 * c + 1) = leftovers
  }
}
