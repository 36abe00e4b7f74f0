// Spec: lance-format/lance rust/lance-encoding/src/encodings/physical/value.rs (`ValueEncoder`) and
// protos/encodings_v2_1.proto `Flat` / `FixedSizeList`; the decoders are ValueDecoders.flat and
// the FixedSizeList cases of ValueDecoders.miniBlock and FullZipPage.
//
// Fixed-width values written as they are. In mini-block pages they are cut into chunks of a
// power-of-two count: starting from two values (eight for sub-byte widths such as booleans, so
// a chunk never ends inside a byte), the count doubles while twice the chunk stays under
// MiniBlockChunk.MaxBytes and the count stays within 4096. That gives 4096 8-bit, 2048 16-bit,
// 1024 32-bit, 512 64-bit and 256 128-bit values, and 4096 booleans (512 bytes) per chunk.
//
// Fixed-size lists (vectors) are chunked by rows, never splitting one: each chunk holds, for
// every list layer that has item validity (outermost first), that layer's validity bits for the
// chunk's rows, then the flat item bytes. Per value (full-zip), a row is its validity bytes
// (ceil(items of the layer / 8) per layer with validity) followed by its item bytes.
package io.sparklance.format.encoding

import io.sparklance.format.encoding.{CompressiveEncoding => CE}
import io.sparklance.util.Errors

object Flat {

  /**
   * log2 of the values per chunk for words of `bytesPerWord` bytes that each hold
   * `valuesPerWord` values (1, or 8 for sub-byte widths); value.rs `find_log_vals_per_chunk`.
   */
  def logValuesPerChunk(bytesPerWord: Long, valuesPerWord: Int): Int = {
    var size = 2 * bytesPerWord
    var (log, n) = if (valuesPerWord == 1) (1, 2) else (3, 8)
    if (size >= MiniBlockChunk.MaxBytes)
      throw Errors.unsupported(s"mini-block values of $bytesPerWord bytes (2 values need $size bytes, " +
        s"more than a chunk's ${MiniBlockChunk.MaxBytes}); write them full-zip", "")
    while (2 * size < MiniBlockChunk.MaxBytes && 2 * n <= MiniBlockChunk.MaxValues) { log += 1; size *= 2; n *= 2 }
    log
  }

  /** The exact bytes of `v`: the array itself when it holds nothing else. */
  def bytesOf(v: FixedWidthValues): Array[Byte] = {
    val len = Math.toIntExact(v.dataSize)
    if (v.offset == 0 && v.data.length == len) v.data else java.util.Arrays.copyOfRange(v.data, v.offset, v.offset + len)
  }

  private implicit class Size(private val v: FixedWidthValues) extends AnyVal {
    def dataSize: Long = (v.count.toLong * v.bitsPerValue + 7) / 8
  }

  /** Mini-block compressor for fixed-width values and fixed-size lists of them. */
  object MiniBlock extends MiniBlockCompressor {
    def compress(values: DecodedValues): (MiniBlockCompressed, CompressiveEncoding) = values match {
      case f: FixedWidthValues => (chunk(f), CE.Flat(f.bitsPerValue, None))
      case l: FixedSizeListValues => fixedSizeList(l)
      case other => throw new IllegalArgumentException(s"flat mini-block encoding cannot hold ${other.describe}")
    }

    private def chunk(f: FixedWidthValues): MiniBlockCompressed = {
      val (bytesPerWord, valuesPerWord) = if (f.bitsPerValue % 8 == 0) (f.bitsPerValue / 8, 1) else (f.bitsPerValue, 8)
      val log = logValuesPerChunk(bytesPerWord, valuesPerWord)
      val perChunk = 1 << log
      val chunkBytes = bytesPerWord * (perChunk / valuesPerWord)
      // Chunks are read by their sizes, so the values' array may run past them: no copy.
      val data = if (f.offset == 0) f.data else bytesOf(f)
      val length = Math.toIntExact(f.dataSize)
      val full = f.count / perChunk
      val chunks = IndexedSeq.newBuilder[MiniBlockChunk]
      var k = 0
      while (k < full) { chunks += MiniBlockChunk(IndexedSeq(chunkBytes), log); k += 1 }
      if (full.toLong * perChunk < f.count) chunks += MiniBlockChunk(IndexedSeq(length - full * chunkBytes), 0)
      new MiniBlockCompressed(IndexedSeq(data), chunks.result(), f.count)
    }

