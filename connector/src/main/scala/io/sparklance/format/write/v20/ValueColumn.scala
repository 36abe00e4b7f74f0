package io.sparklance.format.write.v20

import org.apache.arrow.vector.ValueVector

import io.sparklance.format.proto.ArrayEncodingCodec
import io.sparklance.format.write.EncodedPage

// Spec: rust/lance-encoding/src/previous/encodings/logical/primitive.rs (PrimitiveFieldEncoder)
// and utils/accumulation.rs (AccumulationQueue). One column holding values (fixed-width,
// booleans, nulls, fixed-size lists, strings and binaries, packed structs, blob descriptors).
// Batches are buffered until more than the page budget (cache_bytes_per_column) is held, then
// the whole buffer, the batch that passed the budget included, becomes one page. A batch that
// passes the budget on its own and is larger than 32 MiB becomes ceil(size / 32 MiB) pages of
// equal row counts (do_flush).

private[v20] final class ValueColumn(column: Int, values: PageValues, pageBytes: Long) extends ColumnNode {
  private val pending = Vector.newBuilder[EncodedPage]
  private var buffered = 0L
  // A list whose items are all empty still hands its items column an (empty) batch, and Rust
  // then writes a page of 0 items; `touched` says a batch arrived since the last page.
  private var touched = false

  def numColumns: Int = 1

  def check(v: ValueVector, from: Int, count: Int): Unit = values.check(v, from, count)

  def append(v: ValueVector, from: Int, count: Int): Unit = {
    val size = values.arrowBytes(v, from, count)
    if (!touched && size > pageBytes && size > ArrayEncodingStrategy.MaxPageBytes && count > 1) {
      val parts = math.min((size + ArrayEncodingStrategy.MaxPageBytes - 1) / ArrayEncodingStrategy.MaxPageBytes, count.toLong).toInt
      val rowsPerPart = (count + parts - 1) / parts
      var done = 0
      while (done < count) {
        val n = math.min(rowsPerPart, count - done)
        values.append(v, from + done, n)
        touched = true
        pending += page()
        done += n
      }
    } else {
      values.append(v, from, count)
      touched = true
      buffered += size
      if (buffered > pageBytes) pending += page()
    }
  }

  private def page(): EncodedPage = {
    val out = new PageBuffers
    val encoding = values.encode(out)
    // 2.0 pages carry priority 0 (Rust legacy encoders leave row_number at 0).
    val p = EncodedPage(column, out.result, values.count, 0L, ArrayEncodingCodec.toAny(encoding))
    values.reset()
    buffered = 0
    touched = false
    p
  }

  def ready(): Seq[EncodedPage] = {
    val out = pending.result()
    pending.clear()
    out
  }

  def flush(): Seq[EncodedPage] = {
    if (touched) pending += page()
    ready()
  }

  def finish(): Seq[EncodedPage] = flush()
}
