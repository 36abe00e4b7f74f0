// Spec: lance-format/lance rust/compression/fsst/src/fsst.rs (`compress`, `make_sample`,
// `build_symbol_table`, `SymbolTable::finalize`, `compress_bulk`, `FsstEncoder::export`), itself
// after Boncz, Neumann, Leis, "FSST: Fast Random Access String Compression" (VLDB 2020). The table
// format is described in Fsst.scala.
//
// How Lance builds a page's table, and how we do:
//  * Pages whose value bytes are under 32 KiB are not compressed: the table has its encoder switch
//    off and no symbols, and the values are kept verbatim.
//  * Otherwise whole values are drawn at random until the sample holds at least 16 KiB.
//  * The table is grown in generations. Each generation compresses the sample with the current
//    table (greedy longest match), counting how often each code occurs and how often each pair of
//    consecutive codes occurs (16-bit saturating counters); the sample's gain (bytes saved by
//    multi-byte symbols) picks the best generation seen. The next table takes the 255 best
//    candidates by count·length among the codes seen (single bytes weighted 8×) and the
//    concatenations of consecutive pairs (cut to 8 bytes), counts below 5·frac/128 ignored.
//    Generations use frac = 8, 38, 68, 98, 108, and a last count at 128 only scores the fifth table.
//  * The least frequent byte of the sample is the "terminator": it is never part of a multi-byte
//    symbol and always gets a single-byte symbol of its own.
//  * A symbol of three or more bytes lives in a 1024-slot hash table keyed by its first three
//    bytes, one per slot; a candidate whose slot is taken is dropped.
//  * The final table is renumbered by length: two-byte symbols that start a longer symbol, the
//    other two-byte symbols, then lengths 3..8, single bytes last; the header records the number
//    of the first group (suffix_lim) and the terminator.
//
// Where we differ, on purpose (no decoder can tell; the tables only get better):
//  * The sample is drawn with a seeded generator from the non-empty values, so that the same page
//    always gives the same file (Lance seeds from the OS; drawing empty values adds nothing).
//  * Lance looks up the first symbol of a value, and the symbols in a value's last 7 bytes, by a
//    hash of the whole remaining word rather than of its first three bytes, so those lookups find
//    only single bytes; we find the longest symbol everywhere, as the paper does.
//  * Lance's candidate set tells apart equal byte strings that came from different codes (a
//    byte seen escaped and the same byte's symbol), which can spend two of the 255 slots on one
//    symbol; we merge them by bytes and length, as the paper does.
//  * Lance compresses long values in 511-byte pieces; we match across those boundaries.
package io.sparklance.format.encoding

import java.util.SplittableRandom

import io.sparklance.util.{Errors, LittleEndian => LE}

/** A page's values after FSST: the 2312-byte table for the encoding description, and the codes. */
final class FsstCompressed(val symbolTable: Array[Byte], val values: VariableData)

object FsstEncoder {

  /** Below this many value bytes Lance keeps the page verbatim (`FSST_LEAST_INPUT_SIZE`). */
  final val LeastInputBytes = 32 * 1024
  private final val SampleTarget = 16 * 1024
  private final val Generations = Array(8, 38, 68, 98, 108)
  private final val LastFrac = 128
  private final val MaxSymbols = 255
  private final val HashSlots = 1024
  private final val Magic = 0x46535354L
  private final val CounterMax = 0xffff
  /** Fixed, so that the same page always compresses to the same bytes. */
  private final val SampleSeed = 0x46535354L

  /** Compresses every value of `data` with a table trained on a sample of it. */
  def compress(data: VariableData): FsstCompressed = {
    if (data.dataLength < LeastInputBytes) return new FsstCompressed(Fsst.verbatimSymbolTable(), data)
    val table = SymbolTable.train(data)
    new FsstCompressed(table.export(), table.compress(data))
  }

  // The FSST hash of a symbol's first three bytes (Lance's `fsst_hash`), reduced to a slot.
  @inline private def slot(w: Long): Int = {
    val h = (w & 0xffffffL) * 2971215073L
    ((h ^ (h >>> 15)) & (HashSlots - 1)).toInt
  }

