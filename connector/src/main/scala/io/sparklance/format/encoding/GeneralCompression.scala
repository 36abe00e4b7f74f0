// Spec: lance-format/lance protos/encodings_v2_1.proto `General` / `BufferCompression`,
// rust/lance-encoding/src/encodings/physical/block.rs (zstd and lz4 buffer compressors) and
// physical/general.rs; docs/src/format/file/encoding.md "General".
//
// Byte formats:
//  * zstd: `[u64 LE uncompressed length][zstd frame]`. Older writers stored a bare frame; the Rust
//    reader recognises it by the frame magic 0xFD2FB528 with the reserved bit (0x10) of the frame
//    header descriptor clear. A length prefix could only begin with those bytes for a buffer of
//    more than 4 GiB, so the test is safe in practice. Empty input decodes to nothing.
//  * lz4: `[u32 LE uncompressed length][raw LZ4 block]` (the lz4 crate's `prepend_size`).
// Every declared length is checked against the caller's limit before any allocation, and the
// decompressed size must equal the declared one.
package io.sparklance.format.encoding

import java.io.{ByteArrayInputStream, IOException}

import com.github.luben.zstd.{Zstd, ZstdCompressCtx, ZstdInputStreamNoFinalizer}
import net.jpountz.lz4.{LZ4Exception, LZ4Factory}

import io.sparklance.util.{Bytes, Errors, LittleEndian => LE}

object GeneralCompression {

  final val ZstdMagic = 0xFD2FB528
  /** zstd's own default; the Rust writer asks for level 0, which zstd maps to this. */
  final val DefaultZstdLevel = 3

  // Hostile input is the threat model: the pure-Java safe decompressor bounds-checks every read
  // and write and relies on neither JNI nor sun.misc.Unsafe.
  private lazy val lz4Decompressor = LZ4Factory.safeInstance().safeDecompressor()
  private lazy val lz4Compressor = LZ4Factory.fastestInstance().fastCompressor()

  /** The largest array a JVM allocates; a larger limit from the caller is lowered to this. */
  final val MaxArrayBytes: Int = Int.MaxValue - 8

  /**
   * Decompresses `src` with `scheme`, producing at most `maxBytes` bytes. The result is a view
   * that reports the compressed buffer's path and file offset, the best location there is for
   * errors found in decompressed data.
   */
  def decompress(scheme: CompressionScheme, src: Bytes, maxBytes: Long): Bytes = {
    val out = scheme match {
      case CompressionScheme.Zstd => decompressZstd(src, maxBytes)
      case CompressionScheme.Lz4 => decompressLz4(src, maxBytes)
    }
    Bytes.wrap(src.path, src.fileOffset, out)
  }

  /** Decompresses a zstd buffer whose output may be at most `maxBytes` bytes long. */
  def decompressZstd(src: Bytes, maxBytes: Long): Array[Byte] = {
    require(maxBytes >= 0, s"negative limit $maxBytes")
    if (src.length == 0) return Array.emptyByteArray
    if (isBareZstdFrame(src)) return decompressBareZstd(src, limit(maxBytes))
    val declared = src.u64AsSize(0, "zstd uncompressed length")
    checkDeclared(src, declared, limit(maxBytes), "zstd")
    val in = new Array[Byte](src.length - 8)
    src.copyTo(8, in, 0, in.length)
    val out = new Array[Byte](declared.toInt)
    val got =
      try Zstd.decompressByteArray(out, 0, out.length, in, 0, in.length)
      catch { case e: RuntimeException => throw Errors.corrupt(src.path, src.fileOffset + 8, s"zstd data does not decode (${e.getMessage})", e) }
    if (Zstd.isError(got))
      throw Errors.corrupt(src.path, src.fileOffset + 8, s"zstd data does not decode (${Zstd.getErrorName(got)})")
    if (got != declared)
      throw Errors.corrupt(src.path, src.fileOffset, s"zstd data decodes to $got bytes but its header declares $declared")
    out
  }

  /** `[u64 LE length][frame]`, the form the Rust writer produces. */
  def compressZstd(data: Array[Byte], level: Int = DefaultZstdLevel): Array[Byte] =
    compress(BufferCompression(CompressionScheme.Zstd, Some(level)), data)

  /** Compresses one buffer in the framing of `compression`. */
  def compress(compression: BufferCompression, data: Array[Byte]): Array[Byte] = {
    val c = new Compressor(compression)
    try c.compress(data, 0, data.length) finally c.close()
  }

  /**
   * Compresses buffers with one scheme, each in the framing above. A writer keeps one per page:
   * the zstd context is set up once rather than per buffer. Not thread-safe; close it after use.
   */
  final class Compressor(compression: BufferCompression) extends AutoCloseable {
    private var zstd: ZstdCompressCtx = _

