package io.sparklance.spark.columns

import org.apache.arrow.vector.complex.MapVector
import org.apache.spark.sql.types.MapType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarMap}

/**
 * Maps: a list of key-value entries. Row `i` is entries `offset(i) until offset(i + 1)` of
 * the columns over the entries' keys and values.
 */
private[spark] final class MapColumn(sparkType: MapType, vector: MapVector, keys: ColumnVector, values: ColumnVector)
    extends ArrowColumn(sparkType, vector) {
  private[this] val offsets = vector.getOffsetBufferAddress

  override def getMap(rowId: Int): ColumnarMap =
    if (isNullAt(rowId)) null
    else {
      val start = ArrowColumn.offset(offsets, large = false, rowId)
      new ColumnarMap(keys, values, start.toInt, (ArrowColumn.offset(offsets, large = false, rowId + 1) - start).toInt)
    }
}