  /**
   * The table while it is trained, with Lance's code space: codes 0..255 stand for the escaped
   * byte of that value, codes 256.. for the symbols (at most 255 of them).
   */
  private final class Trainer(terminator: Int) {
    val values = new Array[Long](512)
    val lengths = new Array[Int](512)
    var n = 0
    // The code of each byte (its symbol, else its escape), of each two-byte symbol (0: none) and
    // of each longer symbol by slot (-1: free; `slotMask` 0 and `slotValue` -1 never match).
    private val byteCode = new Array[Int](256)
    private val shortCode = new Array[Int](65536)
    private val slotCode = new Array[Int](HashSlots)
    private val slotValue = new Array[Long](HashSlots)
    private val slotMask = new Array[Long](HashSlots)
    clear()

    def clear(): Unit = {
      var b = 0
      while (b < 256) { values(b) = b; lengths(b) = 1; byteCode(b) = b; b += 1 }
      java.util.Arrays.fill(shortCode, 0)
      java.util.Arrays.fill(slotCode, -1)
      java.util.Arrays.fill(slotValue, -1L)
      java.util.Arrays.fill(slotMask, 0L)
      n = 0
    }

    /** Adds a symbol unless its slot is taken; false when it was dropped. */
    def add(value: Long, len: Int): Boolean = {
      val code = 256 + n
      if (len == 1) byteCode(value.toInt & 0xff) = code
      else if (len == 2) shortCode(value.toInt & 0xffff) = code
      else {
        val s = slot(value)
        if (slotCode(s) >= 0) return false
        slotCode(s) = code
        slotValue(s) = value
        slotMask(s) = LE.lowBytes(len)
      }
      values(code) = value
      lengths(code) = len
      n += 1
      true
    }

    /** The code of the longest symbol that starts `w`, of which `remaining` bytes are real. */
    @inline def longest(w: Long, remaining: Int): Int = {
      val s = slot(w)
      val c = slotCode(s)
      if (c >= 0 && (w & slotMask(s)) == slotValue(s) && lengths(c) <= remaining) c
      else {
        val two = if (remaining >= 2) shortCode(w.toInt & 0xffff) else 0
        if (two != 0) two else byteCode(w.toInt & 0xff)
      }
    }
  }

  /** Saturating 16-bit counters of codes and of consecutive code pairs, as Lance keeps them. */
  private final class Counters {
    val single = new Array[Int](512)
    val pairs = new Array[Int](512 * 512)
    def reset(): Unit = { java.util.Arrays.fill(single, 0); java.util.Arrays.fill(pairs, 0) }
    @inline def one(code: Int): Unit = if (single(code) < CounterMax) single(code) += 1
    @inline def two(a: Int, b: Int): Unit = { val i = (a << 9) | b; if (pairs(i) < CounterMax) pairs(i) += 1 }
  }

  /**
   * Candidate symbols keyed by (bytes, length), with their summed gains: open addressing over
   * primitive arrays, kept in insertion order so that equal gains are ordered the same every time.
   */
  private final class Candidates {
    private var cap = 4096
    private var keys = new Array[Long](cap)
    private var lens = new Array[Int](cap)  // 0: empty
    private var index = new Array[Int](cap) // position in insertion order
    var size = 0
    var values = new Array[Long](cap / 2)
    var lengths = new Array[Int](cap / 2)
    var gains = new Array[Long](cap / 2)

    def clear(): Unit = { java.util.Arrays.fill(lens, 0); size = 0 }

    def addOrInc(value: Long, len: Int, gain: Long): Unit = {
      var h = hashOf(value, len)
      while (lens(h) != 0) {
        if (lens(h) == len && keys(h) == value) { gains(index(h)) += gain; return }
        h = (h + 1) & (cap - 1)
      }
      keys(h) = value; lens(h) = len; index(h) = size
      values(size) = value; lengths(size) = len; gains(size) = gain
      size += 1
      if (size * 2 == cap) grow()
    }

    private def hashOf(value: Long, len: Int): Int = {
      val h = (value ^ len) * 0x9e3779b97f4a7c15L
      (h >>> 40).toInt & (cap - 1)
    }

    private def grow(): Unit = {
      cap *= 2
      keys = new Array[Long](cap); lens = new Array[Int](cap); index = new Array[Int](cap)
      values = java.util.Arrays.copyOf(values, cap / 2)
      lengths = java.util.Arrays.copyOf(lengths, cap / 2)
      gains = java.util.Arrays.copyOf(gains, cap / 2)
      var i = 0
      while (i < size) {
        var h = hashOf(values(i), lengths(i))
        while (lens(h) != 0) h = (h + 1) & (cap - 1)
        keys(h) = values(i); lens(h) = lengths(i); index(h) = i
        i += 1
      }
    }
  }

