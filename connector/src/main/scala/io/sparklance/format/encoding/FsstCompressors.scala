// Spec: lance-format/lance rust/lance-encoding/src/encodings/physical/fsst.rs (`FsstMiniBlockEncoder`,
// `FsstPerValueEncoder`: one FSST table per page, then the compressed strings handed on as plain
// variable-width data) and rust/lance-encoding/src/encodings/physical/binary.rs (`chunk_offsets`,
// `search_next_offset_idx`: the Variable mini-block chunker); the layouts are in VariableLayout.scala.
// Both describe the page as `fsst{symbol_table, values: variable{offsets: flat{32|64}}}`, the offset
// width being the column's (32 for utf8, 64 for large_utf8).
package io.sparklance.format.encoding

import io.sparklance.format.encoding.{CompressiveEncoding => CE}

object FsstCompressors {

  /** FSST over the page, then its codes cut into Variable mini-block chunks. */
  def miniBlock(bitsPerOffset: Int): MiniBlockCompressor = {
    val chunker = new VariableLayout.MiniBlock(bitsPerOffset)
    new MiniBlockCompressor {
      def compress(values: DecodedValues): (MiniBlockCompressed, CE) = {
        val fsst = FsstEncoder.compress(variable(values))
        (chunker.compress(fsst.values)._1, encoding(fsst, bitsPerOffset))
      }
    }
  }

  /** FSST over the page, each value's codes kept on their own for a full-zip page. */
  def perValue(bitsPerOffset: Int): PerValueCompressor = {
    VariableLayout.writerOffsetBytes(bitsPerOffset)
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
}