    private def fixedSizeList(l: FixedSizeListValues): (MiniBlockCompressed, CompressiveEncoding) = {
      val (layers, items) = FslLayers.of(l)
      var validityBytes = 0L
      for (layer <- layers if layer.validity != null) validityBytes += (layer.cumulative + 7) / 8
      val rowBits = items.bitsPerValue.toLong * layers.last.cumulative
      val (bytesPerWord, valuesPerWord) = if (rowBits % 8 == 0) (rowBits / 8, 1) else (rowBits, 8)
      // An estimate, as in value.rs: the validity of one row may share its last byte with the next.
      val log = logValuesPerChunk(validityBytes * valuesPerWord + bytesPerWord, valuesPerWord)
      val perChunk = 1 << log
      val rows = l.count
      val numChunks = (rows + perChunk - 1) / perChunk
      val withValidity = layers.filter(_.validity != null)
      // Each chunk's validity starts on a byte: at most ceil(bits / 8) bytes per chunk.
      val validityOut = withValidity.map(layer => new Array[Byte](Math.toIntExact(numChunks * ((perChunk * layer.cumulative + 7) / 8))))
      val validityPos = new Array[Int](withValidity.length)
      val chunks = IndexedSeq.newBuilder[MiniBlockChunk]
      var row = 0
      while (row < rows) {
        val here = math.min(perChunk, rows - row)
        val sizes = new Array[Int](withValidity.length + 1)
        var j = 0
        while (j < withValidity.length) {
          val layer = withValidity(j)
          val bits = Math.toIntExact(here.toLong * layer.cumulative)
          BitCopy.copyBits(layer.validity, Math.toIntExact(row.toLong * layer.cumulative), validityOut(j), validityPos(j) * 8, bits)
          sizes(j) = (bits + 7) / 8
          validityPos(j) += sizes(j)
          j += 1
        }
        sizes(j) = Math.toIntExact((items.bitsPerValue.toLong * here * layers.last.cumulative + 7) / 8)
        chunks += MiniBlockChunk(sizes.toIndexedSeq, if (here == perChunk) log else 0)
        row += here
      }
      val buffers = withValidity.indices.map(j => java.util.Arrays.copyOf(validityOut(j), validityPos(j))) :+ bytesOf(items)
      (new MiniBlockCompressed(buffers, chunks.result(), rows), FslLayers.encoding(layers, items.bitsPerValue))
    }
  }

  /** Block compressor for fixed-width values: the bytes as they are. */
  final class Block(bitsPerValue: Int) extends BlockCompressor {
    val encoding: CompressiveEncoding = CE.Flat(bitsPerValue, None)
    def compress(values: DecodedValues): Array[Byte] = values match {
      case f: FixedWidthValues if f.bitsPerValue == bitsPerValue => bytesOf(f)
      case other => throw new IllegalArgumentException(s"flat $bitsPerValue-bit block encoding cannot hold ${other.describe}")
    }
  }

  /** Per-value compressor for fixed-width values and fixed-size lists (full-zip pages). */
  object PerValue extends PerValueCompressor {
    def compress(values: DecodedValues): (PerValueData, CompressiveEncoding) = values match {
      case f: FixedWidthValues if f.bitsPerValue % 8 == 0 =>
        (PerValueData.Fixed(f.bitsPerValue, bytesOf(f), f.count), CE.Flat(f.bitsPerValue, None))
      case l: FixedSizeListValues =>
        val (layers, items) = FslLayers.of(l)
        val encoding = FslLayers.encoding(layers, items.bitsPerValue)
        val itemBytes = (items.bitsPerValue + 7) / 8
        val rowDataBytes = Math.toIntExact(itemBytes.toLong * layers.last.cumulative)
        val withValidity = layers.filter(_.validity != null)
        if (withValidity.isEmpty) (PerValueData.Fixed(rowDataBytes * 8L, bytesOf(items), l.count), encoding)
        else {
          // Each row carries its own validity bytes in front of its items.
          val rowValidity = withValidity.map(layer => Math.toIntExact((layer.cumulative + 7) / 8))
          val rowBytes = rowValidity.sum + rowDataBytes
          val out = new Array[Byte](Math.multiplyExact(rowBytes, l.count))
          var i = 0
          var o = 0
          while (i < l.count) {
            var j = 0
            while (j < withValidity.length) {
              val layer = withValidity(j)
              val bits = Math.toIntExact(layer.cumulative)
              BitCopy.copyBits(layer.validity, i * bits, out, o * 8, bits)
              o += rowValidity(j)
              j += 1
            }
            System.arraycopy(items.data, items.offset + i * rowDataBytes, out, o, rowDataBytes)
            o += rowDataBytes
            i += 1
          }
          (PerValueData.Fixed(rowBytes * 8L, out, l.count), encoding)
        }
      case other => throw new IllegalArgumentException(s"flat per-value encoding cannot hold ${other.describe}")
    }
  }

  /** One fixed-size list layer: its dimension, items per row down to here, and item validity (or null). */
  private final case class FslLayer(dimension: Int, cumulative: Long, validity: Array[Byte])

  private object FslLayers {
    /** The layers of nested fixed-size lists, outermost first, and the flat items at the bottom. */
    def of(l: FixedSizeListValues): (IndexedSeq[FslLayer], FixedWidthValues) = {
      val layers = IndexedSeq.newBuilder[FslLayer]
      var cur: DecodedValues = l
      var cum = 1L
      while (cur.isInstanceOf[FixedSizeListValues]) {
        val f = cur.asInstanceOf[FixedSizeListValues]
        cum *= f.dimension
        layers += FslLayer(f.dimension, cum, f.itemValidity)
        cur = f.items
      }
      cur match {
        case items: FixedWidthValues => (layers.result(), items)
        case other => throw new IllegalArgumentException(s"fixed-size lists of ${other.describe} are not flat values")
      }
    }

    def encoding(layers: IndexedSeq[FslLayer], itemBits: Int): CompressiveEncoding =
      layers.foldRight(CE.Flat(itemBits, None): CompressiveEncoding)((layer, inner) =>
        CE.FixedSizeList(layer.dimension, layer.validity != null, inner))
  }
}