  /** A finished table: symbols renumbered as Lance's `finalize` does, with compression lookups. */
  private final class SymbolTable(val values: Array[Long], val lengths: Array[Int], val terminator: Int, val suffixLim: Int,
      sampleRatio: Double) {
    private val n = values.length
    // Per byte, and per two-byte prefix: (length << 12) | (escape << 8) | code, the two-byte
    // symbol, else the first byte's symbol, else its escape. Per slot: a symbol of 3..8 bytes.
    private val byteCode = Array.fill(256)((1 << 12) | (1 << 8) | Fsst.Escape)
    private val shortCode = new Array[Char](65536)
    private val slotCode = new Array[Int](HashSlots)
    private val slotValue = Array.fill(HashSlots)(-1L)
    private val slotMask = new Array[Long](HashSlots)

    {
      var c = 0
      while (c < n) {
        // Training never puts the terminator in a multi-byte symbol; `compress` relies on it.
        var k = 1
        while (k < lengths(c)) { require(((values(c) >>> (8 * k)) & 0xff) != terminator, "terminator inside a symbol"); k += 1 }
        if (lengths(c) == 1) byteCode(values(c).toInt & 0xff) = (1 << 12) | c
        c += 1
      }
      var i = 0
      while (i < 65536) { shortCode(i) = byteCode(i & 0xff).toChar; i += 1 }
      c = 0
      while (c < n) {
        if (lengths(c) == 2) shortCode(values(c).toInt & 0xffff) = ((2 << 12) | c).toChar
        else if (lengths(c) >= 3) {
          val s = slot(values(c))
          slotCode(s) = (lengths(c) << 12) | c
          slotValue(s) = values(c)
          slotMask(s) = LE.lowBytes(lengths(c))
        }
        c += 1
      }
    }

    /** The 2312-byte table (Lance's `export`): header, symbols, lengths, zeros. */
    def export(): Array[Byte] = {
      val out = new Array[Byte](Fsst.SymbolTableBytes)
      LE.putLong(out, 0, (Magic << 32) | (1L << 24) | ((suffixLim & 0xffL) << 16) | ((terminator & 0xffL) << 8) | n)
      var c = 0
      while (c < n) {
        LE.putLong(out, 8 + 8 * c, values(c))
        out(8 + 8 * n + c) = lengths(c).toByte
        c += 1
      }
      out
    }

    /**
     * The lookup entry of the longest symbol starting `w`: the long symbol in `w`'s slot when its
     * bytes match, else the entry for `w`'s first two bytes. A branch, not a masked select of
     * both: the two-byte table is too large for the first-level cache, and on text where long
     * symbols match predictably the branch lets the next step start before that load would
     * return (the branch-free form was 6-9 % slower on the encode benchmark's URLs and words).
     */
    @inline private def codeOf(w: Long): Int = {
      val s = slot(w)
      if ((w & slotMask(s)) == slotValue(s)) slotCode(s) else shortCode(w.toInt & 0xffff).toInt
    }

    /**
     * Compresses every value greedily by longest match. Each step writes the code and, in case it
     * is the escape, the input byte after it; the output moves on by one or two bytes. At most
     * two output bytes per input byte, so the output is sized once.
     */
    def compress(data: VariableData): VariableData = {
      val in = data.bytes
      val count = data.count
      val worst = 2L * data.dataLength + 8
      if (worst > GeneralCompression.MaxArrayBytes)
        throw Errors.unsupported(s"FSST compression of ${data.dataLength} bytes of values in one page (at most 1 GiB)", "FSST writer")
      // Room for what the sample compressed to (less the escapes it left, so a quarter more, and
      // never more than 9/8 of the input), grown in the rare case values need more (at most two
      // bytes out per byte in), instead of allocating and zeroing twice the input.
      val expected = data.dataLength * math.min(1.125, 1.25 * sampleRatio)
      var out = new Array[Byte](math.min(worst, expected.toLong + 1024).toInt)
      val offsets = new Array[Int](count + 1)
      val fill = (terminator & 0xffL) * 0x0101010101010101L
      var o = 0
      var v = 0
      while (v < count) {
        var p = data.offsets(v)
        val end = data.offsets(v + 1)
        if (o + 2L * (end - p) + 8 > out.length) out = java.util.Arrays.copyOf(out, math.min(worst, math.max(out.length * 2L, o + 2L * (end - p) + 8)).toInt)
        // Whole words while 8 bytes of the value remain, without masking: a loop of its own, so
        // that the test for a value's last bytes is not a branch taken now and then in every step.
        while (end - p >= 8) {
          val w = LE.getLong(in, p)
          val code = codeOf(w)
          out(o) = code.toByte
          out(o + 1) = w.toByte
          o += 1 + ((code >>> 8) & 1)
          p += code >>> 12
        }
        // The value's last 1-7 bytes: past its end the word is filled with the terminator, which
        // no multi-byte symbol contains (see `SymbolTable`), so no match reaches past the end.
        while (p < end) {
          val w = LE.getLongUpTo(in, p, end) | (fill & ~LE.lowBytes(end - p))
          val code = codeOf(w)
          out(o) = code.toByte
          out(o + 1) = w.toByte
          o += 1 + ((code >>> 8) & 1)
          p += code >>> 12
        }
        v += 1
        offsets(v) = o
      }
      new VariableData(offsets, out)
    }
  }

