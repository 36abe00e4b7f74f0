package io.sparklance.spark.columns

import org.apache.arrow.vector.BitVector
import org.apache.spark.sql.types.BooleanType
import org.apache.spark.unsafe.Platform

/** Booleans, one bit per row (LSB first), as Arrow packs them. */
private[spark] final class BooleanColumn(vector: BitVector) extends ArrowColumn(BooleanType, vector) {
  private[this] val data = vector.getDataBufferAddress

  override def getBoolean(rowId: Int): Boolean =
    (Platform.getByte(null, data + (rowId >> 3)) & (1 << (rowId & 7))) != 0
}
