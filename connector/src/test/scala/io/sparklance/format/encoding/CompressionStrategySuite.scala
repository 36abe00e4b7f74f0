package io.sparklance.format.encoding

import io.sparklance.format.FileVersion
import io.sparklance.format.encoding.CompressorFixtures._
import io.sparklance.format.encoding.{CompressiveEncoding => CE}
import io.sparklance.util.InvalidArgumentException
import org.scalatest.funsuite.AnyFunSuite

/**
 * Which encoding the strategy picks. The expectations marked "pylance" are what pylance 14.0.2
 * wrote for the same 5000 values (files 2.1 and 2.2 alike), printed by dev/golden/check.py.
 */
class CompressionStrategySuite extends AnyFunSuite {

  /** Stands in for the FSST compressors, so the choice is visible without FSST itself. */
  private final case class FsstMarker(bitsPerOffset: Int) extends MiniBlockCompressor with PerValueCompressor {
    def compress(values: DecodedValues): Nothing = throw new UnsupportedOperationException
  }

  private val v21 = new CompressionStrategy(FileVersion.V2_1, FsstMarker, FsstMarker)
  private val v22 = new CompressionStrategy(FileVersion.V2_2, FsstMarker, FsstMarker)
  private val N = 5000
  private val rnd = new scala.util.Random(1)

  private def meta(kv: (String, String)*): FieldCompression = FieldCompression.fromMetadata("f", kv.toMap)

  /** The encoding the chosen mini-block compressor writes for `values`. */
  private def chosen(s: CompressionStrategy, field: FieldCompression, values: DecodedValues): CompressiveEncoding =
    s.miniBlock(field, values) match {
      case m: FsstMarker => CE.Fsst(Array.emptyByteArray, CE.Variable(CE.Flat(m.bitsPerOffset, None), None))
      case c => roundTrip(c, values)._2
    }

  private def doubles(n: Int): FixedWidthValues = fixed(64, Array.fill(n)(java.lang.Double.doubleToLongBits(rnd.nextDouble())))

  test("sequential ints: inline bit packing (pylance)") {
    for (s <- Seq(v21, v22)) assert(chosen(s, FieldCompression(), fixed(32, Array.tabulate(N)(_.toLong))) == CE.InlineBitpacking(32, None))
  }

  test("runs: RLE (pylance), for 8- and 32-bit values") {
    assert(chosen(v22, FieldCompression(), fixed(32, Array.tabulate(N)(i => (i / 100).toLong))) == CE.Rle(CE.Flat(32, None), CE.Flat(8, None)))
    assert(chosen(v21, FieldCompression(), fixed(8, Array.tabulate(N)(i => (i / 500).toLong))) == CE.Rle(CE.Flat(8, None), CE.Flat(8, None)))
  }

  test("runs that bit-pack smaller stay bit-packed, even past a given RLE threshold (pylance)") {
    val pairs = fixed(64, Array.tabulate(N)(i => (i / 2).toLong))
    assert(chosen(v22, meta(FieldCompression.RleThresholdKey -> "0.9"), pairs) == CE.InlineBitpacking(64, None))
    // A threshold the data misses rules RLE out.
    val runs = fixed(32, Array.tabulate(N)(i => (i / 100 * 1000003).toLong))
    assert(chosen(v22, FieldCompression(), runs).isInstanceOf[CE.Rle])
    assert(chosen(v22, meta(FieldCompression.RleThresholdKey -> "0.005"), runs) == CE.InlineBitpacking(32, None))
  }

  test("random and small negative ints stay flat: bit packing would not shrink them (pylance)") {
    assert(chosen(v22, FieldCompression(), fixed(32, Array.fill(N)(rnd.nextInt().toLong))) == CE.Flat(32, None))
    assert(chosen(v22, FieldCompression(), fixed(32, Array.fill(N)(-rnd.nextInt(100).toLong))) == CE.Flat(32, None))
  }

  test("compression=zstd: doubles in [0, 1) bit-pack under zstd (pylance); byte stream split when bytes repeat or bss=on") {
    val z = BufferCompression(CompressionScheme.Zstd, None)
    assert(chosen(v22, meta(FieldCompression.CompressionKey -> "zstd"), doubles(N)) == CE.General(z, CE.InlineBitpacking(64, None)))
    // Floats of few distinct values have low byte entropy: byte stream split.
    val steps = fixed(32, Array.tabulate(N)(i => java.lang.Float.floatToIntBits((i % 4) * 0.25f + 1).toLong & 0xffffffffL))
    assert(chosen(v22, meta(FieldCompression.CompressionKey -> "zstd"), steps) == CE.General(z, CE.ByteStreamSplit(CE.Flat(32, None))))
    val on = meta(FieldCompression.CompressionKey -> "lz4", FieldCompression.BssKey -> "on")
    assert(chosen(v21, on, doubles(N)) == CE.General(BufferCompression(CompressionScheme.Lz4, None), CE.ByteStreamSplit(CE.Flat(64, None))))
    val off = meta(FieldCompression.CompressionKey -> "zstd", FieldCompression.BssKey -> "off", FieldCompression.LevelKey -> "7")
    assert(chosen(v22, off, steps) == CE.General(BufferCompression(CompressionScheme.Zstd, Some(7)), CE.InlineBitpacking(32, None)))
  }