  private object SymbolTable {

    def train(data: VariableData): SymbolTable = {
      val (sample, bounds) = draw(data)
      val terminator = leastFrequentByte(sample, bounds(bounds.length - 1))
      val st = new Trainer(terminator)
      val counters = new Counters
      val candidates = new Candidates
      var bestGain = Long.MinValue
      var bestValues = Array.emptyLongArray
      var bestLengths = Array.emptyIntArray
      var g = 0
      while (g <= Generations.length) {
        val frac = if (g < Generations.length) Generations(g) else LastFrac
        counters.reset()
        val gain = countSample(st, counters, sample, bounds, countPairs = frac < LastFrac)
        if (gain >= bestGain) {
          bestGain = gain
          bestValues = java.util.Arrays.copyOfRange(st.values, 256, 256 + st.n)
          bestLengths = java.util.Arrays.copyOfRange(st.lengths, 256, 256 + st.n)
        }
        // The table made after the last count would never be scored (Lance makes it anyway).
        if (frac < LastFrac) makeTable(st, counters, candidates, frac, terminator)
        g += 1
      }
      val sampleBytes = bounds(bounds.length - 1)
      finish(bestValues, bestLengths, terminator, (sampleBytes - bestGain).toDouble / math.max(1, sampleBytes))
    }

    /** Lance's `make_sample`: whole values drawn at random until they add up to at least 16 KiB. */
    private def draw(data: VariableData): (Array[Byte], Array[Int]) = {
      val nonEmpty = new Array[Int](data.count)
      var k = 0
      var i = 0
      while (i < data.count) { if (data.length(i) > 0) { nonEmpty(k) = i; k += 1 }; i += 1 }
      val rnd = new SplittableRandom(SampleSeed)
      var buf = new Array[Byte](SampleTarget * 2)
      var bounds = new Array[Int](64)
      var size = 0
      var m = 0
      while (size < SampleTarget) {
        val v = nonEmpty(rnd.nextInt(k))
        val len = data.length(v)
        if (size + len > buf.length) buf = java.util.Arrays.copyOf(buf, math.max(buf.length * 2, size + len))
        System.arraycopy(data.bytes, data.offsets(v), buf, size, len)
        size += len
        if (m + 2 > bounds.length) bounds = java.util.Arrays.copyOf(bounds, bounds.length * 2)
        m += 1
        bounds(m) = size
      }
      (buf, java.util.Arrays.copyOf(bounds, m + 1))
    }

    /** The least frequent byte, the lowest of equals (Lance's terminator). */
    private def leastFrequentByte(sample: Array[Byte], size: Int): Int = {
      val histo = new Array[Int](256)
      var i = 0
      while (i < size) { histo(sample(i) & 0xff) += 1; i += 1 }
      var best = 0
      var b = 1
      while (b < 256) { if (histo(b) < histo(best)) best = b; b += 1 }
      best
    }

