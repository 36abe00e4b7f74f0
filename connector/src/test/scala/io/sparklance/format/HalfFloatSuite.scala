package io.sparklance.format

import org.scalatest.funsuite.AnyFunSuite

/** HalfFloat against the definition of binary16: exact widening, rounding to the nearest half with ties to even. */
class HalfFloatSuite extends AnyFunSuite {
  private def bits(h: Short): Int = h & 0xffff

  test("every half widens to the float it denotes and narrows back to itself") {
    for (h <- 0 until 0x10000) {
      val f = HalfFloat.toFloat(h.toShort)
      val exponent = (h >>> 10) & 0x1f
      val mantissa = h & 0x3ff
      val sign = if ((h & 0x8000) != 0) -1.0 else 1.0
      if (exponent == 0x1f && mantissa != 0) assert(f.isNaN && HalfFloat.fromFloat(f).toInt.&(0x7e00) == 0x7e00, f"0x$h%04x")
      else {
        val expected =
          if (exponent == 0x1f) sign * Double.PositiveInfinity
          else if (exponent == 0) sign * mantissa * math.pow(2, -24)
          else sign * (1 + mantissa / 1024.0) * math.pow(2, exponent - 15)
        assert(f.toDouble == expected, f"0x$h%04x")
        assert(bits(HalfFloat.fromFloat(f)) == h, f"0x$h%04x")
      }
    }
  }

  test("floats round to the nearest half, ties to even, overflow to infinity") {
    val rnd = new scala.util.Random(7)
    val edges = Seq(65504f, 65519.996f, 65520f, 1e9f, 6.1035156e-5f, 6.097555e-5f, 5.9604645e-8f, 2.9802322e-8f,
      2.9802326e-8f, 1e-10f, 0f, -0f, 1.0004883f, 1.0009766f, 2049f, 2051f)
    val randomFloats = Seq.fill(300000)(java.lang.Float.intBitsToFloat(rnd.nextInt()))
    val inRange = Seq.fill(300000)((rnd.nextDouble() * 2 - 1).toFloat * math.pow(2, rnd.nextInt(40) - 25).toFloat)
    for (f <- (edges ++ edges.map(-_) ++ randomFloats ++ inRange) if !f.isNaN) {
      val h = bits(HalfFloat.fromFloat(f))
      val got = HalfFloat.toFloat(h.toShort).toDouble
      val x = f.toDouble
      if (math.abs(x) >= 65520) assert(got == (if (x > 0) Double.PositiveInfinity else Double.NegativeInfinity), s"$f")
      else {
        assert(math.signum(got) == math.signum(x) || got == 0, s"$f")
        // The neighbours of h in magnitude are no closer; at a tie, h is even.
        for (n <- Seq(h - 1, h + 1) if (n & 0x7fff) <= 0x7bff && (n & 0x8000) == (h & 0x8000) && n >= 0) {
          val other = HalfFloat.toFloat(n.toShort).toDouble
          val (dh, dn) = (math.abs(got - x), math.abs(other - x))
          assert(dh < dn || (dh == dn && (h & 1) == 0), s"$f -> ${HalfFloat.toFloat(h.toShort)} but ${other} is nearer")
        }
      }
    }
  }
}
