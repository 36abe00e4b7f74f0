package io.sparklance.format.v21

import io.sparklance.format.layout.PageLayout
import io.sparklance.util.ScalaCompat._
import io.sparklance.util.{Bytes, Errors}

// Spec: lance-format/lance docs/src/format/file/encoding.md ("Mini-block page layout") and
// rust/lance-encoding/src/encodings/logical/primitive/miniblock.rs.
//
// Buffers: [0] chunk metadata, [1] chunk data, [2] dictionary (if any), then the
// repetition index (if any). One metadata word per chunk, u16 in 2.1 and u32 when
// `has_large_chunk` (2.2): bits 4.. hold (chunk bytes / 8) - 1, bits 0..3 log2 of the
// chunk's value count (every chunk but the last holds a power of two; the last takes the
// rest of `num_items`). A chunk is
//   u16 num_levels, [u16 rep bytes], [u16 def bytes],
//   one size per value buffer (u16, or u32 with large chunks), padding to 8,
//   rep levels, pad to 8, def levels, pad to 8, each value buffer padded to 8.

/** Decodes a mini-block page chunk by chunk. */
/**
 * `buffers` are the page's buffers except the chunk data: [0] chunk metadata, then the
 * dictionary and repetition index; `data` is the chunk data, read as it is needed.
 */