    /**
     * Compresses the sample with the trainer's table, counting codes (and the escaped byte after
     * each multi-byte symbol, a candidate start) and pairs of consecutive codes; returns the gain.
     */
    private def countSample(st: Trainer, counters: Counters, sample: Array[Byte], bounds: Array[Int], countPairs: Boolean): Long = {
      var gain = 0L
      var i = 1
      while (i < bounds.length) {
        val start = bounds(i - 1)
        val end = bounds(i)
        var p = start
        var prev = st.longest(LE.getLongUpTo(sample, p, end), end - p)
        p += st.lengths(prev)
        if (prev >= 256) gain += st.lengths(prev) - 1
        while (p < end) {
          counters.one(prev)
          val next = sample(p) & 0xff
          if (st.lengths(prev) != 1) counters.one(next)
          val cur = st.longest(LE.getLongUpTo(sample, p, end), end - p)
          val len = st.lengths(cur)
          if (cur >= 256) gain += len - 1
          if (countPairs) {
            counters.two(prev, cur)
            if (len > 1) counters.two(prev, next)
          }
          p += len
          prev = cur
        }
        counters.one(prev)
        i += 1
      }
      gain
    }

    /** Replaces the trainer's table with the best candidates from the counts. */
    private def makeTable(st: Trainer, counters: Counters, candidates: Candidates, frac: Int, terminator: Int): Unit = {
      candidates.clear()
      val least = 5L * frac / 128
      def consider(value: Long, len: Int, count: Long): Unit =
        if (count >= least) candidates.addOrInc(value, len, count * len)
      counters.single(terminator) = CounterMax
      val codes = 256 + st.n
      var c1 = 0
      while (c1 < codes) {
        val count1 = counters.single(c1)
        if (count1 != 0) {
          val v1 = st.values(c1)
          val l1 = st.lengths(c1)
          // Single bytes are weighted 8×: fewer escapes make for faster and smaller output.
          consider(v1, l1, if (l1 == 1) 8L * count1 else count1)
          if ((v1 & 0xff) != terminator && l1 < Fsst.MaxSymbolLength) {
            var c2 = 0
            val row = c1 << 9
            while (c2 < codes) {
              val count2 = counters.pairs(row | c2)
              if (count2 != 0 && (st.values(c2) & 0xff) != terminator) {
                val len = math.min(l1 + st.lengths(c2), Fsst.MaxSymbolLength)
                consider(((st.values(c2) << (8 * l1)) | v1) & LE.lowBytes(len), len, count2)
              }
              c2 += 1
            }
          }
        }
        c1 += 1
      }
      // Best gain first; among equal gains the later candidate first.
      val order = new Array[Long](candidates.size)
      var i = 0
      while (i < candidates.size) { order(i) = (candidates.gains(i) << 32) | i; i += 1 }
      java.util.Arrays.sort(order)
      st.clear()
      i = order.length - 1
      while (i >= 0 && st.n < MaxSymbols) {
        val c = (order(i) & 0xffffffffL).toInt
        st.add(candidates.values(c), candidates.lengths(c))
        i -= 1
      }
    }

    /**
     * Lance's `finalize`: codes grouped by length as 2, 3, .., 8, 1, and within length 2 the
     * symbols that start a longer symbol first (their count is suffix_lim) and the others after,
     * numbered from the end of the group down. `sampleRatio`: the sample's size compressed over its size.
     */
    private def finish(values: Array[Long], lengths: Array[Int], terminator: Int, sampleRatio: Double): SymbolTable = {
      val n = values.length
      val perLength = new Array[Int](Fsst.MaxSymbolLength + 1)
      lengths.foreach(l => perLength(l) += 1)
      val next = new Array[Int](Fsst.MaxSymbolLength + 1)
      var start = 0
      var l = 2
      while (l <= Fsst.MaxSymbolLength) { next(l) = start; start += perLength(l); l += 1 }
      next(1) = start
      var suffixLim = 0
      var twoEnd = perLength(2)
      val outValues = new Array[Long](n)
      val outLengths = new Array[Int](n)
      var i = 0
      while (i < n) {
        val len = lengths(i)
        val code =
          if (len != 2) { next(len) += 1; next(len) - 1 }
          else if (startsLonger(values, lengths, i)) { suffixLim += 1; suffixLim - 1 }
          else { twoEnd -= 1; twoEnd }
        outValues(code) = values(i)
        outLengths(code) = len
        i += 1
      }
      new SymbolTable(outValues, outLengths, terminator, suffixLim, sampleRatio)
    }

    private def startsLonger(values: Array[Long], lengths: Array[Int], i: Int): Boolean = {
      var k = 0
      while (k < values.length) {
        if (k != i && lengths(k) > 2 && ((values(k) ^ values(i)) & 0xffff) == 0) return true
        k += 1
      }
      false
    }
  }
}
