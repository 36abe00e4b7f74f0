package io.sparklance.format.write

import org.apache.arrow.vector.ValueVector

import io.sparklance.format.EncodingAny

// Spec: rust/lance-encoding/src/encoder.rs (FieldEncoder, EncodedPage). A field encoder turns
// the values of one top-level field into pages of one or more columns (2.1+: one column per
// leaf; 2.0: one per field and nested field), buffering up to the writer's per-column budget.

/** One page of file column `column`, ready to be written: its buffers, the rows it covers and how it is encoded. */
final case class EncodedPage(column: Int, buffers: IndexedSeq[Array[Byte]], numRows: Long, firstRow: Long, encoding: EncodingAny)

trait FieldEncoder {
  /** The columns this field takes, in file order. */
  def numColumns: Int
  /**
   * Throws for values among rows `[from, from + count)` that the file's format version cannot
   * store (2.0: null structs). The writer checks every field of a batch before any field
   * buffers it, so a refused batch leaves the file as it was.
   */
  def check(vector: ValueVector, from: Int, count: Int): Unit = ()
  /**
   * Buffers rows `[from, from + count)` of `vector`, the field's values in the batch, and hands
   * `out` each page as it fills up: a column holds about its page budget, never a batch (2.0
   * excepted, whose pages end with the batch that passed the budget, as Rust's do). `out` must be
   * done with a page's buffers when it returns: they may share arrays the encoder then reuses.
   */
  def append(vector: ValueVector, from: Int, count: Int, out: EncodedPage => Unit): Unit
  /** Every buffered row as pages, handed to `out` as `append` does: the end of the file. */
  def finish(out: EncodedPage => Unit): Unit
  /** The column-level encoding of each column. */
  def columnEncodings: IndexedSeq[EncodingAny]
}
