package io.sparklance.format.encoding

import io.sparklance.format.encoding.EncodingFixtures._
import io.sparklance.util.CorruptFileException
import org.scalatest.funsuite.AnyFunSuite

class OutOfLineBitpackingSuite extends AnyFunSuite {

  private def encode(t: Int, v: Array[Long], w: Int): Array[Byte] = t match {
    case 8 => OutOfLineBitpacking.encode8(v.map(_.toByte), 0, v.length, w)
    case 16 => OutOfLineBitpacking.encode16(v.map(_.toShort), 0, v.length, w)
    case 32 => OutOfLineBitpacking.encode32(v.map(_.toInt), 0, v.length, w)
    case 64 => OutOfLineBitpacking.encode64(v, 0, v.length, w)
  }

  private def decode(t: Int, b: Array[Byte], w: Int, n: Int): Array[Long] = longs(OutOfLineBitpacking.decode(t, bytes(b), w, n))

  for (t <- Seq(8, 16, 32, 64)) {
    test(s"$t-bit: round trip at every width 0..$t for 1, 1023, 1024, 1025 and 3000 values") {
      for (w <- 0 to t; n <- Seq(1, 1023, 1024, 1025, 3000)) {
        val values = valuesOfWidth(17L * w + n, n, w)
        val enc = encode(t, values, w)
        assert(decode(t, enc, w, n).sameElements(values), s"T=$t W=$w n=$n")
      }
    }

    test(s"$t-bit: the tail is packed or raw by the writer's cost rule, and both decode") {
      val w = t / 4
      val perBlock = 1024 * w / t
      // 1000-value tail: padding 24 values at W bits is cheaper than storing 1000 raw → packed.
      val long = valuesOfWidth(5, 1024 + 1000, w)
      assert(encode(t, long, w).length == (2 * perBlock) * t / 8)
      assert(decode(t, encode(t, long, w), w, long.length).sameElements(long))
      // 3-value tail: raw words are cheaper than a padded block.
      val short = valuesOfWidth(6, 1024 + 3, w)
      assert(encode(t, short, w).length == (perBlock + 3) * t / 8)
      assert(decode(t, encode(t, short, w), w, short.length).sameElements(short))
      // At W = T padding never pays, so the tail is always raw.
      val full = valuesOfWidth(7, 1500, t)
      assert(encode(t, full, t).length == 1500 * t / 8)
      assert(decode(t, encode(t, full, t), t, 1500).sameElements(full))
    }

    test(s"$t-bit: wrong width, length or count is a CorruptFile error") {
      val w = t / 2
      val values = valuesOfWidth(8, 2500, w)
      val enc = encode(t, values, w)
      intercept[CorruptFileException](decode(t, enc, t + 1, 2500))
      intercept[CorruptFileException](decode(t, enc, -1, 2500))
      intercept[CorruptFileException](decode(t, enc, w, -5))
      intercept[CorruptFileException](decode(t, enc, w + 1, 2500))
      intercept[CorruptFileException](decode(t, enc, w, 5000))
      intercept[CorruptFileException](decode(t, enc, w, Int.MaxValue))
      for (cut <- Seq(1, enc.length / 2, enc.length - t / 8))
        intercept[CorruptFileException](decode(t, java.util.Arrays.copyOf(enc, cut), w, 2500))
      if (t > 8) intercept[CorruptFileException](decode(t, java.util.Arrays.copyOf(enc, enc.length - 1), w, 2500))
    }

    test(s"$t-bit: damaged buffers raise CorruptFile or decode, never anything else") {
      val enc = encode(t, valuesOfWidth(9, 2100, 5), 5)
      for ((what, b) <- damaged(enc, t); w <- Seq(5, 0, t)) corruptOrOk(what)(decode(t, b, w, 2100))
    }
  }

  test("bit width helpers read values as unsigned") {
    assert(OutOfLineBitpacking.bitWidth8(Array[Byte](-1, 0), 0, 2) == 8)
    assert(OutOfLineBitpacking.bitWidth16(Array[Short](1, 2, 4), 0, 3) == 3)
    assert(OutOfLineBitpacking.bitWidth32(Array(0, 0), 0, 2) == 0)
    assert(OutOfLineBitpacking.bitWidth64(Array(-1L), 0, 1) == 64)
  }

  test("encoding refuses a width too narrow for the values") {
    intercept[IllegalArgumentException](OutOfLineBitpacking.encode32(Array(8), 0, 1, 3))
  }
}
