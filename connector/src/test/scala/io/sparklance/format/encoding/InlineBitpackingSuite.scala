package io.sparklance.format.encoding

import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.format.encoding.EncodingFixtures._
import io.sparklance.util.CorruptFileException
import org.scalatest.funsuite.AnyFunSuite

class InlineBitpackingSuite extends AnyFunSuite {

  /** Encodes unsigned values held in Longs at word size `t`. */
  private def encode(t: Int, v: Array[Long]): Array[Byte] = t match {
    case 8 => InlineBitpacking.encode8(v.map(_.toByte), 0, v.length)
    case 16 => InlineBitpacking.encode16(v.map(_.toShort), 0, v.length)
    case 32 => InlineBitpacking.encode32(v.map(_.toInt), 0, v.length)
    case 64 => InlineBitpacking.encode64(v, 0, v.length)
  }

  /** Decodes to unsigned values held in Longs. */
  private def decode(t: Int, b: Array[Byte], n: Int): Array[Long] = longs(InlineBitpacking.decode(t, bytes(b), n))

  test("pylance chunk 0 (W=10) decodes to 0..1023, and we encode the same bytes") {
    val chunk = hex(PylanceChunks.Chunk0Hex)
    assert(ints(InlineBitpacking.decode(32, bytes(chunk), 1024)).sameElements(0 until 1024))
    assert(InlineBitpacking.encode32((0 until 1024).toArray, 0, 1024).sameElements(chunk))
  }

  test("pylance last chunk (904 values, zero-padded block, W=13) decodes and re-encodes identically") {
    val chunk = hex(PylanceChunks.Chunk4Hex)
    assert(chunk.length == 4 + 128 * 13)
    assert(ints(InlineBitpacking.decode(32, bytes(chunk), 904)).sameElements(4096 until 5000))
    assert(InlineBitpacking.encode32((4096 until 5000).toArray, 0, 904).sameElements(chunk))
  }

  for (t <- Seq(8, 16, 32, 64)) {
    test(s"$t-bit: round trip at every width 0..$t for 1, 1023, 1024 and 1025 values") {
      for (w <- 0 to t; n <- Seq(1, 1023, 1024, 1025)) {
        val values = valuesOfWidth(31L * w + n, n, w)
        val enc = encode(t, values)
        val blocks = (n + 1023) / 1024
        assert(enc.length == blocks * (t / 8) + (0 until blocks).map { b =>
          128 * FastLanesBitpacking.bitLength(values.slice(b * 1024, b * 1024 + 1024).foldLeft(0L)(_ | _))
        }.sum, s"T=$t W=$w n=$n")
        // The first block's header word is the block's width.
        val header = ByteBuffer.wrap(enc).order(ByteOrder.LITTLE_ENDIAN)
        val w0 = t match { case 8 => header.get(0) & 0xff; case 16 => header.getShort(0).toInt; case 32 => header.getInt(0); case 64 => header.getLong(0).toInt }
        assert(w0 == FastLanesBitpacking.bitLength(values.take(1024).foldLeft(0L)(_ | _)))
        assert(decode(t, enc, n).sameElements(values), s"T=$t W=$w n=$n")
      }
    }

    test(s"$t-bit: blocks of different widths, a zero block, all-equal and all-max values") {
      val n = 4 * 1024 + 77
      val mixed = Array.tabulate(n) { i =>
        (i / 1024) match {
          case 0 => (i % 3).toLong
          case 1 => 0L
          case 2 => mask(t)
          case _ => lcg(i, 1, t)(0)
        }
      }
      assert(decode(t, encode(t, mixed), n).sameElements(mixed))
      val same = Array.fill(3000)(mask(t / 2) & 0x1234567890abcdefL)
      assert(decode(t, encode(t, same), 3000).sameElements(same))
      val zeros = new Array[Long](2048)
      val enc = encode(t, zeros)
      assert(enc.length == 2 * t / 8, "all-zero blocks are just their header words")
      assert(decode(t, enc, 2048).sameElements(zeros))
    }

    test(s"$t-bit: width word larger than $t is a CorruptFile error") {
      val enc = encode(t, valuesOfWidth(1, 1024, t))
      val bad = enc.clone()
      bad(0) = (t + 1).toByte
      intercept[CorruptFileException](decode(t, bad, 1024))
      if (t > 8) {
        val big = enc.clone()
        big(t / 8 - 1) = 0x80.toByte // top byte of the header word: a huge (or negative) width
        intercept[CorruptFileException](decode(t, big, 1024))
      }
    }

    test(s"$t-bit: truncated or over-long buffers and impossible counts are CorruptFile errors") {
      val values = valuesOfWidth(2, 2000, t - 3)
      val enc = encode(t, values)
      for (cut <- Seq(0, 1, t / 8, enc.length / 2, enc.length - 1))
        intercept[CorruptFileException](decode(t, java.util.Arrays.copyOf(enc, cut), 2000))
      intercept[CorruptFileException](decode(t, enc ++ Array[Byte](0, 0, 0, 0, 0, 0, 0, 0), 2000))
      intercept[CorruptFileException](decode(t, enc, 2049)) // a third block that is not there
      intercept[CorruptFileException](decode(t, enc, 1024)) // a second block left over
      intercept[CorruptFileException](decode(t, enc, -1))
      // A count far beyond what the buffer can hold is refused before allocating for it.
      intercept[CorruptFileException](decode(t, enc, Int.MaxValue))
    }

    test(s"$t-bit: damaged buffers raise CorruptFile or decode, never anything else") {
      val enc = encode(t, valuesOfWidth(3, 1500, t / 2 + 1))
      for ((what, b) <- damaged(enc, t)) corruptOrOk(what)(decode(t, b, 1500))
    }
  }

  test("negative signed values need the full width") {
    val v = Array(-1, 5, 7)
    val enc = InlineBitpacking.encode32(v, 0, 3)
    assert(ByteBuffer.wrap(enc).order(ByteOrder.LITTLE_ENDIAN).getInt(0) == 32)
    assert(ints(InlineBitpacking.decode(32, bytes(enc), 3)).sameElements(v))
    val l = Array(Long.MinValue, 0L, Long.MaxValue)
    assert(longs(InlineBitpacking.decode(64, bytes(InlineBitpacking.encode64(l, 0, 3)), 3)).sameElements(l))
  }

  test("zero values encode to nothing and decode from nothing") {
    assert(InlineBitpacking.encode16(Array[Short](1, 2), 1, 0).isEmpty)
    assert(InlineBitpacking.decode(16, bytes(Array.emptyByteArray), 0).count == 0)
  }

  test("encode honours the input offset") {
    val v = (0 until 3000).toArray
    val enc = InlineBitpacking.encode32(v, 1000, 1500)
    assert(ints(InlineBitpacking.decode(32, bytes(enc), 1500)).sameElements(1000 until 2500))
  }
}
