// Spec: lance-format/lance protos/encodings_v2_1.proto `Rle` (values `flat{8|16|32|64}`, run
// lengths `flat{8}`), rust/lance-encoding/src/encodings/physical/rle.rs;
// docs/src/format/file/encoding.md "Run Length Encoding (RLE)".
//
// A mini-block chunk has two value buffers: the run values (native width, little-endian) and one
// u8 length per run; a run longer than 255 is split into runs of at most 255. The runs may cover
// more values than the chunk holds: the Rust writer ends a chunk at a power-of-two value count that
// can fall inside a run, records the whole run, and starts the next chunk with the rest of it. So
// the decoder stops after the chunk's count, and only too few values is an error.
package io.sparklance.format.encoding

import java.io.ByteArrayOutputStream

import io.sparklance.util.{Bytes, Errors, LittleEndian => LE}

object Rle {

  /** Encoded runs: `values` little-endian at the value width, `runLengths` one byte (1..255) per run. */
  final class Runs(val values: Array[Byte], val runLengths: Array[Byte]) {
    def numRuns: Int = runLengths.length
  }

  def decode8(values: Bytes, runLengths: Bytes, numValues: Int): Array[Byte] = {
    val (runs, lengths) = read(FastLanesBitpacking.Words8, values, runLengths, numValues)
    val r = runs.asInstanceOf[Array[Byte]]
    val out = new Array[Byte](numValues)
    expand(lengths, numValues, (i, from, to) => java.util.Arrays.fill(out, from, to, r(i)))
    out
  }

  def decode16(values: Bytes, runLengths: Bytes, numValues: Int): Array[Short] = {
    val (runs, lengths) = read(FastLanesBitpacking.Words16, values, runLengths, numValues)
    val r = runs.asInstanceOf[Array[Short]]
    val out = new Array[Short](numValues)
    expand(lengths, numValues, (i, from, to) => java.util.Arrays.fill(out, from, to, r(i)))
    out
  }

  def decode32(values: Bytes, runLengths: Bytes, numValues: Int): Array[Int] = {
    val (runs, lengths) = read(FastLanesBitpacking.Words32, values, runLengths, numValues)
    val r = runs.asInstanceOf[Array[Int]]
    val out = new Array[Int](numValues)
    expand(lengths, numValues, (i, from, to) => java.util.Arrays.fill(out, from, to, r(i)))
    out
  }

  def decode64(values: Bytes, runLengths: Bytes, numValues: Int): Array[Long] = {
    val (runs, lengths) = read(FastLanesBitpacking.Words64, values, runLengths, numValues)
    val r = runs.asInstanceOf[Array[Long]]
    val out = new Array[Long](numValues)
    expand(lengths, numValues, (i, from, to) => java.util.Arrays.fill(out, from, to, r(i)))
    out
  }

  /**
   * Decodes `numValues` values of `bytesPerValue` bytes (1, 2, 4 or 8) to their little-endian
   * bytes, the form an Arrow buffer wants.
   */
  def decode(values: Bytes, bytesPerValue: Int, runLengths: Bytes, numValues: Int): Array[Byte] = {
    val k = bytesPerValue match {
      case 1 => FastLanesBitpacking.Words8
      case 2 => FastLanesBitpacking.Words16
      case 4 => FastLanesBitpacking.Words32
      case 8 => FastLanesBitpacking.Words64
      case _ => throw Errors.corrupt(values.path, values.fileOffset,
        s"RLE values of $bytesPerValue bytes; Lance run-length encodes 1, 2, 4 or 8-byte values")
    }
    val (_, lengths) = read(k, values, runLengths, numValues)
    val runs = values.toArray
    val out = new Array[Byte](numValues * bytesPerValue)
    expand(lengths, numValues, { (i, from, to) =>
      var p = from * bytesPerValue
      val end = to * bytesPerValue
      val src = i * bytesPerValue
      while (p < end) { System.arraycopy(runs, src, out, p, bytesPerValue); p += bytesPerValue }
    })
    out
  }

  def encode8(values: Array[Byte], off: Int, n: Int): Runs =
    encode(n, (a, b) => values(off + a) == values(off + b), (out, i) => out.write(values(off + i)))

  def encode16(values: Array[Short], off: Int, n: Int): Runs =
    encode(n, (a, b) => values(off + a) == values(off + b), (out, i) => writeLe(out, values(off + i).toLong, 2))

  def encode32(values: Array[Int], off: Int, n: Int): Runs =
    encode(n, (a, b) => values(off + a) == values(off + b), (out, i) => writeLe(out, values(off + i).toLong, 4))

