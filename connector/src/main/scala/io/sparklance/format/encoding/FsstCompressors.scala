// Spec: lance-format/lance rust/lance-encoding/src/encodings/physical/fsst.rs (`FsstMiniBlockEncoder`,
// `FsstPerValueEncoder`: one FSST table per page, then the compressed strings handed on as plain
// variable-width data) and rust/lance-encoding/src/encodings/physical/binary.rs (`chunk_offsets`,
// `search_next_offset_idx`: the Variable mini-block chunker); the layouts are in VariableLayout.scala.
// Both describe the page as `fsst{symbol_table, values: variable{offsets: flat{32|64}}}`, the offset
// width being the column's (32 for utf8, 64 for large_utf8).
package io.sparklance.format.encoding

import io.sparklance.format.encoding.{CompressiveEncoding => CE}
import io.sparklance.util.LittleEndian

object FsstCompressors {

  /** FSST over the page, then its codes cut into Variable mini-block chunks. */
  def miniBlock(bitsPerOffset: Int): MiniBlockCompressor = {
    val width = offsetBytes(bitsPerOffset)
    new MiniBlockCompressor {
      def compress(values: DecodedValues): (MiniBlockCompressed, CE) = {
        val fsst = FsstEncoder.compress(variable(values))
        (VariableChunks.chunk(fsst.values, width), encoding(fsst, bitsPerOffset))
      }
    }
  }

  /** FSST over the page, each value's codes kept on their own for a full-zip page. */
  def perValue(bitsPerOffset: Int): PerValueCompressor = {
    offsetBytes(bitsPerOffset)
    new PerValueCompressor {
      def compress(values: DecodedValues): (PerValueData, CE) = {
        val fsst = FsstEncoder.compress(variable(values))
        (PerValueData.Variable(bitsPerOffset, fsst.values), encoding(fsst, bitsPerOffset))
      }
    }
  }

  private def encoding(fsst: FsstCompressed, bitsPerOffset: Int): CE =
    CE.Fsst(fsst.symbolTable, CE.Variable(CE.Flat(bitsPerOffset, None), None))

  private def variable(values: DecodedValues): VariableData = values match {
    case v: VariableData => v
    case other => throw new IllegalArgumentException(s"FSST compresses variable-width values, not ${other.describe}")
  }

  private def offsetBytes(bits: Int): Int = bits match {
    case 32 => 4
    case 64 => 8
    case _ => throw new IllegalArgumentException(s"offsets must be 32 or 64 bits, not $bits")
  }

  /**
   * The Variable mini-block chunker of binary.rs. Each chunk is its values' offsets (counted from
   * the chunk's start, so the first is (n+1)·width) then their bytes, padded with 'H' to the
   * offset width. A chunk takes 2, 4, 8, .. values while they fit in 4 KiB with their offsets
   * (so fewer than 1024; Lance's cap of 4096 values never binds at this size), and always at
   * least 2; the last chunk takes the rest when it fits.
   * TODO(#18): the same chunker as the plain Variable mini-block writer; merge the two.
   */
  private object VariableChunks {
    private final val AimChunkBytes = 4 * 1024

    def chunk(data: VariableData, width: Int): MiniBlockCompressed = {
      val offsets = data.offsets
      val count = data.count
      // Chunk k holds values [ends(k-1), ends(k)).
      var ends = new Array[Int](16)
      var numChunks = 0
      var total = 0L
      var last = 0
      var done = false
      while (!done) {
        val end = nextEnd(offsets, count, last, width)
        if (numChunks == ends.length) ends = java.util.Arrays.copyOf(ends, numChunks * 2)
        ends(numChunks) = end
        numChunks += 1
        total += padded(offsets, last, end, width)
        last = end
        done = end == count
      }
      if (total > GeneralCompression.MaxArrayBytes) throw new IllegalArgumentException(s"$total bytes of chunks in one page")
      val out = new Array[Byte](total.toInt)
      val chunks = new Array[MiniBlockChunk](numChunks)
      var at = 0
      var start = 0
      var k = 0
      while (k < numChunks) {
        val end = ends(k)
        val size = padded(offsets, start, end, width)
        val n = end - start
        val bytesStart = (n + 1) * width
        val base = offsets(start)
        var i = 0
        while (i <= n) {
          val o = bytesStart + offsets(start + i) - base
          if (width == 4) LittleEndian.putInt(out, at + 4 * i, o) else LittleEndian.putLong(out, at + 8 * i, o.toLong)
          i += 1
        }
        val len = offsets(end) - base
        System.arraycopy(data.bytes, base, out, at + bytesStart, len)
        java.util.Arrays.fill(out, at + bytesStart + len, at + size, VariableLayout.MiniBlockPad)
        chunks(k) = MiniBlockChunk(Vector(size), if (end == count) 0 else Integer.numberOfTrailingZeros(n))
        at += size
        start = end
        k += 1
      }
      new MiniBlockCompressed(Vector(out), chunks.toVector, count.toLong)
    }

    private def padded(offsets: Array[Int], from: Int, until: Int, width: Int): Int = {
      val size = (until - from + 1) * width + offsets(until) - offsets(from)
      (size + width - 1) / width * width
    }

    /** binary.rs `search_next_offset_idx`: where the chunk that starts at value `last` ends. */
    private def nextEnd(offsets: Array[Int], count: Int, last: Int, width: Int): Int = {
      if (count - last <= 1) return count
      var taken = 2
      var trying = 4
      var end = -1
      while (end < 0) {
        if (last + trying > count) {
          val rest = offsets(count) - offsets(last) + (count + 1 - last).toLong * width
          end = if (rest <= AimChunkBytes) count else last + taken
        } else {
          val size = offsets(last + trying) - offsets(last) + (trying + 1).toLong * width
          if (size > AimChunkBytes) end = last + taken
          else { taken = trying; trying *= 2 }
        }
      }
      end
    }
  }
}
