// Spec: lance-format/lance rust/lance-encoding/src/statistics.rs (`Stat::BitWidth`, `RunCount`,
// `BytePositionEntropy`, `DataSize`, `MaxLength`) and the run-length size model of
// encodings/physical/rle.rs (`collect_run_length_entries`, u8 run lengths). These are the facts
// the compression strategy decides from; the Rust writer computes each one in its own pass,
// we compute the fixed-width ones in a single pass over the little-endian bytes.
package io.sparklance.format.encoding

import io.sparklance.util.{LittleEndian => LE}

/**
 * Statistics of a page of fixed-width values.
 *
 * @param blockWidths    for 8/16/32/64-bit values, the bit length of the OR of each 1024-value
 *                       block (the width inline bit packing packs it at); empty otherwise
 * @param runCount       runs of equal adjacent values (8/16/32/64-bit values; else `count`)
 * @param miniBlockRuns  runs written by the u8 RLE mini-block encoder when every run is also
 *                       cut at 4096 values (`MiniBlockChunk.MaxValues`), then at 255
 * @param blockRuns      runs written by the u8 RLE block encoder (cut at 255 only)
 * byteEntropyMillibits (computed when asked): the Shannon entropy of each byte position over the first 64
 *                       values, in thousandths of a bit, truncated as the Rust writer stores it
 */
final class FixedWidthStatistics(
    val bitsPerValue: Int,
    val count: Int,
    val blockWidths: Array[Int],
    val runCount: Long,
    val miniBlockRuns: Long,
    val blockRuns: Long,
    entropyOf: => Array[Long]) {

  /** Computed when asked: only byte-stream-split's choice (floats) reads it, and a page's levels are scanned chunk by chunk. */
  lazy val byteEntropyMillibits: Array[Long] = entropyOf

  /** Bytes the values take flat. */
  def dataSize: Long = (count.toLong * bitsPerValue + 7) / 8

  /** The widest 1024-value block (the width out-of-line bit packing uses). */
  def maxBlockWidth: Int = {
    var m = 0
    var i = 0
    while (i < blockWidths.length) { m = math.max(m, blockWidths(i)); i += 1 }
    m
  }
}

object FixedWidthStatistics {

  /** Values the byte-position entropy is estimated from (statistics.rs `SAMPLE_SIZE`). */
  final val EntropySample = 64

  private final val Block = FastLanesBitpacking.BlockValues

  def of(v: FixedWidthValues): FixedWidthStatistics = {
    val n = v.count
    val acc = new RunAccumulator
    val widths = v.bitsPerValue match {
      case 8 | 16 | 32 | 64 if n > 0 =>
        val w = new Array[Int]((n + Block - 1) / Block)
        v.bitsPerValue match {
          case 8 => scan8(v.data, v.offset, n, w, acc)
          case 16 => scan16(v.data, v.offset, n, w, acc)
          case 32 => scan32(v.data, v.offset, n, w, acc)
          case 64 => scan64(v.data, v.offset, n, w, acc)
        }
        w
      // statistics.rs reports one width of 0 for an empty page and none for other widths.
      case 8 | 16 | 32 | 64 => Array(0)
      case _ => acc.runs = n; Array.emptyIntArray
    }
    new FixedWidthStatistics(v.bitsPerValue, n, widths, acc.runs, acc.miniBlockRuns, acc.blockRuns, entropy(v))
  }

  /** Counts runs as they close; one per page, so the scan loops allocate nothing. */
  private final class RunAccumulator {
    var runs = 0L
    var miniBlockRuns = 0L
    var blockRuns = 0L
    // A run of `len` values costs ceil(len / 255) u8 runs; the mini-block encoder also cuts it
    // at each 4096 values, and 4096 values take 17 u8 runs.
    // The scans count runs of up to 255 values in a local and hand them over at the end
    // (`addShort`), so the per-value path touches no field; longer runs close one by one.
    def close(len: Long): Unit = if (len <= 255) addShort(1) else closeLong(len)

    /** `count` runs of at most 255 values each. */
    def addShort(count: Long): Unit = { runs += count; blockRuns += count; miniBlockRuns += count }

    def closeLong(len: Long): Unit = {
      runs += 1
      blockRuns += (len + 254) / 255
      val whole = len / MiniBlockChunk.MaxValues
      miniBlockRuns += whole * ((MiniBlockChunk.MaxValues + 254) / 255) + (len - whole * MiniBlockChunk.MaxValues + 254) / 255
    }
  }

  // One loop per word size: a per-value switch on the width would cost more than the scan.

  private def scan8(a: Array[Byte], base: Int, n: Int, widths: Array[Int], acc: RunAccumulator): Unit = {
    var prev = a(base)
    var run = 0L
    var short = 0L
    var i = 0
    var b = 0
    while (i < n) {
      val end = math.min(n, i + Block)
      var or = 0
      while (i < end) {
        val x = a(base + i)
        or |= x
        if (x != prev) { if (run <= 255) short += 1 else acc.closeLong(run); run = 1; prev = x } else run += 1
        i += 1
      }
      widths(b) = 32 - Integer.numberOfLeadingZeros(or & 0xff)
      b += 1
    }
    acc.addShort(short)
    acc.close(run)
  }

