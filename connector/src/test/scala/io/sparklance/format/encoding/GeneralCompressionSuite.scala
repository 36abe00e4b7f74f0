package io.sparklance.format.encoding

import java.io.ByteArrayOutputStream
import java.nio.{ByteBuffer, ByteOrder}

import com.github.luben.zstd.{Zstd, ZstdOutputStream}
import io.sparklance.format.encoding.EncodingFixtures._
import io.sparklance.util.CorruptFileException
import org.scalatest.funsuite.AnyFunSuite

class GeneralCompressionSuite extends AnyFunSuite {

  private val Limit = 1 << 20

  private def samples: Seq[Array[Byte]] = {
    val rnd = new scala.util.Random(5)
    Seq(
      Array.emptyByteArray,
      Array[Byte](42),
      Array.fill(1000)(7.toByte),
      Array.tabulate(100000)(i => (i % 251 * (i / 1000)).toByte),
      Array.fill(5000)(rnd.nextInt().toByte))
  }

  test("zstd round trip, with the u64 length prefix") {
    for (data <- samples; level <- Seq(1, GeneralCompression.DefaultZstdLevel, 19)) {
      val c = GeneralCompression.compressZstd(data, level)
      assert(ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN).getLong(0) == data.length)
      assert(GeneralCompression.decompressZstd(bytes(c), Limit).sameElements(data))
    }
  }

  test("lz4 round trip, with the u32 length prefix") {
    for (data <- samples) {
      val c = GeneralCompression.compressLz4(data)
      assert(ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN).getInt(0) == data.length)
      assert(GeneralCompression.decompressLz4(bytes(c), Limit).sameElements(data))
    }
  }

  test("pylance zstd chunk decompresses to an inline bit-packed block of the written values") {
    val out = GeneralCompression.decompress(CompressionScheme.Zstd, bytes(hex(PylanceChunks.ZstdChunk0Hex)), Limit)
    assert(out.length == 1284 && out.path == Path)
    assert(ints(InlineBitpacking.decode(32, out, 1024)).sameElements((0 until 1024).map(PylanceChunks.generalValue)))
  }

  test("pylance lz4 chunk decompresses to an inline bit-packed block of the written values") {
    val out = GeneralCompression.decompress(CompressionScheme.Lz4, bytes(hex(PylanceChunks.Lz4Chunk0Hex)), Limit)
    assert(out.length == 1284)
    assert(ints(InlineBitpacking.decode(32, out, 1024)).sameElements((0 until 1024).map(PylanceChunks.generalValue)))
  }

  test("a bare zstd frame (older writers) is recognised, with or without a recorded content size") {
    for (data <- samples.filter(_.nonEmpty)) {
      assert(GeneralCompression.decompressZstd(bytes(Zstd.compress(data)), Limit).sameElements(data))
      val streamed = new ByteArrayOutputStream()
      val z = new ZstdOutputStream(streamed)
      z.write(data)
      z.close()
      assert(GeneralCompression.decompressZstd(bytes(streamed.toByteArray), Limit).sameElements(data))
    }
    assert(GeneralCompression.decompressZstd(bytes(Array.emptyByteArray), 0).isEmpty)
  }

  test("a length prefix that happens to start with the zstd magic is still a length prefix") {
    // 0xFD2FB528 as the low half of the u64 length would be a 4 GB buffer, but the reserved bit
    // of the would-be frame header byte (byte 4, the length's fifth byte) is what decides.
    val fake = Array[Byte](0x28, 0xb5.toByte, 0x2f, 0xfd.toByte, 0x10, 0, 0, 0, 1, 2, 3)
    val e = intercept[CorruptFileException](GeneralCompression.decompressZstd(bytes(fake), Limit))
    assert(e.getMessage.contains("declares"))
  }

  test("declared sizes above the limit are refused before allocating") {
    val huge = new Array[Byte](16)
    ByteBuffer.wrap(huge).order(ByteOrder.LITTLE_ENDIAN).putLong(1L << 40)
    intercept[CorruptFileException](GeneralCompression.decompressZstd(bytes(huge), Limit))
    ByteBuffer.wrap(huge).order(ByteOrder.LITTLE_ENDIAN).putLong(-1L)
    intercept[CorruptFileException](GeneralCompression.decompressZstd(bytes(huge), Long.MaxValue))
    val lz = Array[Byte](-1, -1, -1, -1, 0, 0)
    intercept[CorruptFileException](GeneralCompression.decompressLz4(bytes(lz), Limit))
    val data = Array.fill(5000)(1.toByte)
    intercept[CorruptFileException](GeneralCompression.decompressZstd(bytes(GeneralCompression.compressZstd(data)), 4999))
    intercept[CorruptFileException](GeneralCompression.decompressLz4(bytes(GeneralCompression.compressLz4(data)), 4999))
    assert(GeneralCompression.decompressZstd(bytes(GeneralCompression.compressZstd(data)), 5000).length == 5000)
    // A bare frame has no trustworthy size: it is streamed and cut off at the limit.
    intercept[CorruptFileException](GeneralCompression.decompressZstd(bytes(Zstd.compress(data)), 4999))
    assert(GeneralCompression.decompressZstd(bytes(Zstd.compress(data)), 5000).length == 5000)
  }

  test("a declared length that disagrees with the data is a CorruptFile error") {
    val data = Array.tabulate(3000)(_.toByte)
    for (delta <- Seq(-1, 1, 100)) {
      val z = GeneralCompression.compressZstd(data)
      ByteBuffer.wrap(z).order(ByteOrder.LITTLE_ENDIAN).putLong(data.length + delta)
      intercept[CorruptFileException](GeneralCompression.decompressZstd(bytes(z), Limit))
      val l = GeneralCompression.compressLz4(data)
      ByteBuffer.wrap(l).order(ByteOrder.LITTLE_ENDIAN).putInt(data.length + delta)
      intercept[CorruptFileException](GeneralCompression.decompressLz4(bytes(l), Limit))
    }
  }

  test("truncated buffers are CorruptFile errors") {
    val data = Array.tabulate(3000)(i => (i * i).toByte)
    val z = GeneralCompression.compressZstd(data)
    val l = GeneralCompression.compressLz4(data)
    for (cut <- Seq(1, 3, 8, 9, z.length / 2, z.length - 1))
      intercept[CorruptFileException](GeneralCompression.decompressZstd(bytes(java.util.Arrays.copyOf(z, cut)), Limit))
    for (cut <- Seq(0, 3, 4, 5, l.length / 2, l.length - 1))
      intercept[CorruptFileException](GeneralCompression.decompressLz4(bytes(java.util.Arrays.copyOf(l, cut)), Limit))
    val frame = Zstd.compress(data)
    intercept[CorruptFileException](GeneralCompression.decompressZstd(bytes(java.util.Arrays.copyOf(frame, frame.length - 3)), Limit))
  }

  test("damaged buffers raise CorruptFile or decode, never anything else") {
    val data = Array.tabulate(20000)(i => (i % 97 + i / 500).toByte)
    for ((what, b) <- damaged(GeneralCompression.compressZstd(data), 1))
      corruptOrOk(what)(GeneralCompression.decompressZstd(bytes(b), Limit))
    for ((what, b) <- damaged(Zstd.compress(data), 2))
      corruptOrOk(what)(GeneralCompression.decompressZstd(bytes(b), Limit))
    for ((what, b) <- damaged(GeneralCompression.compressLz4(data), 3))
      corruptOrOk(what)(GeneralCompression.decompressLz4(bytes(b), Limit))
  }
}
