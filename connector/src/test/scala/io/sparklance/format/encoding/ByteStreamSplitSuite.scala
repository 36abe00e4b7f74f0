package io.sparklance.format.encoding

import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.format.encoding.EncodingFixtures._
import io.sparklance.util.CorruptFileException
import org.scalatest.funsuite.AnyFunSuite

class ByteStreamSplitSuite extends AnyFunSuite {

  test("32-bit: byte planes are laid out plane-major") {
    val enc = ByteStreamSplit.encode32(Array(0x04030201, 0x14131211), 0, 2)
    assert(enc.sameElements(Array[Byte](0x01, 0x11, 0x02, 0x12, 0x03, 0x13, 0x04, 0x14)))
    assert(ByteStreamSplit.decode32(bytes(enc), 2).sameElements(Array(0x04030201, 0x14131211)))
    // The byte form is the values' little-endian bytes.
    assert(ByteStreamSplit.decode(bytes(enc), 32, 2).sameElements(Array[Byte](1, 2, 3, 4, 0x11, 0x12, 0x13, 0x14)))
  }

  test("floats and doubles round trip through their bit patterns") {
    val floats = Array(0f, -0f, 1.5f, -3.25e-7f, Float.MaxValue, Float.MinPositiveValue, Float.NaN, Float.NegativeInfinity)
    for (n <- Seq(0, 1, 7, floats.length)) {
      val bits = floats.take(n).map(java.lang.Float.floatToRawIntBits)
      val enc = ByteStreamSplit.encode32(bits, 0, n)
      assert(ByteStreamSplit.decode32(bytes(enc), n).sameElements(bits))
      val le = new Array[Byte](4 * n)
      ByteBuffer.wrap(le).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().put(bits)
      assert(ByteStreamSplit.decode(bytes(enc), 32, n).sameElements(le))
    }
    val doubles = Array.tabulate(512)(i => math.sin(i) * 1e6)
    val bits = doubles.map(java.lang.Double.doubleToRawLongBits)
    val enc = ByteStreamSplit.encode64(bits, 0, 512)
    assert(ByteStreamSplit.decode64(bytes(enc), 512).map(java.lang.Double.longBitsToDouble).sameElements(doubles))
    val le = new Array[Byte](8 * 512)
    ByteBuffer.wrap(le).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().put(bits)
    assert(ByteStreamSplit.decode(bytes(enc), 64, 512).sameElements(le))
    assert(ByteStreamSplit.encode64(bits, 500, 12).sameElements(ByteStreamSplit.encode64(bits.drop(500), 0, 12)))
  }

  test("a buffer that is not exactly n values, or an unsupported width, is a CorruptFile error") {
    val enc = ByteStreamSplit.encode64(Array(1L, 2L, 3L), 0, 3)
    intercept[CorruptFileException](ByteStreamSplit.decode64(bytes(enc), 2))
    intercept[CorruptFileException](ByteStreamSplit.decode64(bytes(enc), 4))
    intercept[CorruptFileException](ByteStreamSplit.decode64(bytes(enc.dropRight(1)), 3))
    intercept[CorruptFileException](ByteStreamSplit.decode32(bytes(enc), -6))
    intercept[CorruptFileException](ByteStreamSplit.decode32(bytes(enc), Int.MaxValue))
    intercept[CorruptFileException](ByteStreamSplit.decode(bytes(enc), 16, 12))
  }
}