  def encode64(values: Array[Long], off: Int, n: Int): Runs =
    encode(n, (a, b) => values(off + a) == values(off + b), (out, i) => writeLe(out, values(off + i), 8))

  /** Reads and checks both buffers; returns the run values and their lengths. */
  private def read(k: FastLanesBitpacking.WordKind, values: Bytes, runLengths: Bytes, numValues: Int): (AnyRef, Array[Int]) = {
    if (numValues < 0)
      throw Errors.corrupt(values.path, values.fileOffset, s"RLE chunk asked for $numValues values")
    if (values.length % k.bytes != 0)
      throw Errors.corrupt(values.path, values.fileOffset,
        s"RLE run values buffer of ${values.length} bytes is not a whole number of ${k.bits}-bit values")
    val numRuns = values.length / k.bytes
    if (runLengths.length != numRuns)
      throw Errors.corrupt(runLengths.path, runLengths.fileOffset,
        s"RLE chunk has $numRuns run values but ${runLengths.length} run lengths")
    val lengths = new Array[Int](numRuns)
    var covered = 0L
    var i = 0
    while (i < numRuns) { lengths(i) = runLengths.u8(i); covered += lengths(i); i += 1 }
    // Checked before allocating numValues: at most 255 values per run byte.
    if (covered < numValues)
      throw Errors.corrupt(runLengths.path, runLengths.fileOffset,
        s"RLE runs cover $covered values but the chunk holds $numValues")
    if (numValues.toLong * k.bytes > GeneralCompression.MaxArrayBytes)
      throw Errors.unsupported(s"an RLE chunk of $numValues ${k.bits}-bit values (over 2 GiB)", values.path)
    val runs = k.newArray(numRuns)
    k.readWords(values, 0, runs, 0, numRuns, "RLE run values")
    (runs, lengths)
  }

  /** Calls `fill(run, from, to)` for each run, clipped to the first `numValues` positions. */
  private def expand(lengths: Array[Int], numValues: Int, fill: (Int, Int, Int) => Unit): Unit = {
    var pos = 0
    var i = 0
    while (pos < numValues) {
      val end = math.min(numValues, pos + lengths(i))
      fill(i, pos, end)
      pos = end
      i += 1
    }
  }

  private def encode(n: Int, same: (Int, Int) => Boolean, write: (ByteArrayOutputStream, Int) => Unit): Runs = {
    val values = new ByteArrayOutputStream()
    val lengths = new ByteArrayOutputStream()
    var start = 0
    while (start < n) {
      var end = start + 1
      while (end < n && end - start < 255 && same(start, end)) end += 1
      write(values, start)
      lengths.write(end - start)
      start = end
    }
    new Runs(values.toByteArray, lengths.toByteArray)
  }

  private def writeLe(out: ByteArrayOutputStream, v: Long, bytes: Int): Unit = {
    var i = 0
    while (i < bytes) { out.write((v >>> (8 * i)).toInt & 0xff); i += 1 }
  }

  // ---- compressors (rle.rs `RleEncoder` with u8 run lengths, as written for files 2.1 and 2.2) --

  /** A run longer than this is written as several runs. */
  final val MaxRunLength = 255

  /** Bytes one run of `len` values takes: ceil(len / 255) value copies and u8 lengths. */
  @inline private def runBytes(len: Int, width: Int): Int = (len + MaxRunLength - 1) / MaxRunLength * (width + 1)

  /** The value at index `i` of little-endian `width`-byte values, as a bit pattern. */
  @inline private def valueAt(a: Array[Byte], base: Int, i: Int, width: Int): Long = width match {
    case 1 => a(base + i)
    case 2 => LE.getShort(a, base + 2 * i)
    case 4 => LE.getInt(a, base + 4 * i)
    case _ => LE.getLong(a, base + 8 * i)
  }

  /** Run values and u8 lengths as they are written, grown as runs are added. */
  private final class RunWriter(width: Int, expectedRuns: Int) {
    var lengths = new Array[Byte](math.max(16, expectedRuns))
    var values = new Array[Byte](lengths.length * width)
    var runs = 0

    /** Writes the `n` values from index `from` of `src`, splitting runs at 255. */
    def write(src: Array[Byte], base: Int, from: Int, n: Int): Unit = {
      var i = from
      val end = from + n
      while (i < end) {
        val v = valueAt(src, base, i, width)
        var j = i + 1
        while (j < end && j - i < MaxRunLength && valueAt(src, base, j, width) == v) j += 1
        if (runs == lengths.length) {
          lengths = java.util.Arrays.copyOf(lengths, 2 * runs)
          values = java.util.Arrays.copyOf(values, 2 * runs * width)
        }
        System.arraycopy(src, base + i * width, values, runs * width, width)
        lengths(runs) = (j - i).toByte
        runs += 1
        i = j
      }
    }
  }

