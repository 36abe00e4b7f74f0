package io.sparklance.format.encoding

import io.sparklance.format.encoding.CompressorFixtures._
import io.sparklance.format.encoding.EncodingFixtures.{bytes, hex, lcg}
import io.sparklance.format.encoding.{CompressiveEncoding => CE}
import io.sparklance.format.layout.{PageLayout, RepDefLayer}
import io.sparklance.format.v21.FullZipPage
import io.sparklance.util.LittleEndian
import org.scalatest.funsuite.AnyFunSuite

class CompressorsSuite extends AnyFunSuite {

  private val Counts = Seq(0, 1, 1023, 1024, 1025, 5000)

  private def random(bits: Int, n: Int, seed: Long): FixedWidthValues =
    fixed(bits, lcg(seed, n, 64).map(v => if (bits == 64) v * 0x9E3779B97F4A7C15L else v))

  // ---- flat ------------------------------------------------------------------------------------

  test("flat mini-block chunks hold 4096 8-bit, 2048 16-bit, 1024 32-bit, 512 64-bit, 256 128-bit values") {
    for ((bits, perChunk) <- Seq(8 -> 4096, 16 -> 2048, 32 -> 1024, 64 -> 512, 128 -> 256); n <- Counts :+ 3 * perChunk) {
      val values = if (bits == 128) new FixedWidthValues(128, java.util.Arrays.copyOf(random(64, 2 * n, bits).data, 16 * n), n)
        else random(bits, n, bits)
      val (out, enc) = roundTrip(Flat.MiniBlock, values)
      assert(enc == CE.Flat(bits, None))
      val full = n / perChunk
      assert(out.chunks.count(_.logNumValues == Integer.numberOfTrailingZeros(perChunk)) == full, s"$bits bits, $n values")
      assert(out.chunks.length == full + (if (n % perChunk == 0) 0 else 1))
      out.chunks.take(full).foreach(c => assert(c.bufferSizes == IndexedSeq(perChunk * bits / 8)))
    }
  }

  test("booleans: 4096 per chunk (512 bytes), bit-exact") {
    for (n <- Counts :+ 9000) {
      val bits = new Array[Byte]((n + 7) / 8)
      (0 until n).foreach(i => if (i % 3 == 0 || i % 7 == 1) BitCopy.setBit(bits, i))
      val (out, enc) = roundTrip(Flat.MiniBlock, new FixedWidthValues(1, bits, n))
      assert(enc == CE.Flat(1, None))
      out.chunks.filter(_.logNumValues != 0).foreach(c => assert(c.bufferSizes == IndexedSeq(512) && c.logNumValues == 12))
    }
  }

  test("flat values taken from an offset into a larger array") {
    val big = random(32, 3000, 5)
    val (out, _) = roundTrip(Flat.MiniBlock, big.slice(1000, 2500))
    assert(out.buffers(0).length == 1500 * 4)
  }

  test("fixed-size lists with and without item validity are chunked by rows") {
    for (n <- Counts; validity <- Seq(false, true)) {
      val dim = 8
      val items = random(32, n * dim, 11)
      val v = if (!validity) null else {
        val b = new Array[Byte]((n * dim + 7) / 8)
        (0 until n * dim).foreach(i => if (i % 5 != 2) BitCopy.setBit(b, i))
        b
      }
      val (out, enc) = roundTrip(Flat.MiniBlock, new FixedSizeListValues(dim, v, items, n))
      assert(enc == CE.FixedSizeList(dim, validity, CE.Flat(32, None)))
      assert(out.numBuffers == (if (validity) 2 else 1))
      // FSL<f32, 8> takes 128 rows per chunk (32 bytes a row); with validity 1 byte more.
      if (n >= 1024) assert(out.chunks.head.logNumValues == 7)
    }
  }

  test("nested fixed-size lists keep each layer's validity") {
    val n = 300
    val inner = new FixedSizeListValues(2, Array.fill[Byte]((n * 6 + 7) / 8)(0x5b), random(16, n * 6, 3), n * 3)
    val outer = new FixedSizeListValues(3, Array.fill[Byte]((n * 3 + 7) / 8)(0x6d), inner, n)
    val (out, enc) = roundTrip(Flat.MiniBlock, outer)
    assert(enc == CE.FixedSizeList(3, true, CE.FixedSizeList(2, true, CE.Flat(16, None))))
    assert(out.numBuffers == 3)
  }

  // ---- inline bit packing ----------------------------------------------------------------------

