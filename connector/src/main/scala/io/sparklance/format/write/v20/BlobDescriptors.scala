package io.sparklance.format.write.v20

import org.apache.arrow.vector.{BaseLargeVariableWidthVector, ValueVector}

import io.sparklance.format.v20.{ArrayEncoding => AE, BufferKind, BufferRef}
import io.sparklance.format.write.{ByteArrayBuilder, OutOfLine}

// Spec: rust/lance-encoding/src/previous/encodings/logical/blob.rs (BlobFieldEncoder) and
// lance-format-facts §14.2. A blob column (`lance-encoding:blob` on a large_binary) stores each
// value's bytes out of line, in the data region as the value arrives (64-byte aligned), and in
// its pages only where: a packed struct of (position u64, size u64) per row, as the packed
// description field Rust encodes them with. A null is (1, 0) and an empty value (0, 0). The
// column says `blob{inner: values{}}` (V20FieldEncoder).

private[v20] final class BlobDescriptors(outOfLine: OutOfLine) extends PageValues {
  private val rows = new ByteArrayBuilder()
  private var n = 0L

  def count: Long = n
  def arrowBytes(v: ValueVector, from: Int, len: Int): Long = len * 16L

  def append(v: ValueVector, from: Int, len: Int): Unit = {
    val b = v.asInstanceOf[BaseLargeVariableWidthVector]
    val out = java.nio.ByteBuffer.wrap(rows.reserve(len * 16L), rows.length, len * 16).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    var i = from
    while (i < from + len) {
      val start = b.getOffsetBuffer.getLong(i.toLong * 8)
      val size = b.getOffsetBuffer.getLong((i + 1).toLong * 8) - start
      if (b.isNull(i)) out.putLong(1L).putLong(0L)
      else if (size == 0) out.putLong(0L).putLong(0L)
      else out.putLong(outOfLine.write(b.getDataBuffer, start, size)).putLong(size)
      i += 1
    }
    rows.advance(len * 16)
    n += len
  }

  def encode(out: PageBuffers): AE = {
    val u64 = AE.NoNulls(AE.Flat(64, BufferRef(0, BufferKind.Page), None))
    AE.PackedStruct(IndexedSeq(u64, u64), out.add(rows.toArray))
  }

  def reset(): Unit = { rows.clear(); n = 0 }
}