  /**
   * The mini-block compressor (rle.rs `encode_chunk_rolling`): a chunk takes every remaining
   * value when at most 4096 remain and their runs fit MiniBlockChunk.MaxBytes; otherwise the
   * longest power-of-two prefix (of at most 4096 values) whose runs fit. Runs never cross a
   * chunk boundary. Each chunk has two buffers: run values and u8 run lengths.
   */
  final class MiniBlock(bits: Int) extends MiniBlockCompressor {
    require(bits == 8 || bits == 16 || bits == 32 || bits == 64, s"RLE of $bits-bit values")
    private val width = bits / 8
    val encoding: CompressiveEncoding = CompressiveEncoding.Rle(CompressiveEncoding.Flat(bits, None), CompressiveEncoding.Flat(8, None))

    def compress(values: DecodedValues): (MiniBlockCompressed, CompressiveEncoding) = values match {
      case f: FixedWidthValues if f.bitsPerValue == bits =>
        val n = f.count
        val out = new RunWriter(width, math.max(16, n / 16))
        val chunks = IndexedSeq.newBuilder[MiniBlockChunk]
        // Encoded size of the prefix of 2^k values at sizes(k), and of all `limit` values.
        val sizes = new Array[Int](13)
        var pos = 0
        while (pos < n) {
          val limit = math.min(n - pos, MiniBlockChunk.MaxValues)
          var closed = 0
          var runStart = 0
          var runValue = valueAt(f.data, f.offset, pos, width)
          var fullSize = 0
          var j = 1
          while (j <= limit) {
            val v = valueAt(f.data, f.offset, pos + j - 1, width)
            if (v != runValue) { closed += runBytes(j - 1 - runStart, width); runStart = j - 1; runValue = v }
            if ((j & (j - 1)) == 0) sizes(Integer.numberOfTrailingZeros(j)) = closed + runBytes(j - runStart, width)
            if (j == limit) fullSize = closed + runBytes(j - runStart, width)
            j += 1
          }
          val (take, last) =
            if (n - pos <= MiniBlockChunk.MaxValues && fullSize <= MiniBlockChunk.MaxBytes) (limit, true)
            else {
              var k = 31 - Integer.numberOfLeadingZeros(limit)
              // Two values of at most 8 bytes always fit, so the search ends at k >= 1.
              while (k > 1 && sizes(k) > MiniBlockChunk.MaxBytes) k -= 1
              (1 << k, false)
            }
          val runsBefore = out.runs
          out.write(f.data, f.offset, pos, take)
          val runs = out.runs - runsBefore
          chunks += MiniBlockChunk(IndexedSeq(runs * width, runs), if (last) 0 else Integer.numberOfTrailingZeros(take))
          pos += take
        }
        val buffers = if (n == 0) IndexedSeq.empty[Array[Byte]]
          else IndexedSeq(java.util.Arrays.copyOf(out.values, out.runs * width), java.util.Arrays.copyOf(out.lengths, out.runs))
        (new MiniBlockCompressed(buffers, chunks.result(), n), encoding)
      case other => throw new IllegalArgumentException(s"$bits-bit RLE cannot hold ${other.describe}")
    }
  }

  /** The block compressor (rep/def levels, 2.2): `[u64 values bytes][run values][u8 run lengths]`. */
  final class Block(bits: Int) extends BlockCompressor {
    require(bits == 8 || bits == 16 || bits == 32 || bits == 64, s"RLE of $bits-bit values")
    private val width = bits / 8
    val encoding: CompressiveEncoding = CompressiveEncoding.Rle(CompressiveEncoding.Flat(bits, None), CompressiveEncoding.Flat(8, None))

    def compress(values: DecodedValues): Array[Byte] = values match {
      case f: FixedWidthValues if f.bitsPerValue == bits =>
        val out = new RunWriter(width, 16)
        out.write(f.data, f.offset, 0, f.count)
        val valuesBytes = out.runs * width
        val result = new Array[Byte](8 + valuesBytes + out.runs)
        LE.putLong(result, 0, valuesBytes.toLong)
        System.arraycopy(out.values, 0, result, 8, valuesBytes)
        System.arraycopy(out.lengths, 0, result, 8 + valuesBytes, out.runs)
        result
      case other => throw new IllegalArgumentException(s"$bits-bit RLE cannot hold ${other.describe}")
    }
  }
}
