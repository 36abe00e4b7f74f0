package io.sparklance.spark.columns

import org.apache.arrow.vector.complex.StructVector
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnVector

/** Structs: Spark reads a member's values from the member's own column (`getChild`). */
private[spark] final class StructColumn(sparkType: StructType, vector: StructVector, members: Array[ColumnVector])
    extends ArrowColumn(sparkType, vector) {
  override def getChild(ordinal: Int): ColumnVector = members(ordinal)
}
