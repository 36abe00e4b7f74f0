package io.sparklance.format.write.v21

import io.sparklance.format.encoding.{DecodedValues, FixedWidthValues, VariableData, VariableDataBuilder}
import io.sparklance.util.LittleEndian
import io.sparklance.util.ScalaCompat._

// Spec: rust/lance-encoding/src/encodings/logical/primitive.rs (should_dictionary_encode,
// sample_unique_ratio) and primitive/dict.rs (dictionary_encode), Lance 9.0. A page of strings,
// 64-bit (2.2 and later) or 128-bit values is dictionary encoded when that is likely to pay: at
// least 100 values, a sample that is not near-unique, at most n/2 (and 100,000) distinct values,
// and dictionary plus i32 indices within 0.8 of the plain size. The dictionary keeps values in
// first-seen order; the page then stores the indices as its values and the dictionary beside them.

private[write] object DictionaryEncoder {
  final val TooSmall = 100 // LANCE_ENCODING_DICT_TOO_SMALL
  final val Divisor = 2 // DEFAULT_DICT_DIVISOR (lance-encoding:dict-divisor)
  final val MaxCardinality = 100000L // DEFAULT_DICT_MAX_CARDINALITY
  final val SizeRatio = 0.8 // DEFAULT_DICT_SIZE_RATIO (lance-encoding:dict-size-ratio)
  private final val SampleSize = 4096
  private final val SampleBlocks = 32
  private final val MinReliableSamples = 1024
  private final val NearUnique = 0.98
  private final val IndexBytes = 4

  final case class Encoded(indices: FixedWidthValues, dictionary: DecodedValues)

  /**
   * The dictionary and indices of `values`, or None when the page should not be dictionary
   * encoded. `bitsPerOffset` is the offset width of variable-width values; `allow64` is true
   * from file version 2.2; `metadata` may set `lance-encoding:dict-divisor` / `dict-size-ratio`.
   */
  def encode(values: DecodedValues, bitsPerOffset: Int, allow64: Boolean, metadata: Map[String, String]): Option[Encoded] = {
    val n = values match {
      case f: FixedWidthValues if f.bitsPerValue == 128 || (f.bitsPerValue == 64 && allow64) => f.count
      case v: VariableData => v.count
      case _ => return None
    }
    if (n < TooSmall) return None
    val divisor = metadata.get("lance-encoding:dict-divisor").flatMap(_.trim.toLongOption).getOrElse(Divisor.toLong).max(1L)
    val maxEntries = math.min(n / divisor, MaxCardinality)
    if (maxEntries == 0) return None
    val ratio = metadata.get("lance-encoding:dict-size-ratio").flatMap(_.trim.toDoubleOption).filter(r => r > 0 && r <= 1).getOrElse(SizeRatio)
    val dataSize = (values: @unchecked) match {
      case f: FixedWidthValues => f.count.toLong * f.bytesPerValue
      case v: VariableData => v.dataLength.toLong + (bitsPerOffset / 8).toLong * (v.count + 1)
    }
    if (dataSize == 0) return None
    val budget = (dataSize * ratio).toLong
    sampleUniqueRatio(values, n) match {
      case Some(r) if r >= NearUnique || math.ceil(r * n).toLong > maxEntries => return None
      case _ =>
    }
    (values: @unchecked) match {
      case f: FixedWidthValues => fixed(f, maxEntries.toInt, budget)
      case v: VariableData => variable(v, bitsPerOffset / 8, maxEntries.toInt, budget)
    }
  }

  // A deterministic sample: the first values of each of 32 evenly spaced blocks.
  private def sampleIndices(n: Int): Array[Int] = {
    val count = math.min(n, SampleSize)
    if (count < MinReliableSamples) return Array.emptyIntArray
    val blocks = math.min(SampleBlocks, count)
    val perBlock = math.max(count / blocks, 1)
    val out = Array.newBuilder[Int]
    var b = 0
    while (b < blocks) {
      val start = (b.toLong * n / blocks).toInt
      val next = math.min(((b + 1).toLong * n / blocks).toInt, n)
      var k = 0
      while (k < math.min(perBlock, next - start)) { out += start + k; k += 1 }
      b += 1
    }
    out.result()
  }

  private def sampleUniqueRatio(values: DecodedValues, n: Int): Option[Double] = {
    val idx = sampleIndices(n)
    if (idx.length < MinReliableSamples) return None
    val entries = new Entries(values, idx.length)
    idx.foreach(entries.indexOf)
    Some(entries.size.toDouble / idx.length)
  }

  /**
   * The distinct values of `values` in first-seen order, found by an open-addressing hash of their
   * bytes: no object per value, so a page of millions of values costs a few array passes.
   */
  private final class Entries(values: DecodedValues, expected: Int) {
    // Value i is bytes[start(i), end(i)): from the offsets of variable-width values, else at a fixed stride.
    private val (bytes, offsets, base, width): (Array[Byte], Array[Int], Int, Int) = (values: @unchecked) match {
      case f: FixedWidthValues => (f.data, null, f.offset, f.bytesPerValue)
      case v: VariableData => (v.bytes, v.offsets, 0, 0)
    }
    @inline private def start(i: Int): Int = if (offsets != null) offsets(i) else base + i * width
    @inline private def end(i: Int): Int = if (offsets != null) offsets(i + 1) else base + (i + 1) * width
    private var table = new Array[Int](Integer.highestOneBit(math.max(expected, 8)) * 4) // entry + 1; 0 = free
    private var hashes = new Array[Int](16)
    /** The position in `values` of each entry's first occurrence. */
    private var first = new Array[Int](16)
    var size = 0
    /** Bytes of all entries' values. */
    var entryBytes = 0L

    // Word at a time: the values are short (dictionary strings are), so per-byte loops and the
    // general range comparison would dominate.
    private def hash(i: Int): Int = {
      var h = 0x9747b28cL
      var p = start(i)
      val e = end(i)
      while (p + 8 <= e) { h = (h ^ LittleEndian.getLong(bytes, p)) * 0xff51afd7ed558ccdL; h ^= h >>> 29; p += 8 }
      // The last 1-7 bytes as one word (the same wherever the value lies, so equal values hash alike).
      if (p < e) { h = (h ^ LittleEndian.getLongUpTo(bytes, p, e)) * 0xff51afd7ed558ccdL; h ^= h >>> 29 }
      h ^= (e - start(i)).toLong
      // Mix the high bits down: the table is indexed by the low ones (murmur3's fmix64).
      h ^= h >>> 33; h *= 0xff51afd7ed558ccdL; h ^= h >>> 33; h *= 0xc4ceb9fe1a85ec53L; h ^= h >>> 33
      h.toInt
    }

    private def same(i: Int, j: Int): Boolean = {
      var a = start(i)
      val len = end(i) - a
      var b = start(j)
      if (end(j) - b != len) return false
      val stop = a + len
      while (a + 8 <= stop) { if (LittleEndian.getLong(bytes, a) != LittleEndian.getLong(bytes, b)) return false; a += 8; b += 8 }
      LittleEndian.getLongUpTo(bytes, a, stop) == LittleEndian.getLongUpTo(bytes, b, b + (stop - a))
    }

    /** The entry of value `i`, added if new. */
    def indexOf(i: Int): Int = {
      val h = hash(i)
      val mask = table.length - 1
      var slot = h & mask
      while (table(slot) != 0) {
        val e = table(slot) - 1
        val j = first(e)
        if (hashes(e) == h && same(i, j)) return e
        slot = (slot + 1) & mask
      }
      if (size == first.length) { first = java.util.Arrays.copyOf(first, size * 2); hashes = java.util.Arrays.copyOf(hashes, size * 2) }
      first(size) = i
      hashes(size) = h
      entryBytes += end(i) - start(i)
      size += 1
      table(slot) = size
      if (size * 2 > table.length) grow()
      size - 1
    }

    private def grow(): Unit = {
      table = new Array[Int](table.length * 2)
      val mask = table.length - 1
      var e = 0
      while (e < size) {
        var slot = hashes(e) & mask
        while (table(slot) != 0) slot = (slot + 1) & mask
        table(slot) = e + 1
        e += 1
      }
    }

    /** The entries' values, in entry order. */
    def dictionary: DecodedValues = (values: @unchecked) match {
      case f: FixedWidthValues =>
        val w = f.bytesPerValue
        val out = new Array[Byte](size * w)
        var e = 0
        while (e < size) { System.arraycopy(f.data, f.offset + first(e) * w, out, e * w, w); e += 1 }
        new FixedWidthValues(f.bitsPerValue, out, size)
      case v: VariableData =>
        val b = new VariableDataBuilder(size, entryBytes)
        var e = 0
        while (e < size) { b.append(v.bytes, v.offsets(first(e)), v.length(first(e))); e += 1 }
        b.result()
    }
  }

  /**
   * Indices of every value into its entries, `indexBytes` wide (little-endian); slots where
   * `include` is false take index 0 and add no entry. `keep` is asked after each value (entries,
   * values so far) and ends the attempt when it says no.
   */
  private def build(values: DecodedValues, indexBytes: Int, include: Int => Boolean, keep: (Entries, Int) => Boolean): Option[Encoded] = {
    val n = values.count
    val entries = new Entries(values, math.min(n, 1024))
    val indices = new Array[Byte](n * indexBytes)
    var i = 0
    while (i < n) {
      if (include(i)) {
        val idx = entries.indexOf(i)
        var b = 0
        while (b < indexBytes) { indices(i * indexBytes + b) = (idx >>> (8 * b)).toByte; b += 1 }
        if (!keep(entries, i + 1)) return None
      }
      i += 1
    }
    Some(Encoded(new FixedWidthValues(indexBytes * 8, indices, n), entries.dictionary))
  }

  /**
   * The dictionary of a column whose Lance type is a dictionary (`dict:<values>:<keys>:false`):
   * always dictionary encoded, as pylance stores an Arrow dictionary array (its keys as the
   * indices, `keyBytes` wide); null slots take index 0 and add no entry.
   */
  def forced(values: DecodedValues, valid: Int => Boolean, keyBytes: Int): Encoded =
    build(values, keyBytes, valid, (_, _) => true).get

  // dict.rs dictionary_encode: give up past the entry cap or once dictionary and i32 indices
  // outgrow the budget (variable-width entries count their offsets too).
  private def fixed(f: FixedWidthValues, maxEntries: Int, budget: Long): Option[Encoded] =
    build(f, IndexBytes, _ => true, (e, seen) =>
      e.size <= maxEntries && e.size.toLong * f.bytesPerValue + seen.toLong * IndexBytes <= budget)

  private def variable(v: VariableData, offsetBytes: Int, maxEntries: Int, budget: Long): Option[Encoded] =
    build(v, IndexBytes, _ => true, (e, seen) =>
      e.size <= maxEntries && e.entryBytes + seen.toLong * IndexBytes + (e.size + 1).toLong * offsetBytes <= budget)
}
