package io.sparklance.format.encoding

import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.format.encoding.EncodingFixtures._
import io.sparklance.util.CorruptFileException
import org.scalatest.funsuite.AnyFunSuite

class FastLanesBitpackingSuite extends AnyFunSuite {

  private val Widths = Seq(8, 16, 32, 64)

  /** Packs `values` (one block) through the typed byte-level API and unpacks them via Bytes. */
  private def roundTrip(t: Int, w: Int, values: Array[Long], fileOff: Int): Array[Long] = {
    val packed = packedBytes(t, w, values)
    assert(packed.length == FastLanesBitpacking.packedBytes(w))
    val out = new Array[Byte](1024 * t / 8)
    FastLanesBitpacking.unpack(t, bytes(new Array[Byte](fileOff) ++ packed), fileOff, w, out, 0)
    longs(new FixedWidthValues(t, out, 1024))
  }

  private def packedBytes(t: Int, w: Int, values: Array[Long]): Array[Byte] = t match {
    case 8 => FastLanesBitpacking.pack8(w, values.map(_.toByte), 0)
    case 16 => FastLanesBitpacking.pack16(w, values.map(_.toShort), 0)
    case 32 => FastLanesBitpacking.pack32(w, values.map(_.toInt), 0)
    case 64 => FastLanesBitpacking.pack64(w, values, 0)
  }

  for (t <- Widths) {
    test(s"$t-bit: pack/unpack round trip at every width 0..$t") {
      for (w <- 0 to t) {
        val values = lcg(1000L * t + w, 1024, w)
        assert(roundTrip(t, w, values, (w * 3) % 7).sameElements(values), s"T=$t W=$w")
      }
    }

    test(s"$t-bit: all zero, all equal and all-ones blocks") {
      for (w <- Seq(0, 1, t / 2, t)) {
        val zeros = new Array[Long](1024)
        assert(roundTrip(t, w, zeros, 0).sameElements(zeros))
        val same = Array.fill(1024)(mask(w) & 0x5a5a5a5a5a5a5a5aL)
        assert(roundTrip(t, w, same, 1).sameElements(same))
        val ones = Array.fill(1024)(mask(w))
        assert(roundTrip(t, w, ones, 3).sameElements(ones))
      }
    }

    test(s"$t-bit: bits above W are dropped, not smeared into neighbours") {
      for (w <- 0 until t) {
        val noisy = lcg(7L * t + w, 1024, t)
        val expected = noisy.map(_ & mask(w))
        assert(roundTrip(t, w, noisy, 0).sameElements(expected), s"T=$t W=$w")
      }
    }

    test(s"$t-bit: width outside 0..$t read from a file is a CorruptFile error") {
      val buf = bytes(new Array[Byte](16 * 1024))
      for (w <- Seq(-1, t + 1, 255)) {
        intercept[CorruptFileException](FastLanesBitpacking.unpack(t, buf, 0, w, new Array[Byte](1024 * t / 8), 0))
      }
    }

    test(s"$t-bit: a block cut short is a CorruptFile error") {
      val w = t / 2 + 1
      val packed = packedBytes(t, w, lcg(3, 1024, w))
      for (cut <- Seq(0, 1, packed.length / 2, packed.length - 1)) {
        val e = intercept[CorruptFileException] {
          roundTripFrom(t, w, java.util.Arrays.copyOf(packed, cut))
        }
        assert(e.errorClass == "LANCE_CORRUPT_FILE")
      }
    }
  }

  private def roundTripFrom(t: Int, w: Int, packed: Array[Byte]): Unit =
    FastLanesBitpacking.unpack(t, bytes(packed), 0, w, new Array[Byte](1024 * t / 8), 0)

  test("packing overwrites stale words instead of OR-ing into them") {
    for (w <- 1 to 32) {
      val values = lcg(w, 1024, w).map(_.toInt)
      val clean = new Array[Int](32 * w)
      val dirty = Array.fill(32 * w)(-1)
      FastLanesBitpacking.pack32(w, values, 0, clean, 0)
      FastLanesBitpacking.pack32(w, values, 0, dirty, 0)
      assert(clean.sameElements(dirty), s"W=$w")
    }
  }

  test("array kernels honour input, packed and output offsets") {
    val w = 11
    val values = lcg(5, 1024, w)
    val in = new Array[Long](1024 + 7)
    System.arraycopy(values, 0, in, 7, 1024)
    val packed = new Array[Long](16 * w + 5)
    FastLanesBitpacking.pack64(w, in, 7, packed, 5)
    // The unpack kernels take the packed words as little-endian bytes.
    val packedLe = new Array[Byte](8 * packed.length)
    ByteBuffer.wrap(packedLe).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().put(packed)
    val out = new Array[Byte](8 * (1024 + 9))
    FastLanesBitpacking.unpack64(w, packedLe, 8 * 5, out, 8 * 9)
    assert(longs(new FixedWidthValues(64, out.drop(8 * 9), 1024)).sameElements(values))
    assert(out.take(8 * 9).forall(_ == 0))
  }