final class MiniBlockPage(buffers: IndexedSeq[Bytes], data: io.sparklance.format.WindowedBuffer, numRows: Long,
                          layout: PageLayout.MiniBlock, where: String) extends PageUnits {

  private val expectedBuffers = 1 + (if (layout.dictionary.isDefined) 1 else 0) + (if (layout.repetitionIndexDepth > 0) 1 else 0)
  if (buffers.length < expectedBuffers)
    throw Errors.corrupt(where, s"a mini-block page needs $expectedBuffers buffers, found ${buffers.length}")
  if (layout.numBuffers < 1 || layout.numBuffers > 16)
    throw Errors.corrupt(where, s"a mini-block page declares ${layout.numBuffers} value buffers per chunk")
  if (layout.numItems < 0 || layout.numItems > Int.MaxValue)
    throw Errors.corrupt(where, s"a mini-block page declares ${layout.numItems} items")
  if (layout.repCompression.isEmpty && layout.numItems != numRows)
    throw Errors.corrupt(where, s"a page of $numRows rows without repetition declares ${layout.numItems} values")

  private val meta = buffers(0)
  private val wordBytes = if (layout.hasLargeChunk) 4 else 2
  private val numChunks = {
    if (meta.length % wordBytes != 0) throw Errors.corrupt(meta.path, meta.fileOffset, s"chunk metadata of ${meta.length} bytes is not a whole number of $wordBytes-byte words")
    meta.length / wordBytes
  }
  private val numBuffers = layout.numBuffers.toInt

  /** The dictionary of the page, decoded once and prepared for lookups. */
  private val dictionary: Option[Dictionaries.Dictionary] = layout.dictionary.map { enc =>
    val n = layout.numDictionaryItems
    if (n < 0 || n > Int.MaxValue) throw Errors.corrupt(where, s"a dictionary of $n items")
    Dictionaries.prepare(ValueDecoders.block(enc, buffers(1), n.toInt, s"$where, dictionary"), s"$where, dictionary")
  }

  // Built on the first chunk (a page without chunks never needs them) and reused for the rest.
  private lazy val valueDecoder = ValueDecoders.miniBlock(layout.valueCompression, where)
  private lazy val repDecoder = layout.repCompression.map(ValueDecoders.block(_, s"$where, repetition levels")).orNull
  private lazy val defDecoder = layout.defCompression.map(ValueDecoders.block(_, s"$where, definition levels")).orNull

  /** Definition levels at or below this have a value (the layers inside the innermost list). */
  private val maxVisibleDef = layout.layers.takeWhile(!_.isList).map(_.defLevels).sum

  private var chunk = 0
  private var dataPos = 0L
  private var itemsSoFar = 0L

  override def next(): Option[LeafData] = {
    if (chunk >= numChunks) {
      if (itemsSoFar != layout.numItems)
        throw Errors.corrupt(where, s"the chunks hold $itemsSoFar values but the page declares ${layout.numItems}")
      if (dataPos != data.length)
        throw Errors.corrupt(data.path, data.fileOffset + dataPos, s"chunk data has ${data.length - dataPos} bytes after the last chunk ($where)")
      return None
    }
    val word = if (wordBytes == 4) meta.u32(chunk.toLong * 4) else meta.u16(chunk.toLong * 2).toLong
    val size = ((word >>> 4) + 1) * 8
    val last = chunk == numChunks - 1
    val count: Long = if (last) layout.numItems - itemsSoFar else 1L << (word & 0xf)
    val c = data.slice(dataPos, size, s"$where, chunk $chunk")
    val out = decodeChunk(c, count, last)
    dataPos += size
    chunk += 1
    Some(out)
  }

  override def skipWholeUnits(rows: Long): Long = {
    // Without repetition every value is a row, and the metadata gives each chunk's count.
    if (layout.repCompression.isDefined) return 0
    var skipped = 0L
    var continue = true
    while (continue && chunk < numChunks) {
      val word = if (wordBytes == 4) meta.u32(chunk.toLong * 4) else meta.u16(chunk.toLong * 2).toLong
      val last = chunk == numChunks - 1
      val count = if (last) layout.numItems - itemsSoFar else 1L << (word & 0xf)
      if (count <= rows - skipped && count >= 0) {
        skipped += count
        itemsSoFar += count
        dataPos += ((word >>> 4) + 1) * 8
        chunk += 1
      } else continue = false
    }
    skipped
  }

  /** `valuesHint`: the value count from the chunk metadata (exact for chunks without levels). */
  private def decodeChunk(c: Bytes, valuesHint: Long, last: Boolean): LeafData = {
    def cw = s"$where, chunk $chunk"
    var o = 0L
    val numLevels = c.u16(o); o += 2
    val hasReps = layout.repCompression.isDefined
    val hasDefs = layout.defCompression.isDefined
    val repBytes = if (hasReps) { val v = c.u16(o); o += 2; v } else 0
    val defBytes = if (hasDefs) { val v = c.u16(o); o += 2; v } else 0
    val sizes = new Array[Long](numBuffers)
    var b = 0
    while (b < numBuffers) {
      sizes(b) = if (layout.hasLargeChunk) c.u32(o) else c.u16(o).toLong
      o += (if (layout.hasLargeChunk) 4 else 2)
      b += 1
    }
    o = align8(o)
    val hasLevels = hasReps || hasDefs
    val reps = if (!hasReps) null else {
      val r = ValueDecoders.levels(repDecoder, c.slice(o, repBytes, s"$cw repetition levels"), numLevels, s"$cw repetition levels")
      o = align8(o + repBytes); r
    }
    val defs = if (!hasDefs) null else {
      val d = ValueDecoders.levels(defDecoder, c.slice(o, defBytes, s"$cw definition levels"), numLevels, s"$cw definition levels")
      o = align8(o + defBytes); d
    }
    val valueBuffers = new Array[Bytes](numBuffers)
    b = 0
    while (b < numBuffers) {
      valueBuffers(b) = c.slice(o, sizes(b), s"$cw value buffer $b")
      o = align8(o + sizes(b))
      b += 1
    }
    val numItems = if (hasLevels) numLevels else valuesHint.toInt
    if (hasLevels && numLevels == 0 && valuesHint > 0)
      throw Errors.corrupt(where, s"chunk $chunk holds values but no levels")
    // The number of values: visible items when levels exist, else one per item.
    val numValues =
      if (!hasLevels) valuesHint
      else if (reps == null || defs == null) numLevels.toLong
      else {
        var visible = 0L
        var i = 0
        while (i < numLevels) { if (defs(i) <= maxVisibleDef) visible += 1; i += 1 }
        visible
      }
    if (numValues < 0 || numValues > Int.MaxValue) throw Errors.corrupt(where, s"chunk $chunk holds $numValues values")
    val rawValues = valueDecoder.decode(ArraySeq.unsafeWrapArray(valueBuffers), numValues.toInt, cw)
    if (rawValues.count != numValues)
      throw Errors.corrupt(where, s"chunk $chunk decoded ${rawValues.count} values, expected $numValues")
    if (numValues != valuesHint)
      throw Errors.corrupt(where, s"chunk $chunk holds $numValues values but its metadata says $valuesHint")
    // The page's num_items counts values (visible items), not level entries.
    itemsSoFar += numValues
    val values = if (dictionary.isEmpty) rawValues else Dictionaries.lookup(dictionary.get, rawValues, cw)
    new LeafData(layout.layers, numItems, reps, defs, values)
  }

  private def align8(x: Long): Long = (x + 7) & ~7L
}
