package io.sparklance.spark.columns

import org.apache.arrow.vector.FieldVector
import org.apache.spark.sql.types.DataType
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

/**
 * Strings and binaries (and their large variants, `large` = 64-bit offsets): row `i` is
 * bytes `offset(i) until offset(i + 1)` of the data buffer. Strings point into the Arrow
 * buffer without a copy, as Spark's off-heap string columns do; binaries are copied, since
 * Spark's contract is a byte array.
 */
private[spark] final class VariableWidthColumn(sparkType: DataType, vector: FieldVector, large: Boolean) extends ArrowColumn(sparkType, vector) {
  private[this] val offsets = vector.getOffsetBufferAddress
  private[this] val data = vector.getDataBufferAddress

  override def getUTF8String(rowId: Int): UTF8String =
    if (isNullAt(rowId)) null
    else {
      val start = ArrowColumn.offset(offsets, large, rowId)
      UTF8String.fromAddress(null, data + start, (ArrowColumn.offset(offsets, large, rowId + 1) - start).toInt)
    }

  override def getBinary(rowId: Int): Array[Byte] =
    if (isNullAt(rowId)) null
    else {
      val start = ArrowColumn.offset(offsets, large, rowId)
      val bytes = new Array[Byte]((ArrowColumn.offset(offsets, large, rowId + 1) - start).toInt)
      Platform.copyMemory(null, data + start, bytes, Platform.BYTE_ARRAY_OFFSET, bytes.length)
      bytes
    }
}