  // Known answers from an independent reference written from the prose spec alone (not from
  // this code, not from the Rust code), checked against pylance 14.0.2 output first:
  //
  //   FL_ORDER = [0,4,2,6,1,5,3,7]
  //   def pack(vals, T, W):
  //       lanes = 1024 // T; words = [0] * (1024 * W // T)
  //       for lane in range(lanes):
  //           stream = 0
  //           for row in range(T):
  //               idx = FL_ORDER[row // 8] * 16 + (row % 8) * 128 + lane
  //               stream |= (vals[idx] & ((1 << W) - 1)) << (row * W)
  //           for k in range(W):
  //               words[lanes * k + lane] = (stream >> (k * T)) & ((1 << T) - 1)
  //       return b"".join(w.to_bytes(T // 8, "little") for w in words)
  //   def gen(T, W, seed):   # same LCG as EncodingFixtures.lcg
  //       x = seed; out = []
  //       for i in range(1024):
  //           x = (x * 6364136223846793005 + 1442695040888963407) & ((1 << 64) - 1)
  //           out.append((x >> 11) & ((1 << W) - 1) if W > 0 else 0)
  //       return out
  //   sha256(pack(gen(T, W, 42 + T + W), T, W))
  private val KnownAnswers = Seq(
    (8, 3, "7d34267dd3ab6f2e39ef78ac52282382aa78c78666ffc0334d30e654b3e31bd8"),
    (16, 1, "5a99f61260d9fdf2f1b4db8298ed0bae5b01b106d30bc50e64cbf172aace3f24"),
    (16, 5, "51a0a5fd946da24dcd418e8782ae61cde8f3b3b6a3555529200c4020fc88a80b"),
    (32, 3, "b3040b40dd14900ff2f16d35e3d3e7e2675fd0895661f46210af6bbdbd88ea33"),
    (32, 7, "741c3c316d7c058adfd379b8487a60106ea002b4b630b1c6cfed9cbb4c2d2255"),
    (32, 32, "fbf276f2a879304c0977b14f93257cadbdbea31da5ece37c7767ea1e8e90afa9"),
    (64, 13, "c5c3f554f8438564184a5c4dcf086b2008729731ed3cae9cf747f08b81ae19b0"),
    (64, 64, "d3b8aff4d562823bf6c7510cc1588367a8cdbe9b31c93e35151091edb12915b7"))

  for ((t, w, digest) <- KnownAnswers) {
    test(s"known answer: T=$t W=$w matches the independent reference") {
      val values = lcg(42 + t + w, 1024, w)
      val packed = packedBytes(t, w, values)
      assert(sha256(packed) == digest)
      assert(roundTrip(t, w, values, 0).sameElements(values))
    }
  }

  test("known answer: T=32 W=3 byte for byte") {
    // The reference's full output for this case, so a failure shows where the layouts differ.
    val expected = hex(
      "30979b2fdff77d69ca5d4ee558a15ee1e1e71472f1509d8c20f87db221f659961bc9b63f82bbbc9d3e128d3ef2c0544c" +
        "152a548cb7cb2953a6d0e55dd42b748386fad00f6ddbb64973e6f0987027dc139b12dcb74734d6abbf6ddb9b6dc94d2d" +
        "4c5359faa2b33e0f8c87c627f60f44d287461f88bc8a39e186d867cf11fd885a0577ca4b9ac6dff794bb2fa7436750af" +
        "8839c4ac87eaf1e29aa620f853f0b31a8024645b600aeff2a28df591e59dfac01933af5e70979c024ec131059753665e" +
        "0df585f89224b66d4387bd8a5e2a78b94b4edc948f6888462429e4b6b94dc07f4e30fa4e0dd1100daa33a9cec8d63f10" +
        "582346c455ece1e76a887ed60dadf433c1a5f04e7d4dd354dc2e15dc5e857af1826af839a1a8ce787d96d33482c43eab" +
        "db645bdb2ea6600a68da58ff5468ac13bd7af5eadc9c82bb33ccbb98a139f50ecceb4363dbb66ddb190e1d5ec07027dc" +
        "e09c14e01fd1581f6de4b64dbbe42625104c6379d1599ff55867aa33690712691aa30f8df073781543a321f6fa19fd88")
    val packed = packedBytes(32, 3, lcg(42 + 32 + 3, 1024, 3))
    val firstDiff = packed.indices.find(i => i >= expected.length || packed(i) != expected(i))
    assert(packed.length == expected.length && firstDiff.isEmpty, s"first difference at byte $firstDiff")
  }

