package io.sparklance.format.encoding

/** Bit-level copies between LSB-first bitmaps (Arrow validity, boolean values, item validity). */
object BitCopy {
  def getBit(src: Array[Byte], i: Int): Boolean = ((src(i >>> 3) >>> (i & 7)) & 1) != 0

  def setBit(dst: Array[Byte], i: Int): Unit = dst(i >>> 3) = (dst(i >>> 3) | (1 << (i & 7))).toByte

  /** Copies `n` bits from `src` starting at bit `srcBit` to `dst` starting at bit `dstBit` (dst bits are OR-ed). */
  def copyBits(src: Array[Byte], srcBit: Int, dst: Array[Byte], dstBit: Int, n: Int): Unit = {
    if ((srcBit & 7) == 0 && (dstBit & 7) == 0) {
      val full = n >>> 3
      System.arraycopy(src, srcBit >>> 3, dst, dstBit >>> 3, full)
      var i = full << 3
      while (i < n) { if (getBit(src, srcBit + i)) setBit(dst, dstBit + i); i += 1 }
    } else {
      var i = 0
      while (i < n) { if (getBit(src, srcBit + i)) setBit(dst, dstBit + i); i += 1 }
    }
  }

  /** How many of the first `n` bits of `bits` are unset: the nulls of a validity bitmap. */
  def countUnset(bits: Array[Byte], n: Int): Int = {
    var set = 0
    val words = n >>> 6
    var w = 0
    while (w < words) { set += java.lang.Long.bitCount(io.sparklance.util.LittleEndian.getLong(bits, w << 3)); w += 1 }
    var i = words << 6
    while (i < n) { if (getBit(bits, i)) set += 1; i += 1 }
    n - set
  }
}