  test("compression=none: flat, and plain variable-width values (pylance)") {
    val none = meta(FieldCompression.CompressionKey -> "none")
    assert(chosen(v22, none, fixed(64, Array.tabulate(N)(_.toLong))) == CE.Flat(64, None))
    assert(chosen(v22, none, fixed(32, Array.tabulate(N)(i => (i / 100).toLong))) == CE.Flat(32, None))
    assert(chosen(v22, none, strings((0 until N).map(i => s"value number $i"))) == CE.Variable(CE.Flat(32, None), None))
  }

  test("strings: variable when small, FSST when long enough to pay, never FSST for binary (pylance)") {
    assert(chosen(v22, FieldCompression(), strings((0 until 100).map(i => s"s$i"))) == CE.Variable(CE.Flat(32, None), None))
    // 5000 values of 6-10 bytes: more than 32 KiB with the offsets, so FSST.
    val text = strings((0 until N).map(i => s"s${i % 7}x$i"))
    assert(chosen(v22, FieldCompression(), text).isInstanceOf[CE.Fsst])
    assert(v22.miniBlock(FieldCompression(bitsPerOffset = 64), text) == FsstMarker(64))
    // pylance wrote the binary column in 18 chunks of the variable layout.
    val bin = strings((0 until N).map(i => s"s$i"))
    val c = v22.miniBlock(FieldCompression(binary = true), bin)
    val (out, enc) = roundTrip(c, bin)
    assert(enc == CE.Variable(CE.Flat(32, None), None))
    assert(out.chunks.length == 18)
  }

  test("strings with compression=zstd: general around the variable layout, chunked as pylance chunks (20)") {
    val values = strings((0 until N).map(i => s"value $i"))
    val (out, enc) = roundTrip(v22.miniBlock(meta(FieldCompression.CompressionKey -> "zstd"), values), values)
    assert(enc == CE.General(BufferCompression(CompressionScheme.Zstd, None), CE.Variable(CE.Flat(32, None), None)))
    assert(out.chunks.length == 20)
    assert(chosen(v22, meta(FieldCompression.CompressionKey -> "fsst"), strings(Seq("a", "b"))).isInstanceOf[CE.Fsst])
  }

  test("booleans, 128-bit values and fixed-size lists are flat; packed structs row-major") {
    assert(chosen(v22, FieldCompression(), new FixedWidthValues(1, Array.fill(N / 8)(0x49.toByte), N)) == CE.Flat(1, None))
    assert(chosen(v22, FieldCompression(), new FixedWidthValues(128, new Array[Byte](16 * N), N)) == CE.Flat(128, None))
    val fsl = new FixedSizeListValues(4, null, fixed(8, Array.fill(4 * N)(1L)), N)
    assert(chosen(v22, FieldCompression(), fsl) == CE.FixedSizeList(4, false, CE.Flat(8, None)))
    val s = new StructValues(IndexedSeq(fixed(32, Array.fill(10)(1L)), fixed(64, Array.fill(10)(2L))), 10)
    assert(chosen(v22, FieldCompression(), s) == CE.PackedStruct(IndexedSeq(32L, 64L), CE.Flat(96, None)))
  }

  test("levels: inline bit packing up to 1024, out of line above, RLE in 2.2 when runs are long (pylance)") {
    def enc(s: CompressionStrategy, levels: Array[Long]): CompressiveEncoding = {
      val c = s.levels(fixed(16, levels))
      roundTripBlock(c, fixed(16, levels))
      c.encoding
    }
    val every10th = Array.tabulate(N)(i => if (i % 10 == 0) 1L else 0L)
    for (s <- Seq(v21, v22)) {
      assert(enc(s, every10th) == CE.OutOfLineBitpacking(16, CE.Flat(1, None)))
      assert(enc(s, every10th.take(1000)) == CE.InlineBitpacking(16, None))
    }
    // Mostly one level: RLE beats bit packing in 2.2 only.
    val mostlyValid = Array.tabulate(N)(i => if (i == 17) 1L else 0L)
    assert(enc(v22, mostlyValid) == CE.Rle(CE.Flat(16, None), CE.Flat(8, None)))
    assert(enc(v21, mostlyValid) == CE.OutOfLineBitpacking(16, CE.Flat(1, None)))
    // Ten levels: one packed block would not beat 20 raw bytes.
    assert(enc(v21, Array.fill(10)(1L)) == CE.Flat(16, None))
    // Full-width levels still bit-pack out of line (at 16 bits): as in compression.rs, the
    // 2.2 general compression of large blocks is only reached when bit packing is ruled out.
    val wide = Array.tabulate(20000)(i => (i % 65536).toLong * 40503 % 65536)
    assert(enc(v22, wide) == CE.OutOfLineBitpacking(16, CE.Flat(16, None)))
  }

