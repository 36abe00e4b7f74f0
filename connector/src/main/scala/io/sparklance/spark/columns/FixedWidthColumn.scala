package io.sparklance.spark.columns

import org.apache.arrow.vector.BaseFixedWidthVector
import org.apache.spark.sql.types.DataType
import org.apache.spark.unsafe.Platform

/**
 * Numbers and the types Spark stores as numbers (dates as days, timestamps, durations in
 * microseconds, times in nanoseconds): row `i` is the little-endian value at `i * width`.
 * Spark calls only the getter of the column's own type.
 */
private[spark] final class FixedWidthColumn(sparkType: DataType, vector: BaseFixedWidthVector) extends ArrowColumn(sparkType, vector) {
  private[this] val data = vector.getDataBufferAddress

  override def getByte(rowId: Int): Byte = Platform.getByte(null, data + rowId)
  override def getShort(rowId: Int): Short = Platform.getShort(null, data + 2L * rowId)
  override def getInt(rowId: Int): Int = Platform.getInt(null, data + 4L * rowId)
  override def getLong(rowId: Int): Long = Platform.getLong(null, data + 8L * rowId)
  override def getFloat(rowId: Int): Float = Platform.getFloat(null, data + 4L * rowId)
  override def getDouble(rowId: Int): Double = Platform.getDouble(null, data + 8L * rowId)

  // Runs of values (ColumnarArray.toIntArray and friends, used when Spark copies an array)
  // are one memory copy rather than a getter call per value.
  override def getBytes(rowId: Int, count: Int): Array[Byte] = copy(new Array[Byte](count), Platform.BYTE_ARRAY_OFFSET, rowId, count, 1)
  override def getShorts(rowId: Int, count: Int): Array[Short] = copy(new Array[Short](count), Platform.SHORT_ARRAY_OFFSET, rowId, count, 2)
  override def getInts(rowId: Int, count: Int): Array[Int] = copy(new Array[Int](count), Platform.INT_ARRAY_OFFSET, rowId, count, 4)
  override def getLongs(rowId: Int, count: Int): Array[Long] = copy(new Array[Long](count), Platform.LONG_ARRAY_OFFSET, rowId, count, 8)
  override def getFloats(rowId: Int, count: Int): Array[Float] = copy(new Array[Float](count), Platform.FLOAT_ARRAY_OFFSET, rowId, count, 4)
  override def getDoubles(rowId: Int, count: Int): Array[Double] = copy(new Array[Double](count), Platform.DOUBLE_ARRAY_OFFSET, rowId, count, 8)

  private def copy[A](array: A, arrayOffset: Int, rowId: Int, count: Int, width: Int): A = {
    Platform.copyMemory(null, data + width.toLong * rowId, array, arrayOffset, width.toLong * count)
    array
  }
}
