package io.sparklance.spark.columns

import org.apache.arrow.vector.FieldVector
import org.apache.spark.sql.types.ArrayType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarArray}

/**
 * Lists (and large lists, `large` = 64-bit offsets): row `i` is items
 * `offset(i) until offset(i + 1)` of the column over the list's item vector.
 */
private[spark] final class ListColumn(sparkType: ArrayType, vector: FieldVector, items: ColumnVector, large: Boolean)
    extends ArrowColumn(sparkType, vector) {
  private[this] val offsets = vector.getOffsetBufferAddress

  override def getArray(rowId: Int): ColumnarArray =
    if (isNullAt(rowId)) null
    else {
      val start = ArrowColumn.offset(offsets, large, rowId)
      new ColumnarArray(items, start.toInt, (ArrowColumn.offset(offsets, large, rowId + 1) - start).toInt)
    }
}
