package io.sparklance.spark.columns

import java.math.{BigDecimal => JBigDecimal, BigInteger}

import org.apache.arrow.vector.DecimalVector
import org.apache.spark.sql.types.{Decimal, DecimalType}
import org.apache.spark.unsafe.Platform

/**
 * Decimals of up to 38 digits: Arrow stores each unscaled value as a 128-bit little-endian
 * two's complement integer. Spark passes the column's own precision and scale.
 */
private[spark] final class DecimalColumn(sparkType: DecimalType, vector: DecimalVector) extends ArrowColumn(sparkType, vector) {
  private[this] val data = vector.getDataBufferAddress

  override def getDecimal(rowId: Int, precision: Int, scale: Int): Decimal =
    if (isNullAt(rowId)) null
    else {
      val address = data + 16L * rowId
      val low = Platform.getLong(null, address)
      // Up to 18 digits the value is the low word (Spark's compact form, no checks needed);
      // wider columns still hold mostly values that fit in a long: the high word is then
      // only the sign extension of the low one.
      if (precision <= Decimal.MAX_LONG_DIGITS) Decimal.createUnsafe(low, precision, scale)
      else if (Platform.getLong(null, address + 8) == (low >> 63)) Decimal(low, precision, scale)
      else {
        val bigEndian = Array.tabulate[Byte](16)(i => Platform.getByte(null, address + 15 - i))
        Decimal(new JBigDecimal(new BigInteger(bigEndian), scale), precision, scale)
      }
    }
}
