package io.sparklance.format.encoding

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.format.encoding.EncodingFixtures._
import io.sparklance.util.CorruptFileException
import org.scalatest.funsuite.AnyFunSuite

class VariableLayoutSuite extends AnyFunSuite {

  private val Strings = Seq("", "a", "hello", "", "world wide", "\u00e9t\u00e9")
  private val Data = VariableData.of(Strings.map(_.getBytes(UTF_8)))

  private def same(a: VariableData, b: VariableData): Boolean =
    a.offsets.sameElements(b.offsets) && a.bytes.sameElements(b.bytes)

  private def le(width: Int, values: Long*): Array[Byte] = {
    val bb = ByteBuffer.allocate(values.length * width).order(ByteOrder.LITTLE_ENDIAN)
    values.foreach(v => if (width == 4) bb.putInt(v.toInt) else bb.putLong(v))
    bb.array()
  }

  test("mini-block layout: offsets count from the buffer start, padding is 0x48") {
    val enc = VariableLayout.encodeMiniBlock(VariableData.of(Seq("ab", "c").map(_.getBytes(UTF_8))), 32)
    // offsets 12, 14, 15 then "abc" then one 'H' to reach a multiple of 4
    assert(enc.sameElements(le(4, 12, 14, 15) ++ "abcH".getBytes(UTF_8)))
    val enc64 = VariableLayout.encodeMiniBlock(VariableData.of(Seq("ab").map(_.getBytes(UTF_8))), 64)
    assert(enc64.sameElements(le(8, 16, 18) ++ "abHHHHHH".getBytes(UTF_8)))
  }

  test("mini-block round trip for 32 and 64-bit offsets, whole or a prefix of the chunk") {
    for (bits <- Seq(32, 64)) {
      val enc = VariableLayout.encodeMiniBlock(Data, bits)
      assert(same(VariableLayout.decodeMiniBlock(bytes(enc), bits, Data.count), Data))
      val prefix = VariableLayout.decodeMiniBlock(bytes(enc), bits, 3)
      assert(same(prefix, VariableData.of(Strings.take(3).map(_.getBytes(UTF_8)))))
      assert(same(VariableLayout.decodeMiniBlock(bytes(enc), bits, 0), VariableData.empty))
      assert(same(VariableLayout.decodeMiniBlock(bytes(VariableLayout.encodeMiniBlock(VariableData.empty, bits)), bits, 0),
        VariableData.empty))
    }
  }

  test("block layout: [u32 32][u32 bytes_start][offsets][bytes] and the 64-bit version") {
    val two = VariableData.of(Seq("ab", "c").map(_.getBytes(UTF_8)))
    assert(VariableLayout.encodeBlock(two, 32).sameElements(le(4, 32, 20, 0, 2, 3) ++ "abc".getBytes(UTF_8)))
    assert(VariableLayout.encodeBlock(two, 64).sameElements(le(8, 64, 40, 0, 2, 3) ++ "abc".getBytes(UTF_8)))
    for (bits <- Seq(32, 64)) {
      assert(same(VariableLayout.decodeBlock(bytes(VariableLayout.encodeBlock(Data, bits)), Data.count), Data))
      assert(same(VariableLayout.decodeBlock(bytes(VariableLayout.encodeBlock(VariableData.empty, bits)), 0), VariableData.empty))
    }
  }

  test("block layout: offsets that do not start at 0 are rebased") {
    val enc = le(4, 32, 20, 1, 3, 4) ++ "xabc".getBytes(UTF_8)
    val d = VariableLayout.decodeBlock(bytes(enc), 2)
    assert(d.offsets.sameElements(Array(0, 2, 3)) && new String(d.bytes, UTF_8) == "abc")
  }

