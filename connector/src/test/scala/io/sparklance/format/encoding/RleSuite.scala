package io.sparklance.format.encoding

import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.format.encoding.EncodingFixtures._
import io.sparklance.util.CorruptFileException
import org.scalatest.funsuite.AnyFunSuite

class RleSuite extends AnyFunSuite {

  private def runsOf(values: Array[Long], t: Int): Rle.Runs = t match {
    case 8 => Rle.encode8(values.map(_.toByte), 0, values.length)
    case 16 => Rle.encode16(values.map(_.toShort), 0, values.length)
    case 32 => Rle.encode32(values.map(_.toInt), 0, values.length)
    case 64 => Rle.encode64(values, 0, values.length)
  }

  private def decode(t: Int, r: Rle.Runs, n: Int): Array[Long] = t match {
    case 8 => Rle.decode8(bytes(r.values), bytes(r.runLengths), n).map(_.toLong)
    case 16 => Rle.decode16(bytes(r.values), bytes(r.runLengths), n).map(_.toLong)
    case 32 => Rle.decode32(bytes(r.values), bytes(r.runLengths), n).map(_.toLong)
    case 64 => Rle.decode64(bytes(r.values), bytes(r.runLengths), n)
  }

  private def signed(v: Long, t: Int): Long = if (t == 64) v else (v << (64 - t)) >> (64 - t)

  test("runs are split at 255 values, and run lengths are u8") {
    val r = Rle.encode32(Array.fill(1000)(42) ++ Array.fill(300)(-7), 0, 1300)
    assert(r.runLengths.map(_ & 0xff).sameElements(Array(255, 255, 255, 235, 255, 45)))
    assert(r.values.length == 6 * 4)
    assert(ByteBuffer.wrap(r.values).order(ByteOrder.LITTLE_ENDIAN).getInt(16) == -7)
  }

  for (t <- Seq(8, 16, 32, 64)) {
    test(s"$t-bit: round trip, typed and as little-endian bytes") {
      val rnd = new scala.util.Random(t)
      val values = new Array[Long](3000)
      var i = 0
      while (i < values.length) {
        val v = signed(rnd.nextLong(), t)
        val len = 1 + rnd.nextInt(if (rnd.nextBoolean()) 3 else 600)
        var j = i
        while (j < math.min(values.length, i + len)) { values(j) = v; j += 1 }
        i += len
      }
      val r = runsOf(values, t)
      assert(decode(t, r, values.length).sameElements(values))
      val le = Rle.decode(bytes(r.values), t / 8, bytes(r.runLengths), values.length)
      val bb = ByteBuffer.wrap(le).order(ByteOrder.LITTLE_ENDIAN)
      val fromBytes = Array.tabulate(values.length) { k =>
        t match { case 8 => bb.get(k).toLong; case 16 => bb.getShort(2 * k).toLong; case 32 => bb.getInt(4 * k).toLong; case 64 => bb.getLong(8 * k) }
      }
      assert(fromBytes.sameElements(values))
    }

    test(s"$t-bit: runs covering more values than the chunk are cut at the chunk's count") {
      // The Rust writer ends a chunk at a power-of-two count that may fall inside a run.
      val r = runsOf(Array.fill(100)(5L) ++ Array.fill(100)(9L), t)
      assert(decode(t, r, 150).sameElements(Array.fill(100)(5L) ++ Array.fill(50)(9L)))
      assert(decode(t, r, 0).isEmpty)
    }

    test(s"$t-bit: too few values, mismatched buffers or odd sizes are CorruptFile errors") {
      val r = runsOf(Array.fill(10)(3L) ++ Array.fill(10)(4L), t)
      intercept[CorruptFileException](decode(t, r, 21))
      intercept[CorruptFileException](decode(t, r, -1))
      intercept[CorruptFileException](decode(t, r, Int.MaxValue))
      intercept[CorruptFileException](decode(t, new Rle.Runs(r.values, r.runLengths.take(1)), 10))
      intercept[CorruptFileException](decode(t, new Rle.Runs(r.values.take(t / 8), r.runLengths), 10))
      if (t > 8) intercept[CorruptFileException](decode(t, new Rle.Runs(r.values.dropRight(1), r.runLengths), 20))
      intercept[CorruptFileException](decode(t, new Rle.Runs(Array.emptyByteArray, Array.emptyByteArray), 1))
    }
  }

  test("the byte form accepts only 1, 2, 4 or 8-byte values") {
    val r = Rle.encode8(Array[Byte](1, 1, 2), 0, 3)
    intercept[CorruptFileException](Rle.decode(bytes(r.values), 3, bytes(r.runLengths), 3))
    intercept[CorruptFileException](Rle.decode(bytes(r.values), 0, bytes(r.runLengths), 3))
  }

  test("damaged buffers raise CorruptFile or decode, never anything else") {
    val r = Rle.encode16(Array.tabulate(2000)(i => (i / 37).toShort), 0, 2000)
    for ((what, v) <- damaged(r.values, 1)) corruptOrOk(what)(Rle.decode16(bytes(v), bytes(r.runLengths), 2000))
    for ((what, l) <- damaged(r.runLengths, 2)) corruptOrOk(what)(Rle.decode(bytes(r.values), 2, bytes(l), 2000))
  }
}