    /** The most bytes `compress` writes for `len` input bytes. */
    def bound(len: Int): Int = compression.scheme match {
      case CompressionScheme.Zstd => Math.toIntExact(8 + Zstd.compressBound(len.toLong))
      case CompressionScheme.Lz4 => 4 + lz4Compressor.maxCompressedLength(len)
    }

    /** Compresses `src(off until off + len)` to `dst(at)`, which has `bound(len)` bytes free; returns the bytes written. */
    def compress(src: Array[Byte], off: Int, len: Int, dst: Array[Byte], at: Int): Int = compression.scheme match {
      case CompressionScheme.Zstd =>
        if (zstd == null) zstd = new ZstdCompressCtx().setLevel(compression.level.getOrElse(DefaultZstdLevel))
        LE.putLong(dst, at, len.toLong)
        8 + zstd.compressByteArray(dst, at + 8, dst.length - at - 8, src, off, len)
      case CompressionScheme.Lz4 =>
        LE.putInt(dst, at, len)
        4 + lz4Compressor.compress(src, off, len, dst, at + 4, dst.length - at - 4)
    }

    /** Compresses `src(off until off + len)` into a buffer of its own. */
    def compress(src: Array[Byte], off: Int, len: Int): Array[Byte] = {
      val out = new Array[Byte](bound(len))
      java.util.Arrays.copyOf(out, compress(src, off, len, out, 0))
    }

    def close(): Unit = if (zstd != null) { zstd.close(); zstd = null }
  }

  /** Decompresses an lz4 buffer whose output may be at most `maxBytes` bytes long. */
  def decompressLz4(src: Bytes, maxBytes: Long): Array[Byte] = {
    require(maxBytes >= 0, s"negative limit $maxBytes")
    src.check(0, 4, "lz4 uncompressed length")
    val declared = src.u32(0)
    checkDeclared(src, declared, limit(maxBytes), "lz4")
    val in = new Array[Byte](src.length - 4)
    src.copyTo(4, in, 0, in.length)
    val out = new Array[Byte](declared.toInt)
    val got =
      try lz4Decompressor.decompress(in, 0, in.length, out, 0, out.length)
      catch {
        // lz4-java 1.8.0 (Spark 4.1 ships it) can fail on a truncated block with an index error instead of LZ4Exception.
        case e @ (_: LZ4Exception | _: IndexOutOfBoundsException) =>
          throw Errors.corrupt(src.path, src.fileOffset + 4, s"lz4 block does not decode (${e.getMessage})", e)
      }
    if (got != declared)
      throw Errors.corrupt(src.path, src.fileOffset, s"lz4 block decodes to $got bytes but its header declares $declared")
    out
  }

  /** `[u32 LE length][raw LZ4 block]`. */
  def compressLz4(data: Array[Byte]): Array[Byte] = compress(BufferCompression(CompressionScheme.Lz4, None), data)

  private def limit(maxBytes: Long): Int = math.min(maxBytes, MaxArrayBytes.toLong).toInt

  private def checkDeclared(src: Bytes, declared: Long, maxBytes: Int, what: String): Unit =
    if (declared > maxBytes)
      throw Errors.corrupt(src.path, src.fileOffset,
        s"$what buffer declares $declared uncompressed bytes, more than the $maxBytes this buffer can hold")

  private def isBareZstdFrame(src: Bytes): Boolean =
    if (src.length < 8) true // too short for a length prefix; only a frame is possible
    else src.i32(0) == ZstdMagic && (src.u8(4) & 0x10) == 0

  /** A bare frame need not record its size, so stream it and stop at the limit. */
  private def decompressBareZstd(src: Bytes, maxBytes: Int): Array[Byte] = {
    val in = new ZstdInputStreamNoFinalizer(new ByteArrayInputStream(src.toArray))
    try {
      var out = new Array[Byte](math.min(math.max(src.length.toLong * 4, 64L), maxBytes.toLong).toInt)
      var n = 0
      var result: Array[Byte] = null
      while (result == null) {
        if (n == out.length) {
          if (n >= maxBytes) {
            // Output of exactly maxBytes is fine; one byte more is not.
            if (in.read() >= 0)
              throw Errors.corrupt(src.path, src.fileOffset, s"zstd frame decodes to more than $maxBytes bytes, the most this buffer can hold")
            result = out
          } else out = java.util.Arrays.copyOf(out, math.min(maxBytes.toLong, math.max(2L * n, 64L)).toInt)
        }
        if (result == null) {
          val r = in.read(out, n, out.length - n)
          if (r < 0) result = java.util.Arrays.copyOf(out, n) else n += r
        }
      }
      result
    } catch {
      case e: IOException => throw Errors.corrupt(src.path, src.fileOffset, s"zstd frame does not decode (${e.getMessage})", e)
      case e: RuntimeException if !e.isInstanceOf[io.sparklance.util.LanceException] =>
        throw Errors.corrupt(src.path, src.fileOffset, s"zstd frame does not decode (${e.getMessage})", e)
    } finally in.close()
  }
}
