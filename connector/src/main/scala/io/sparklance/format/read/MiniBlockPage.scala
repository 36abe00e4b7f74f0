package io.sparklance.format.read

import io.sparklance.format.layout.PageLayout
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

  /** The dictionary of the page, decoded once. */
  private val dictionary: Option[DecodedValues] = layout.dictionary.map { enc =>
    val n = layout.numDictionaryItems
    if (n < 0 || n > Int.MaxValue) throw Errors.corrupt(where, s"a dictionary of $n items")
    ValueDecoders.block(enc, buffers(1), n.toInt, s"$where, dictionary")
  }

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
    val cw = s"$where, chunk $chunk"
    var o = 0L
    val numLevels = c.u16(o); o += 2
    val repBytes = if (layout.repCompression.isDefined) { val v = c.u16(o); o += 2; v } else 0
    val defBytes = if (layout.defCompression.isDefined) { val v = c.u16(o); o += 2; v } else 0
    val sizes = new Array[Long](numBuffers)
    var b = 0
    while (b < numBuffers) {
      sizes(b) = if (layout.hasLargeChunk) c.u32(o) else c.u16(o).toLong
      o += (if (layout.hasLargeChunk) 4 else 2)
      b += 1
    }
    o = align8(o)
    val hasLevels = layout.repCompression.isDefined || layout.defCompression.isDefined
    val reps = layout.repCompression.map { enc =>
      val r = ValueDecoders.levels(enc, c.slice(o, repBytes, s"$cw repetition levels"), numLevels, s"$cw repetition levels")
      o = align8(o + repBytes); r
    }.orNull
    val defs = layout.defCompression.map { enc =>
      val d = ValueDecoders.levels(enc, c.slice(o, defBytes, s"$cw definition levels"), numLevels, s"$cw definition levels")
      o = align8(o + defBytes); d
    }.orNull
    val valueBuffers = sizes.indices.map { i =>
      val s = c.slice(o, sizes(i), s"$cw value buffer $i")
      o = align8(o + sizes(i)); s
    }
    val numItems = if (hasLevels) numLevels else valuesHint.toInt
    if (hasLevels && numLevels == 0 && valuesHint > 0)
      throw Errors.corrupt(where, s"chunk $chunk holds values but no levels")
    // The number of values: visible items when levels exist, else one per item.
    val numValues =
      if (!hasLevels) valuesHint
      else if (reps == null) numLevels.toLong
      else {
        val mv = layout.layers.takeWhile(!_.isList).map(_.defLevels).sum
        if (defs == null) numLevels.toLong else defs.iterator.take(numLevels).count(_ <= mv).toLong
      }
    if (numValues < 0 || numValues > Int.MaxValue) throw Errors.corrupt(where, s"chunk $chunk holds $numValues values")
    val rawValues = ValueDecoders.miniBlock(layout.valueCompression, valueBuffers, numValues.toInt, cw)
    if (rawValues.count != numValues)
      throw Errors.corrupt(where, s"chunk $chunk decoded ${rawValues.count} values, expected $numValues")
    if (numValues != valuesHint)
      throw Errors.corrupt(where, s"chunk $chunk holds $numValues values but its metadata says $valuesHint")
    // The page's num_items counts values (visible items), not level entries.
    itemsSoFar += numValues
    val values = dictionary.fold(rawValues)(d => Dictionaries.lookup(d, rawValues, cw))
    new LeafData(layout.layers, numItems, reps, defs, values)
  }

  private def align8(x: Long): Long = (x + 7) & ~7L
}
