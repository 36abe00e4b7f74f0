package io.sparklance.spark.columns

import org.apache.arrow.vector.complex.FixedSizeListVector
import org.apache.spark.sql.types.ArrayType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarArray}

/**
 * Fixed-size lists (vectors) as Spark arrays, read in place: row `i` is items
 * `i * size until (i + 1) * size`, so no offsets need to be built.
 */
private[spark] final class FixedSizeListColumn(sparkType: ArrayType, vector: FixedSizeListVector, items: ColumnVector)
    extends ArrowColumn(sparkType, vector) {
  private[this] val size = vector.getListSize

  override def getArray(rowId: Int): ColumnarArray =
    if (isNullAt(rowId)) null else new ColumnarArray(items, rowId * size, size)
}
