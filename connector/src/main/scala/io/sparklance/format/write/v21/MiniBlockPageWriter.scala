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
   * Interleaves compressed values with their chunks' levels. `levels` compresses one chunk's
   * levels; `visible(i)` says whether level entry `i` has a value slot.
   */
  def write(
      values: MiniBlockCompressed,
      rep: Array[Short],
      defs: Array[Short],
      numEntries: Int,
      visible: Int => Boolean,
      maxRep: Int,
      repCompressor: Option[BlockCompressor],
      defCompressor: Option[BlockCompressor],
      largeChunks: Boolean): Buffers = {
    val chunks = values.chunks
    val hasLevels = rep != null || defs != null
    // Level ranges per chunk.
    val levelStart = new Array[Int](chunks.length + 1)
    if (hasLevels) {
      var entry = 0
      var valuesBefore = 0L
      var c = 0
      while (c < chunks.length) {
        levelStart(c) = entry
        if (c == chunks.length - 1) entry = numEntries
        else {
          val want = 1L << chunks(c).logNumValues
          var seen = 0L
          while (seen < want) { if (visible(entry)) seen += 1; entry += 1 }
          valuesBefore += want
        }
        c += 1
      }
      levelStart(chunks.length) = numEntries
    }
    val meta = new ByteArrayBuilder(chunks.length * 4)
    val data = new ByteArrayBuilder(values.buffers.map(_.length).sum + chunks.length * 32)
    val bufferPos = new Array[Int](values.numBuffers)
    val repIndex = if (maxRep > 0) new Array[Long](chunks.length * 2) else null
    def pad(): Unit = while ((data.length & 7) != 0) { data.reserve(1)(data.length) = Fill; data.advance(1) }
    def u16(v: Int): Unit = { val a = data.reserve(2); a(data.length) = v.toByte; a(data.length + 1) = (v >> 8).toByte; data.advance(2) }
    def u32(v: Int): Unit = { u16(v & 0xffff); u16(v >>> 16) }
    var c = 0
    while (c < chunks.length) {
      val chunk = chunks(c)
      val start = data.length
      val lo = levelStart(c)
      val hi = levelStart(c + 1)
      val repBytes = if (rep != null) repCompressor.get.compress(levelSlice(rep, lo, hi)) else null
      val defBytes = if (defs != null) defCompressor.get.compress(levelSlice(defs, lo, hi)) else null
      if (hasLevels && hi - lo > 0xffff)
        throw new IllegalStateException(s"a mini-block chunk would carry ${hi - lo} levels, more than 65535")
      u16(if (hasLevels) hi - lo else 0)
      if (repBytes != null) u16(repBytes.length)
      if (defBytes != null) u16(defBytes.length)
      chunk.bufferSizes.foreach(s => if (largeChunks) u32(s) else u16(s))
      pad()
      if (repBytes != null) { data.append(repBytes, 0, repBytes.length); pad() }
      if (defBytes != null) { data.append(defBytes, 0, defBytes.length); pad() }
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
    Buffers(meta.toArray, data.toArray, ri)
  }

  private def writeLe(b: ByteArrayBuilder, v: Long, width: Int): Unit = {
    val a = b.reserve(width)
    var i = 0
    while (i < width) { a(b.length + i) = (v >>> (8 * i)).toByte; i += 1 }
    b.advance(width)
  }

  private def levelSlice(levels: Array[Short], lo: Int, hi: Int): FixedWidthValues = {
    val out = new Array[Byte]((hi - lo) * 2)
    var i = lo
    while (i < hi) { out((i - lo) * 2) = levels(i).toByte; out((i - lo) * 2 + 1) = (levels(i) >> 8).toByte; i += 1 }
    new FixedWidthValues(16, out, hi - lo)
  }

  // Per chunk: rows that finish in it, and the level entries left over after its last row
  // start (rust compress_levels): a row starting at a chunk's first entry finishes the
  // previous chunk's leftovers instead.
  private def fillRepIndex(index: Array[Long], rep: Array[Short], lo: Int, hi: Int, c: Int, numChunks: Int, maxRep: Int): Unit = {
    var rows = 0L
    var i = lo + 1
    while (i < hi) { if (rep(i) == maxRep) rows += 1; i += 1 }
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
