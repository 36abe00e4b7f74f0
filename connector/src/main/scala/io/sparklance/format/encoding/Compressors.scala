// Spec: lance-format/lance rust/lance-encoding/src/compression.rs (BlockCompressor,
// CompressionStrategy), encodings/logical/primitive/miniblock.rs (MiniBlockCompressor,
// MiniBlockCompressed, MiniBlockChunk) and encodings/logical/primitive/fullzip.rs
// (PerValueCompressor). The write-side half of each compressive encoding: values in, bytes and
// the CompressiveEncoding that the matching decoder in this package reads back out.
//
// A 2.1+ page is compressed in one of three shapes, chosen by its structural layout:
//  - mini-block: the page's values cut into small independently decodable chunks;
//  - block: one opaque buffer (rep/def levels inside a chunk, dictionaries);
//  - per value: each value on its own, so that full-zip pages can locate any one value.
package io.sparklance.format.encoding

/**
 * The size of one mini-block chunk: the bytes it takes in each of the compressed buffers, and
 * log2 of its value count (0 for the last chunk of a page, whose count is what is left).
 * Every chunk but the last holds a power of two values, at most 4096.
 */
final case class MiniBlockChunk(bufferSizes: IndexedSeq[Int], logNumValues: Int)

object MiniBlockChunk {
  /**
   * The most bytes the fixed-size chunkers aim a chunk's values at (miniblock.rs
   * `MAX_MINIBLOCK_BYTES`, 8 KiB less the 6 header bytes of a chunk with one value buffer).
   */
  final val MaxBytes = 8 * 1024 - 6
  /** The most values one chunk holds (miniblock.rs `MAX_MINIBLOCK_VALUES`, 2^12). */
  final val MaxValues = 4096
}

/**
 * A page's values compressed into chunks. `buffers(b)` holds buffer `b` of every chunk back to
 * back (chunk `k`'s part is `chunks(k).bufferSizes(b)` bytes long); the page writer interleaves
 * them chunk by chunk. Every chunk has the same number of buffers.
 */
final class MiniBlockCompressed(val buffers: IndexedSeq[Array[Byte]], val chunks: IndexedSeq[MiniBlockChunk], val numValues: Long) {
  def numBuffers: Int = buffers.length
}

/** Compresses a page of values into mini-block chunks (fixed-width, variable-width, FSL, packed struct). */
trait MiniBlockCompressor {
  def compress(values: DecodedValues): (MiniBlockCompressed, CompressiveEncoding)
}

/**
 * Compresses values into one opaque buffer that is only ever decoded whole (a chunk's rep/def
 * levels, a page dictionary). The encoding is chosen, and known, before compressing.
 */
trait BlockCompressor {
  def encoding: CompressiveEncoding
  def compress(values: DecodedValues): Array[Byte]
}

/** Per-value output: every value fixed width (`bitsPerValue`) or each with its own length. */
sealed trait PerValueData
object PerValueData {
  /** `count` values of `bitsPerValue` bits (a multiple of 8) each, back to back. */
  final case class Fixed(bitsPerValue: Long, data: Array[Byte], count: Int) extends PerValueData
  /** Values of their own lengths; `bitsPerOffset` (32 or 64) is the width a full-zip page stores each length in. */
  final case class Variable(bitsPerOffset: Int, values: VariableData) extends PerValueData
}

/** Compresses each value independently, as full-zip pages need. */
trait PerValueCompressor {
  def compress(values: DecodedValues): (PerValueData, CompressiveEncoding)
}
