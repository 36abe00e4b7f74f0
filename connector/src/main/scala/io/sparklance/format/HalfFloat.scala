package io.sparklance.format

/**
 * IEEE 754 binary16 (Lance's `halffloat`, Arrow's HALF) to and from float, by bits. Our own
 * because the Arrow of Spark 3.5 (12) has neither Float16 nor a half-float vector; every line
 * uses it so that all of them round alike: to the nearest half, ties to even, as numpy and
 * Rust's `half` crate do.
 */
object HalfFloat {
  private val SubnormalUnit = 5.9604645e-8f // 2^-24, the smallest subnormal half

  def toFloat(half: Short): Float = {
    val h = half & 0xffff
    val sign = (h & 0x8000) << 16
    val exponent = (h >>> 10) & 0x1f
    val mantissa = h & 0x3ff
    if (exponent == 0x1f) java.lang.Float.intBitsToFloat(sign | 0x7f800000 | (mantissa << 13)) // infinity or NaN
    else if (exponent != 0) java.lang.Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13))
    else { val magnitude = mantissa * SubnormalUnit; if (sign != 0) -magnitude else magnitude } // exact: mantissa < 2^10
  }

  def fromFloat(f: Float): Short = {
    val bits = java.lang.Float.floatToRawIntBits(f)
    val sign = (bits >>> 16) & 0x8000
    val magnitude = bits & 0x7fffffff
    val half =
      if (magnitude > 0x7f800000) 0x7e00 | ((magnitude >>> 13) & 0x3ff) // NaN stays NaN (quiet), payload's top bits kept
      else if (magnitude >= 0x477ff000) 0x7c00 // 65520 and above (infinity too) round to infinity
      else if (magnitude >= 0x38800000) // a normal half: drop 13 mantissa bits rounding to even, rebias the exponent (127 -> 15)
        (magnitude + 0xfff + ((magnitude >>> 13) & 1) - (112 << 23)) >>> 13
      else if (magnitude >= 0x33000000) { // a subnormal half: count units of 2^-24, rounding to even
        val shift = 126 - (magnitude >>> 23)
        val significand = (magnitude & 0x7fffff) | 0x800000
        val units = significand >>> shift
        val rest = significand & ((1 << shift) - 1)
        val tie = 1 << (shift - 1)
        if (rest > tie || (rest == tie && (units & 1) == 1)) units + 1 else units
      } else 0 // below half the smallest subnormal: zero
    (sign | half).toShort
  }
}
