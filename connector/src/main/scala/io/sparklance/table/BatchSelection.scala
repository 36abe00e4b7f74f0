package io.sparklance.table

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{BaseFixedWidthVector, BitVector, BitVectorHelper, FieldVector, VectorSchemaRoot}

/**
 * Copies chosen rows of a batch into new vectors: how a scan drops a batch's deleted rows
 * after decoding the batch whole. Decoding only the live runs instead costs a decoder call and
 * an Arrow piece per run, which for a fragment with every tenth row deleted was most of the
 * time of reading it (and of compacting it).
 */
object BatchSelection {

  /** The rows of `batch` at `rows` (ascending positions in it), as a new batch; `batch` is closed. */
  def select(batch: VectorSchemaRoot, rows: Array[Int], allocator: BufferAllocator): VectorSchemaRoot = {
    val out = new java.util.ArrayList[FieldVector](batch.getFieldVectors.size)
    try batch.getFieldVectors.forEach(v => out.add(select(v, rows, allocator)))
    catch { case t: Throwable => out.forEach(_.close()); throw t }
    finally batch.close()
    val root = new VectorSchemaRoot(out)
    root.setRowCount(rows.length)
    root
  }

  private def select(v: FieldVector, rows: Array[Int], allocator: BufferAllocator): FieldVector = v match {
    case fixed: BaseFixedWidthVector if !fixed.isInstanceOf[BitVector] => selectFixed(fixed, rows, allocator)
    case _ =>
      val out = v.getTransferPair(allocator).getTo.asInstanceOf[FieldVector]
      try {
        out.setInitialCapacity(rows.length)
        out.allocateNew()
        var i = 0
        while (i < rows.length) { out.copyFromSafe(rows(i), i, v); i += 1 }
        out.setValueCount(rows.length)
        out
      } catch { case t: Throwable => out.close(); throw t }
  }

  /** Fixed-width values: each run of consecutive rows is one memory copy. */
  private def selectFixed(v: BaseFixedWidthVector, rows: Array[Int], allocator: BufferAllocator): FieldVector = {
    val out = v.getTransferPair(allocator).getTo.asInstanceOf[BaseFixedWidthVector]
    try {
      val n = rows.length
      out.allocateNew(n)
      val width = v.getTypeWidth.toLong
      val (src, dst) = (v.getDataBuffer, out.getDataBuffer)
      var i = 0
      while (i < n) {
        var j = i + 1
        while (j < n && rows(j) == rows(j - 1) + 1) j += 1
        dst.setBytes(i * width, src, rows(i) * width, (j - i) * width)
        i = j
      }
      // allocateNew cleared the validity bits: set those of the rows that hold a value.
      val validity = out.getValidityBuffer
      if (v.getNullCount == 0) {
        validity.setOne(0, n / 8)
        var k = n / 8 * 8
        while (k < n) { BitVectorHelper.setBit(validity, k); k += 1 }
      } else {
        var k = 0
        while (k < n) { if (!v.isNull(rows(k))) BitVectorHelper.setBit(validity, k); k += 1 }
      }
      out.setValueCount(n)
      out
    } catch { case t: Throwable => out.close(); throw t }
  }
}
