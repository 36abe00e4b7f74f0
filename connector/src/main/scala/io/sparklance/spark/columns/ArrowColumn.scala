package io.sparklance.spark.columns

import org.apache.arrow.vector.FieldVector
import org.apache.spark.sql.types.{DataType, Decimal}
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarArray, ColumnarMap}
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

/**
 * A Spark column over one Arrow vector of the current batch. Spark's own ArrowColumnVector
 * reads every value through Arrow's bounds- and null-checked getters behind a second,
 * polymorphic accessor layer; these columns read the Arrow buffers directly with
 * [[Platform]] at addresses taken once per batch, as Spark's off-heap columns do. The
 * addresses stay valid while the batch does: the reader frees the vectors only on its next
 * `next()` or `close()`, so `close()` here has nothing to release.
 *
 * Each subclass implements the getters of its family; the others keep Spark's contract of
 * throwing when called for a type the column does not have.
 */
private[spark] abstract class ArrowColumn(sparkType: DataType, vector: FieldVector) extends ColumnVector(sparkType) {
  // Counted once per batch, unchecked (Arrow counts the bitmap through bounds-checked reads
  // on every call); a column without nulls never reads its bitmap again.
  private[this] val nulls = ArrowColumn.nullCount(vector)
  private[this] val validity = if (nulls == 0) 0L else vector.getValidityBufferAddress

  override final def hasNull: Boolean = nulls > 0
  override final def numNulls: Int = nulls

  override final def isNullAt(rowId: Int): Boolean =
    nulls != 0 && (Platform.getByte(null, validity + (rowId >> 3)) & (1 << (rowId & 7))) == 0

  override final def close(): Unit = ()

  private def unsupported(what: String) =
    new UnsupportedOperationException(s"$what of a column of type ${sparkType.simpleString}")

  override def getBoolean(rowId: Int): Boolean = throw unsupported("getBoolean")
  override def getByte(rowId: Int): Byte = throw unsupported("getByte")
  override def getShort(rowId: Int): Short = throw unsupported("getShort")
  override def getInt(rowId: Int): Int = throw unsupported("getInt")
  override def getLong(rowId: Int): Long = throw unsupported("getLong")
  override def getFloat(rowId: Int): Float = throw unsupported("getFloat")
  override def getDouble(rowId: Int): Double = throw unsupported("getDouble")
  override def getDecimal(rowId: Int, precision: Int, scale: Int): Decimal = throw unsupported("getDecimal")
  override def getUTF8String(rowId: Int): UTF8String = throw unsupported("getUTF8String")
  override def getBinary(rowId: Int): Array[Byte] = throw unsupported("getBinary")
  override def getArray(rowId: Int): ColumnarArray = throw unsupported("getArray")
  override def getMap(rowId: Int): ColumnarMap = throw unsupported("getMap")
  override def getChild(ordinal: Int): ColumnVector = throw unsupported("getChild")
}

private[columns] object ArrowColumn {
  /** Unset bits among the first `getValueCount` of the vector's validity bitmap. */
  def nullCount(vector: FieldVector): Int = {
    val n = vector.getValueCount
    if (n == 0) return 0
    val address = vector.getValidityBufferAddress
    var set = 0
    val words = n >>> 6
    var w = 0
    while (w < words) { set += java.lang.Long.bitCount(Platform.getLong(null, address + 8L * w)); w += 1 }
    var i = words << 6
    while (i < n) { set += (Platform.getByte(null, address + (i >>> 3)) >>> (i & 7)) & 1; i += 1 }
    n - set
  }

  /** Row `i`'s entry in an Arrow offsets buffer of 32-bit (or, when `large`, 64-bit) offsets. */
  @inline def offset(address: Long, large: Boolean, i: Int): Long =
    if (large) Platform.getLong(null, address + 8L * i) else Platform.getInt(null, address + 4L * i)
}
