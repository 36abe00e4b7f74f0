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

import io.sparklance.util.{Bytes, Errors}

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
}