  test("known answer: single bits placed by hand, T=8 W=1 and T=16 W=2") {
    // T=8: LANES = 128 and row/8 is always 0, so row r of lane l is element r·128 + l. With W=1
    // each lane's 8 rows fill exactly one byte, stored at position l, row r at bit r. Element
    // 3·128 + 5 (row 3, lane 5) alone set must give byte 5 = 1 << 3 and zeros elsewhere.
    val values = new Array[Byte](1024)
    values(3 * 128 + 5) = 1
    val packed = FastLanesBitpacking.pack8(1, values, 0)
    val expected = new Array[Byte](128)
    expected(5) = (1 << 3).toByte
    assert(packed.sameElements(expected))
    // T=16: LANES = 64. Row 9 starts at FL_ORDER(1)·16 + 1·128 = 192, so lane 2 of row 9 is
    // element 194. At W=2 it occupies bits 18..19 of lane 2's stream: word 1 of the lane, stored
    // at word position 64·1 + 2 = 66 (bytes 132..133), bits 2..3 of its low byte.
    val v16 = new Array[Short](1024)
    v16(194) = 3
    val p16 = FastLanesBitpacking.pack16(2, v16, 0)
    val e16 = new Array[Byte](256)
    e16(2 * (64 + 2)) = (3 << 2).toByte
    assert(p16.sameElements(e16))
  }

  test("decode throughput (informational, not asserted)") {
    def rate(t: Int, w: Int): Double = {
      val blocks = 256
      val nanos = t match {
        case 32 =>
          val packed = new Array[Int](32 * w * blocks)
          var b = 0
          while (b < blocks) { FastLanesBitpacking.pack32(w, lcg(b, 1024, w).map(_.toInt), 0, packed, b * 32 * w); b += 1 }
          val packedLe = new Array[Byte](4 * packed.length)
          ByteBuffer.wrap(packedLe).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().put(packed)
          val out = new Array[Byte](4096 * blocks)
          time { var i = 0; while (i < blocks) { FastLanesBitpacking.unpack32(w, packedLe, i * 128 * w, out, i * 4096); i += 1 } }
        case 64 =>
          val packed = new Array[Long](16 * w * blocks)
          var b = 0
          while (b < blocks) { FastLanesBitpacking.pack64(w, lcg(b, 1024, w), 0, packed, b * 16 * w); b += 1 }
          val packedLe = new Array[Byte](8 * packed.length)
          ByteBuffer.wrap(packedLe).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().put(packed)
          val out = new Array[Byte](8192 * blocks)
          time { var i = 0; while (i < blocks) { FastLanesBitpacking.unpack64(w, packedLe, i * 128 * w, out, i * 8192); i += 1 } }
      }
      (blocks * 1024L * t / 8) / nanos // bytes per ns = GB/s
    }
    def time(f: => Unit): Double = {
      var i = 0
      while (i < 300) { f; i += 1 } // warm up C2
      var best = Double.MaxValue
      var round = 0
      while (round < 15) {
        val start = System.nanoTime()
        var j = 0
        while (j < 20) { f; j += 1 }
        best = math.min(best, (System.nanoTime() - start) / 20.0)
        round += 1
      }
      best
    }
    for ((t, w) <- Seq((32, 3), (32, 13), (32, 27), (64, 7), (64, 37), (64, 61))) {
      val gbs = rate(t, w)
      info(f"unpack$t at W=$w%-2d: $gbs%.2f GB/s of decoded values")
      println(f"[throughput] FastLanes unpack$t W=$w%-2d: $gbs%.2f GB/s decoded")
    }
    // The whole path from file bytes: 1M int32 values, inline bit packed at 13 bits per block.
    val n = 1 << 20
    val encoded = InlineBitpacking.encode32(lcg(9, n, 13).map(_.toInt), 0, n)
    val src = bytes(encoded)
    val nanos = time(InlineBitpacking.decode(32, src, n))
    val gbs = n * 4.0 / nanos
    info(f"InlineBitpacking.decode(32) from Bytes: $gbs%.2f GB/s")
    println(f"[throughput] InlineBitpacking.decode(32) (1M values, W=13, from Bytes): $gbs%.2f GB/s decoded")
    val n64 = 1 << 19
    val src64 = bytes(InlineBitpacking.encode64(lcg(9, n64, 37), 0, n64))
    val gbs64 = n64 * 8.0 / time(InlineBitpacking.decode(64, src64, n64))
    println(f"[throughput] InlineBitpacking.decode(64) (512K values, W=37, from Bytes): $gbs64%.2f GB/s decoded")
  }
}
