// Spec: lance-format/lance rust/lance-encoding/src/encodings/physical/general.rs
// (`GeneralMiniBlockCompressor`) and physical/block.rs (`CompressedBufferEncoder`, its block and
// per-value forms); protos/encodings_v2_1.proto `General`. The decoders are the General cases of
// ValueDecoders.miniBlock / .block and FullZipPage; the buffer framing is GeneralCompression's.
//
// General compression (zstd, lz4) wraps another encoding:
//  * mini-block: only value buffer 0 of each chunk is compressed, chunk by chunk. The wrapper
//    is dropped (the inner result returned as it is) when buffer 0 holds less than 4 KiB in all
//    or when compressing it does not make it smaller;
//  * block (2.2: large dictionaries and levels, or when asked): the whole inner block;
//  * per value (full-zip): each value on its own, under a Variable description.
package io.sparklance.format.encoding

import io.sparklance.format.encoding.{CompressiveEncoding => CE}

object General {

  /** Below this many bytes of value buffer 0, a mini-block page is left uncompressed (general.rs). */
  final val MinMiniBlockBytes = 4 * 1024

  /** Compression the Rust writer picks when it compresses on its own: zstd at level 0 (zstd's default). */
  val DefaultCompression: BufferCompression = BufferCompression(CompressionScheme.Zstd, Some(0))

  final class MiniBlock(inner: MiniBlockCompressor, compression: BufferCompression) extends MiniBlockCompressor {
    def compress(values: DecodedValues): (MiniBlockCompressed, CompressiveEncoding) = {
      val (plain, encoding) = inner.compress(values)
      if (plain.numBuffers == 0 || plain.buffers(0).length < MinMiniBlockBytes) return (plain, encoding)
      val first = plain.buffers(0)
      val c = new GeneralCompression.Compressor(compression)
      try {
        var bound = 0L
        plain.chunks.foreach(ch => bound += c.bound(ch.bufferSizes(0)))
        val out = new Array[Byte](Math.toIntExact(bound))
        var in = 0
        var at = 0
        val chunks = plain.chunks.map { ch =>
          val n = c.compress(first, in, ch.bufferSizes(0), out, at)
          in += ch.bufferSizes(0)
          at += n
          ch.copy(bufferSizes = ch.bufferSizes.updated(0, n))
        }
        if (at >= first.length) (plain, encoding)
        else (new MiniBlockCompressed(java.util.Arrays.copyOf(out, at) +: plain.buffers.tail, chunks, plain.numValues),
          CE.General(compression, encoding))
      } finally c.close()
    }
  }

  /** A whole block compressed: the inner block compressor's output, framed as GeneralCompression frames it. */
  final class Block(inner: BlockCompressor, compression: BufferCompression) extends BlockCompressor {
    val encoding: CompressiveEncoding = CE.General(compression, inner.encoding)
    def compress(values: DecodedValues): Array[Byte] = GeneralCompression.compress(compression, inner.compress(values))
  }

  /** Each value compressed on its own (block.rs `CompressedBufferEncoder` as a per-value compressor). */
  final class PerValue(bitsPerOffset: Int, compression: BufferCompression) extends PerValueCompressor {
    def compress(values: DecodedValues): (PerValueData, CompressiveEncoding) = values match {
      case v: VariableData =>
        val c = new GeneralCompression.Compressor(compression)
        try {
          var bound = 0L
          var i = 0
          while (i < v.count) { bound = math.max(bound, c.bound(v.length(i)).toLong); i += 1 }
          val scratch = new Array[Byte](Math.toIntExact(bound))
          val out = new VariableDataBuilder(v.count, v.dataLength / 2)
          i = 0
          while (i < v.count) {
            val n = c.compress(v.bytes, v.offsets(i), v.length(i), scratch, 0)
            out.append(scratch, 0, n)
            i += 1
          }
          (PerValueData.Variable(bitsPerOffset, out.result()), CE.General(compression, CE.Variable(CE.Flat(bitsPerOffset, None), None)))
        } finally c.close()
      case other => throw new IllegalArgumentException(s"general per-value compression cannot hold ${other.describe}")
    }
  }
}