  test("inline bit packing of 0..4999 is byte-identical to pylance's chunks") {
    val (out, enc) = roundTrip(new InlineBitpacking.MiniBlock(32), fixed(32, Array.tabulate(5000)(_.toLong)))
    assert(enc == CE.InlineBitpacking(32, None))
    assert(out.chunks.map(_.logNumValues) == IndexedSeq(10, 10, 10, 10, 0))
    assert(out.chunks.map(_.bufferSizes.head) == Seq(10, 11, 12, 12, 13).map(w => 4 + 128 * w))
    val chunk0 = out.buffers(0).take(out.chunks(0).bufferSizes.head)
    assert(chunk0.sameElements(hex(PylanceChunks.Chunk0Hex)))
    assert(out.buffers(0).takeRight(4 + 128 * 13).sameElements(hex(PylanceChunks.Chunk4Hex)))
  }

  test("inline bit packing round trips every word size, negative and all-equal values, and full width") {
    for (bits <- Seq(8, 16, 32, 64); n <- Counts.filter(_ > 0)) {
      val c = new InlineBitpacking.MiniBlock(bits)
      roundTrip(c, random(bits, n, n))
      roundTrip(c, fixed(bits, Array.tabulate(n)(i => -(i % 77).toLong)))
      roundTrip(c, fixed(bits, Array.fill(n)(5L)))
      val (out, _) = roundTrip(c, fixed(bits, Array.fill(n)(0L)))
      assert(out.chunks.forall(_.bufferSizes.head == bits / 8), "an all-zero block is only its width word")
    }
  }

  // ---- RLE -------------------------------------------------------------------------------------

  test("RLE splits runs at 255 and keeps runs within chunks") {
    val (out, enc) = roundTrip(new Rle.MiniBlock(32), fixed(32, Array.fill(1000)(42L) ++ Array.fill(300)(-7L)))
    assert(enc == CE.Rle(CE.Flat(32, None), CE.Flat(8, None)))
    assert(out.chunks.length == 1 && out.chunks.head.logNumValues == 0)
    assert(out.buffers(1).map(_ & 0xff).toSeq == Seq(255, 255, 255, 235, 255, 45))
    assert(LittleEndian.getInt(out.buffers(0), 16) == -7)
  }

  test("RLE chunks: at most 4096 values, a power of two unless last, runs of at most 8186 bytes") {
    for (bits <- Seq(8, 16, 32, 64); n <- Counts ++ Seq(4096, 4097, 20000)) {
      val runs = fixed(bits, Array.tabulate(n)(i => (i / 7 % 5).toLong - 2))
      val (out, _) = roundTrip(new Rle.MiniBlock(bits), runs)
      val counts = chunkCounts(out)
      assert(counts.forall(_ <= 4096))
      out.chunks.foreach(c => assert(c.bufferSizes(0) + c.bufferSizes(1) <= MiniBlockChunk.MaxBytes))
      // Distinct values: 5 bytes a run for 32 bits, so 1024 values (5120 bytes) per chunk.
      if (bits == 32 && n >= 4096) {
        val (d, _) = roundTrip(new Rle.MiniBlock(32), fixed(32, Array.tabulate(n)(_.toLong)))
        assert(chunkCounts(d).init.forall(_ == 1024))
      }
    }
    val (long, _) = roundTrip(new Rle.MiniBlock(8), fixed(8, Array.fill(10000)(3L)))
    assert(chunkCounts(long) == Seq(4096, 4096, 1808))
    assert(long.chunks.head.bufferSizes == IndexedSeq(17, 17))
  }

  test("RLE block: u64 length of run values, the values, then run lengths") {
    val c = new Rle.Block(16)
    val out = roundTripBlock(c, fixed(16, Array.fill(600)(1L) ++ Array.fill(3)(0L)))
    assert(LittleEndian.getLong(out, 0) == 4 * 2)
    assert(out.length == 8 + 8 + 4)
    assert(out.drop(16).map(_ & 0xff).toSeq == Seq(255, 255, 90, 3))
    roundTripBlock(c, fixed(16, Array.emptyLongArray))
  }

  // ---- byte stream split -----------------------------------------------------------------------