  test("block layout: the older [u8 width][count][bytes_start] form is still read") {
    val old32 = Array[Byte](32) ++ le(4, 2, 21, 0, 2, 3) ++ "abc".getBytes(UTF_8)
    assert(new String(VariableLayout.decodeBlock(bytes(old32), 2).bytes, UTF_8) == "abc")
    val old64 = Array[Byte](64) ++ le(8, 2, 41, 0, 2, 3) ++ "abc".getBytes(UTF_8)
    assert(VariableLayout.decodeBlock(bytes(old64), 2).offsets.sameElements(Array(0, 2, 3)))
    intercept[CorruptFileException](VariableLayout.decodeBlock(bytes(old32), 3)) // count disagrees
  }

  test("mini-block offsets out of range, decreasing or overlapping the offsets are CorruptFile errors") {
    def bad(bits: Int, n: Int, offsets: Long*)(tail: String): Unit =
      intercept[CorruptFileException] {
        VariableLayout.decodeMiniBlock(bytes(le(bits / 8, offsets: _*) ++ tail.getBytes(UTF_8)), bits, n)
      }
    bad(32, 2, 12, 14, 16)("abc")   // last offset past the end
    bad(32, 2, 12, 11, 15)("abc")   // decreasing
    bad(32, 2, 8, 10, 15)("abc")    // first offset inside the offsets
    bad(32, 2, 12, 14, 0xffffffffL)("abc")
    bad(64, 1, 16, -1L)("abc")      // a 64-bit offset with the top bit set
    bad(64, 1, -16L, 17)("abc")
    bad(32, 3, 12, 14, 15)("abc")   // too few offsets for the count (reads into the data)
    bad(32, 1, 8)("")               // the offsets themselves are cut short
    intercept[CorruptFileException](VariableLayout.decodeMiniBlock(bytes(le(4, 12, 14, 15)), 16, 2))
    intercept[CorruptFileException](VariableLayout.decodeMiniBlock(bytes(le(4, 12, 14, 15)), 32, -1))
    intercept[CorruptFileException](VariableLayout.decodeMiniBlock(bytes(le(4, 12, 14, 15)), 32, Int.MaxValue))
  }

  test("block headers and offsets that disagree are CorruptFile errors") {
    val abc = "abc".getBytes(UTF_8)
    def bad(b: Array[Byte], n: Int): Unit = intercept[CorruptFileException](VariableLayout.decodeBlock(bytes(b), n))
    bad(Array[Byte](32, 0), 0)                        // shorter than a header
    bad(le(4, 16, 20, 0, 2, 3) ++ abc, 2)             // width 16
    bad(le(4, 32, 24, 0, 2, 3) ++ abc, 2)             // bytes_start after the offsets
    bad(le(4, 32, 20, 0, 2, 3) ++ abc, 1)             // count disagrees with bytes_start
    bad(le(4, 32, 20, 0, 2, 3) ++ abc, Int.MaxValue)
    bad(le(4, 32, 20, 0, 2, 3) ++ abc, -1)
    bad(le(4, 32, 20, 0, 2, 4) ++ abc, 2)             // past the data
    bad(le(4, 32, 20, 2, 1, 3) ++ abc, 2)             // decreasing
    bad(le(4, 32, 20, 0, 2, 3), 2)                    // data missing
    bad(le(4, 64, 0x10000, 40) ++ le(8, 0, 2, 3) ++ abc, 2) // 64-bit header with high bits set
    bad(le(8, 64, Long.MinValue, 0, 2, 3) ++ abc, 2)  // bytes_start beyond any file
    bad(Array[Byte](16, 1, 0, 0, 0, 0, 0, 0, 0), 1)   // old form, width 16
  }

  test("damaged buffers raise CorruptFile or decode, never anything else") {
    val rnd = new scala.util.Random(3)
    val data = VariableData.of(Seq.fill(200)(Array.fill(rnd.nextInt(30))(rnd.nextInt().toByte)))
    for (bits <- Seq(32, 64)) {
      for ((what, b) <- damaged(VariableLayout.encodeMiniBlock(data, bits), bits))
        corruptOrOk(what)(VariableLayout.decodeMiniBlock(bytes(b), bits, 200))
      for ((what, b) <- damaged(VariableLayout.encodeBlock(data, bits), bits + 1))
        corruptOrOk(what)(VariableLayout.decodeBlock(bytes(b), 200))
    }
  }
}