  // 16-bit values are mostly rep/def levels, whose runs end wherever the data says (at every list
  // start), so a per-value branch on "run ended" would mispredict once a list. Four values are
  // read as one word instead: the lanes that differ from the lane before are found with masks and
  // counted, and only a run longer than 255 values (rare in levels) takes a branch.
  private final val Lanes16Low = 0x7fff7fff7fff7fffL
  private final val Lanes16High = 0x8000800080008000L

  private def scan16(a: Array[Byte], base: Int, n: Int, widths: Array[Int], acc: RunAccumulator): Unit = {
    var prev = LE.getShort(a, base) & 0xffffL // the value before `i`
    var runStart = 0                            // where the run holding `i - 1` started
    var ends = 0L                               // runs ended so far
    var longEnds = 0L                           // of which longer than 255 values
    var i = 0
    var b = 0
    while (i < n) {
      val end = math.min(n, i + Block)
      var or = 0L
      while (i + 4 <= end) {
        val w = LE.getLong(a, base + 2 * i)
        or |= w
        val d = w ^ ((w << 16) | prev)
        // The top bit of each lane whose value differs from the one before it.
        val t = (((d & Lanes16Low) + Lanes16Low) | d) & Lanes16High
        val any = (t | -t) >>> 63
        val first = i + (java.lang.Long.numberOfTrailingZeros(t) >>> 4)
        val len = first - runStart
        if ((((255 - len) >>> 31) & any) != 0) { acc.closeLong(len); longEnds += 1 }
        ends += java.lang.Long.bitCount(t)
        runStart += ((i + 3 - (java.lang.Long.numberOfLeadingZeros(t) >>> 4)) - runStart) & -any.toInt
        prev = w >>> 48
        i += 4
      }
      while (i < end) {
        val x = LE.getShort(a, base + 2 * i) & 0xffffL
        or |= x
        if (x != prev) {
          val len = i - runStart
          if (len > 255) { acc.closeLong(len); longEnds += 1 }
          ends += 1
          runStart = i
          prev = x
        }
        i += 1
      }
      val lanes = or | (or >>> 16) | (or >>> 32) | (or >>> 48)
      widths(b) = 32 - Integer.numberOfLeadingZeros(lanes.toInt & 0xffff)
      b += 1
    }
    acc.addShort(ends - longEnds)
    acc.close(n - runStart)
  }

  private def scan32(a: Array[Byte], base: Int, n: Int, widths: Array[Int], acc: RunAccumulator): Unit = {
    var prev = LE.getInt(a, base)
    var run = 0L
    var short = 0L
    var i = 0
    var b = 0
    while (i < n) {
      val end = math.min(n, i + Block)
      var or = 0
      while (i < end) {
        val x = LE.getInt(a, base + 4 * i)
        or |= x
        if (x != prev) { if (run <= 255) short += 1 else acc.closeLong(run); run = 1; prev = x } else run += 1
        i += 1
      }
      widths(b) = 32 - Integer.numberOfLeadingZeros(or)
      b += 1
    }
    acc.addShort(short)
    acc.close(run)
  }

  private def scan64(a: Array[Byte], base: Int, n: Int, widths: Array[Int], acc: RunAccumulator): Unit = {
    var prev = LE.getLong(a, base)
    var run = 0L
    var short = 0L
    var i = 0
    var b = 0
    while (i < n) {
      val end = math.min(n, i + Block)
      var or = 0L
      while (i < end) {
        val x = LE.getLong(a, base + 8 * i)
        or |= x
        if (x != prev) { if (run <= 255) short += 1 else acc.closeLong(run); run = 1; prev = x } else run += 1
        i += 1
      }
      widths(b) = 64 - java.lang.Long.numberOfLeadingZeros(or)
      b += 1
    }
    acc.addShort(short)
    acc.close(run)
  }

  /** statistics.rs `byte_position_entropy`: per byte position, over the first 64 values. */
  private def entropy(v: FixedWidthValues): Array[Long] = {
    val sample = math.min(v.count, EntropySample)
    if (sample == 0 || v.bitsPerValue % 8 != 0) return Array.emptyLongArray
    val width = v.bytesPerValue
    val counts = new Array[Int](256)
    Array.tabulate(width) { pos =>
      java.util.Arrays.fill(counts, 0)
      var i = 0
      while (i < sample) { counts(v.data(v.offset + i * width + pos) & 0xff) += 1; i += 1 }
      var e = 0.0
      var c = 0
      while (c < 256) {
        if (counts(c) > 0) { val p = counts(c).toDouble / sample; e -= p * (math.log(p) / math.log(2)) }
        c += 1
      }
      (e * 1000.0).toLong
    }
  }
}

/** Statistics of a page of variable-width values (statistics.rs `DataSize`, `MaxLength`). */
final class VariableStatistics(val maxLength: Long, val dataSize: Long)

object VariableStatistics {
  /** `dataSize` counts the value bytes plus the offsets at `bitsPerOffset` bits, as the Rust writer does. */
  def of(v: VariableData, bitsPerOffset: Int): VariableStatistics = {
    var max = 0
    var i = 0
    val o = v.offsets
    while (i < v.count) { max = math.max(max, o(i + 1) - o(i)); i += 1 }
    new VariableStatistics(max, v.dataLength.toLong + (v.count + 1L) * (bitsPerOffset / 8))
  }
}