  test("dictionaries (blocks of values): variable or flat, zstd above 32 KiB in 2.2") {
    val small = strings((0 until 10).map(i => s"v$i"))
    assert(v22.block(FieldCompression(), small).encoding == CE.Variable(CE.Flat(32, None), None))
    val large = strings((0 until 5000).map(i => s"dictionary value $i"))
    val z = v22.block(FieldCompression(), large)
    assert(z.encoding == CE.General(General.DefaultCompression, CE.Variable(CE.Flat(32, None), None)))
    roundTripBlock(z, large)
    assert(v21.block(FieldCompression(), large).encoding == CE.Variable(CE.Flat(32, None), None))
    val d128 = new FixedWidthValues(128, Array.tabulate(16 * 3000)(i => (i * 7).toByte), 3000)
    assert(v22.block(FieldCompression(), d128).encoding == CE.General(General.DefaultCompression, CE.Flat(128, None)))
    roundTripBlock(v22.block(FieldCompression(), d128), d128)
    assert(v22.block(meta(FieldCompression.CompressionKey -> "lz4"), small).encoding ==
      CE.General(BufferCompression(CompressionScheme.Lz4, None), CE.Variable(CE.Flat(32, None), None)))
  }

  test("per value: flat for fixed width; zstd for values over 32 KiB; FSST or plain otherwise") {
    assert(v22.perValue(FieldCompression(), fixed(64, Array.fill(10)(3L))) eq Flat.PerValue)
    val long = strings(Seq.tabulate(3)(i => ("abc" * 12000) + i))
    assert(v22.perValue(FieldCompression(), long).isInstanceOf[General.PerValue])
    val medium = strings(Seq.tabulate(200)(i => ("text " * 60) + i))
    assert(v22.perValue(FieldCompression(), medium) == FsstMarker(32))
    assert(v22.perValue(FieldCompression(binary = true), medium).isInstanceOf[VariableLayout.PerValue])
    assert(v22.perValue(meta(FieldCompression.CompressionKey -> "lz4"), medium).isInstanceOf[General.PerValue])
    assert(v22.perValue(meta(FieldCompression.CompressionKey -> "none"), long).isInstanceOf[VariableLayout.PerValue])
  }

  test("field metadata: an unknown scheme is refused; bad levels and modes are ignored") {
    val e = intercept[InvalidArgumentException](meta(FieldCompression.CompressionKey -> "brotli"))
    assert(e.errorClass == "LANCE_INVALID_OPTION")
    val f = meta(FieldCompression.CompressionKey -> "ZSTD", FieldCompression.LevelKey -> "high", FieldCompression.BssKey -> "maybe")
    assert(f.general.contains(BufferCompression(CompressionScheme.Zstd, None)) && f.bss == BssMode.Auto)
  }

  test("statistics of 16-bit values, read four at a time, agree with counting value by value") {
    val rnd = new java.util.SplittableRandom(7)
    (0 until 300).foreach { k =>
      val n = 1 + rnd.nextInt(9000)
      // Levels-like data: short runs of small values, now and then a long one, some just at
      // the 255- and 4096-value cuts.
      val v = new Array[Long](n)
      var i = 0
      while (i < n) {
        val len = rnd.nextInt(20) match {
          case 0 => rnd.nextInt(1500) + 1
          case 1 => Seq(255, 256, 257, 510, 511, 4095, 4096, 4097)(rnd.nextInt(8))
          case _ => rnd.nextInt(12) + 1
        }
        val x = if (k % 3 == 0) rnd.nextInt(65536).toLong else rnd.nextInt(4).toLong
        (i until math.min(n, i + len)).foreach(v(_) = x)
        i += len
      }
      val s = FixedWidthStatistics.of(fixed(16, v))
      val runs = Iterator.iterate(0)(j => (j until n).find(v(_) != v(j)).getOrElse(n)).takeWhile(_ < n)
        .map(j => (j until n).find(v(_) != v(j)).getOrElse(n) - j).toSeq
      assert(s.runCount == runs.size, s"case $k")
      assert(s.blockRuns == runs.map(l => (l + 254) / 255).sum, s"case $k")
      assert(s.miniBlockRuns == runs.map(l => (l / 4096) * 17 + (l % 4096 + 254) / 255).sum, s"case $k")
      assert(s.blockWidths.toSeq == v.grouped(1024).map(b => 64 - java.lang.Long.numberOfLeadingZeros(b.reduce(_ | _))).toSeq, s"case $k")
    }
  }

  test("statistics: block widths, runs and u8 run counts in one pass") {
    val s = FixedWidthStatistics.of(fixed(16, Array.fill(1024)(3L) ++ Array.fill(5000)(0x1234L) ++ Array(-1L)))
    assert(s.blockWidths.toSeq == Seq(2, 13, 13, 13, 13, 16))
    assert(s.runCount == 3)
    assert(s.blockRuns == 5 + 20 + 1) // ceil(1024/255), ceil(5000/255), 1
    assert(s.miniBlockRuns == 5 + (17 + 4) + 1) // 5000 = 4096 + 904
    assert(FixedWidthStatistics.of(fixed(8, Array.fill(64)(7L))).byteEntropyMillibits.toSeq == Seq(0L))
  }
}