  test("byte stream split: 1024 32-bit or 512 64-bit values per chunk, byte planes within each") {
    for (bits <- Seq(32, 64); n <- Counts) {
      val (out, enc) = roundTrip(new ByteStreamSplit.MiniBlock(bits), random(bits, n, 9))
      assert(enc == CE.ByteStreamSplit(CE.Flat(bits, None)))
      val per = if (bits == 32) 1024 else 512
      assert(out.chunks.length == (n + per - 1) / per)
    }
    val (two, _) = new ByteStreamSplit.MiniBlock(32).compress(fixed(32, Array(0x04030201L, 0x14131211L)))
    assert(two.buffers(0).toSeq == Seq(1, 0x11, 2, 0x12, 3, 0x13, 4, 0x14).map(_.toByte))
  }

  // ---- general ---------------------------------------------------------------------------------

  test("general compression wraps buffer 0 of each chunk, or steps aside") {
    val compressible = fixed(32, Array.tabulate(5000)(i => (i % 16) * 50L + 100))
    for (scheme <- Seq(CompressionScheme.Zstd, CompressionScheme.Lz4)) {
      val c = BufferCompression(scheme, None)
      val (out, enc) = roundTrip(new General.MiniBlock(new InlineBitpacking.MiniBlock(32), c), compressible)
      assert(enc == CE.General(c, CE.InlineBitpacking(32, None)))
      assert(out.buffers(0).length < 5 * (4 + 128 * 10))
      // RLE: only the run values are compressed.
      val (rle, rleEnc) = roundTrip(new General.MiniBlock(new Rle.MiniBlock(32), c), fixed(32, Array.tabulate(50000)(i => (i / 3 % 100).toLong)))
      assert(rleEnc.isInstanceOf[CE.General] && rle.numBuffers == 2)
    }
    val zstd = BufferCompression(CompressionScheme.Zstd, Some(3))
    // Less than 4 KiB of buffer 0: left alone.
    val (_, small) = roundTrip(new General.MiniBlock(Flat.MiniBlock, zstd), fixed(32, Array.fill(1000)(1L)))
    assert(small == CE.Flat(32, None))
    // Random bytes do not shrink: left alone.
    val (_, noise) = roundTrip(new General.MiniBlock(Flat.MiniBlock, zstd), random(64, 5000, 1))
    assert(noise == CE.Flat(64, None))
  }

  test("general block and per-value compression") {
    val flat = new General.Block(new Flat.Block(16), General.DefaultCompression)
    assert(flat.encoding == CE.General(General.DefaultCompression, CE.Flat(16, None)))
    roundTripBlock(flat, fixed(16, Array.tabulate(40000)(i => (i % 3).toLong)))
    roundTripBlock(new General.Block(new VariableLayout.Block(64), BufferCompression(CompressionScheme.Lz4, None)),
      strings((0 until 3000).map(i => s"value-$i")))
    val long = strings(Seq("", "x" * 70000, "abc" * 20000, "", "y"))
    assert(perValueRoundTrip(new General.PerValue(32, General.DefaultCompression), long) ==
      CE.General(General.DefaultCompression, CE.Variable(CE.Flat(32, None), None)))
  }

  // ---- variable --------------------------------------------------------------------------------

  test("variable mini-block: ~4 KiB chunks of 32- or 64-bit offsets, empty and long values") {
    for (bits <- Seq(32, 64)) {
      val c = new VariableLayout.MiniBlock(bits)
      for (n <- Counts) {
        val (out, enc) = roundTrip(c, strings((0 until n).map(i => "s" * (i % 13))))
        assert(enc == CE.Variable(CE.Flat(bits, None), None))
        assert(out.chunks.forall(_.bufferSizes.head % (bits / 8) == 0))
        assert(out.chunks.init.forall(_.bufferSizes.head <= VariableLayout.MiniBlockAimBytes))
      }
      roundTrip(c, strings(Seq.fill(1000)("")))
      // Two long values per chunk even though they pass the aim.
      val (long, _) = roundTrip(c, strings(Seq.tabulate(5)(i => ("abcdefgh" * 1000) + i)))
      assert(chunkCounts(long) == Seq(2, 2, 1))
    }
    // 10-byte values and 32-bit offsets: 256 fit 4 KiB, 512 do not; the last 232 fit whole.
    val (ten, _) = roundTrip(new VariableLayout.MiniBlock(32), strings(Seq.fill(1000)("0123456789")))
    assert(chunkCounts(ten) == Seq(256, 256, 256, 232))
    assert(ten.chunks.head.bufferSizes.head == 257 * 4 + 2560)
  }

  test("variable block and per-value forms") {
    val data = strings(Seq("alpha", "", "beta", "gamma" * 100))
    for (bits <- Seq(32, 64)) {
      val out = roundTripBlock(new VariableLayout.Block(bits), data)
      assert(LittleEndian.getInt(out, 0) == bits)
      assert(perValueRoundTrip(new VariableLayout.PerValue(bits), data) == CE.Variable(CE.Flat(bits, None), None))
    }
  }

  // ---- packed structs --------------------------------------------------------------------------

  test("packed structs are chunked row-major as flat values of the row width") {
    for (n <- Counts) {
      val s = new StructValues(IndexedSeq(random(32, n, 1), random(64, n, 2), random(8, n, 3)), n)
      val (out, enc) = roundTrip(PackedStruct.MiniBlock, s)
      assert(enc == CE.PackedStruct(IndexedSeq(32L, 64L, 8L), CE.Flat(104, None)))
      // 13-byte rows: 512 per chunk (6656 bytes).
      if (n >= 1024) assert(out.chunks.head.logNumValues == 9)
    }
  }

  // ---- blocks for levels -----------------------------------------------------------------------

  test("bit-packed level blocks: inline for one block, out of line with the tail rule") {
    val levels = fixed(16, Array.tabulate(1000)(i => (i % 2).toLong))
    val inline = roundTripBlock(new InlineBitpacking.Block(16), levels)
    assert(inline.length == 2 + 128)
    for (n <- Seq(1, 1023, 1024, 1025, 5000)) {
      val l = fixed(16, Array.tabulate(n)(i => (i % 3).toLong))
      val c = new OutOfLineBitpacking.Block(16, 2)
      assert(c.encoding == CE.OutOfLineBitpacking(16, CE.Flat(2, None)))
      val out = roundTripBlock(c, l)
      // Width 2 of 16: pad the tail when 2 * (1024 - t) < 14 * t, i.e. t > 128.
      val tail = n % 1024
      val tailBytes = if (tail == 0) 0 else if (tail > 128) 256 else 2 * tail
      assert(out.length == n / 1024 * 256 + tailBytes)
    }
    roundTripBlock(new Flat.Block(16), fixed(16, Array.tabulate(77)(_.toLong)))
  }

  // ---- per value -------------------------------------------------------------------------------

  test("flat per-value values, and fixed-size lists with item validity in front of each row") {
    assert(perValueRoundTrip(Flat.PerValue, random(64, 1000, 4)) == CE.Flat(64, None))
    val n = 50
    val dim = 128
    val items = random(32, n * dim, 6)
    val validity = new Array[Byte](n * dim / 8)
    (0 until n * dim).foreach(i => if (i % 9 != 0) BitCopy.setBit(validity, i))
    val (data, enc) = Flat.PerValue.compress(new FixedSizeListValues(dim, validity, items, n))
    assert(data.asInstanceOf[PerValueData.Fixed].bitsPerValue == (16 + 512) * 8)
    assert(enc == CE.FixedSizeList(dim, true, CE.Flat(32, None)))
    assert(perValueRoundTrip(Flat.PerValue, new FixedSizeListValues(dim, validity, items, n)) == enc)
    assert(perValueRoundTrip(Flat.PerValue, new FixedSizeListValues(dim, null, items, n)) == CE.FixedSizeList(dim, false, CE.Flat(32, None)))
  }

  /** Zips per-value output into a full-zip page without levels, decodes it and compares. */
  private def perValueRoundTrip(c: PerValueCompressor, values: DecodedValues): CompressiveEncoding = {
    val (data, enc) = c.compress(values)
    val (buf, bpv, bpo) = data match {
      case PerValueData.Fixed(bits, d, count) =>
        assert(count == values.count && d.length == count * bits / 8)
        (d, Some(bits), None)
      case PerValueData.Variable(bits, v) =>
        val w = bits / 8
        val out = new java.io.ByteArrayOutputStream()
        (0 until v.count).foreach { i =>
          val len = new Array[Byte](w)
          if (w == 4) LittleEndian.putInt(len, 0, v.length(i)) else LittleEndian.putLong(len, 0, v.length(i).toLong)
          out.write(len); out.write(v.value(i))
        }
        (out.toByteArray, None, Some(bits))
    }
    val n = values.count.toLong
    val layout = PageLayout.FullZip(0, 0, bpv, bpo, n, n, enc, IndexedSeq(RepDefLayer.AllValidItem))
    val back = FullZipPage.decode(IndexedSeq(bytes(buf)), n, layout, "test").next().get.values
    assert(canonical(back) == canonical(values), s"${enc.describe} per-value round trip")
    enc
  }
}
