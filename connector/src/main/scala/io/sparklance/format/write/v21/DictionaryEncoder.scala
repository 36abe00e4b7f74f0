package io.sparklance.format.write.v21

import io.sparklance.format.encoding.{DecodedValues, FixedWidthValues, VariableData, VariableDataBuilder}

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
    val seen = new java.util.HashSet[Key](idx.length * 2)
    idx.foreach(i => seen.add(key(values, i)))
    Some(seen.size.toDouble / idx.length)
  }

  /** A hashable view of value `i` (its bytes). */
  private final class Key(val bytes: Array[Byte], val from: Int, val until: Int) {
    override def hashCode: Int = {
      var h = 1
      var i = from
      while (i < until) { h = 31 * h + bytes(i); i += 1 }
      h
    }
    override def equals(o: Any): Boolean = o match {
      case k: Key => java.util.Arrays.equals(bytes, from, until, k.bytes, k.from, k.until)
      case _ => false
    }
  }

  private def key(values: DecodedValues, i: Int): Key = (values: @unchecked) match {
    case f: FixedWidthValues => val w = f.bytesPerValue; new Key(f.data, f.offset + i * w, f.offset + (i + 1) * w)
    case v: VariableData => new Key(v.bytes, v.offsets(i), v.offsets(i + 1))
  }

  /**
   * The dictionary of a column whose Lance type is a dictionary (`dict:<values>:<keys>:false`):
   * always dictionary encoded, as pylance stores an Arrow dictionary array (its keys as the
   * indices, `keyBytes` wide); null slots take index 0 and add no entry.
   */
  def forced(values: DecodedValues, valid: Int => Boolean, keyBytes: Int): Encoded = {
    val map = new java.util.HashMap[Key, Integer]()
    val first = new scala.collection.mutable.ArrayBuffer[Int]()
    val indices = new Array[Byte](values.count * keyBytes)
    var i = 0
    while (i < values.count) {
      if (valid(i)) {
        val k = key(values, i)
        var idx = map.get(k)
        if (idx == null) { idx = map.size; map.put(k, idx); first += i }
        var b = 0
        while (b < keyBytes) { indices(i * keyBytes + b) = (idx.intValue >>> (8 * b)).toByte; b += 1 }
      }
      i += 1
    }
    val dictionary = (values: @unchecked) match {
      case f: FixedWidthValues =>
        val w = f.bytesPerValue
        val out = new Array[Byte](first.length * w)
        first.indices.foreach(j => System.arraycopy(f.data, f.offset + first(j) * w, out, j * w, w))
        new FixedWidthValues(f.bitsPerValue, out, first.length)
      case v: VariableData =>
        val b = new VariableDataBuilder(first.length, first.iterator.map(j => v.length(j).toLong).sum)
        first.foreach(j => b.append(v.bytes, v.offsets(j), v.length(j)))
        b.result()
    }
    Encoded(new FixedWidthValues(keyBytes * 8, indices, values.count), dictionary)
  }

  private def fixed(f: FixedWidthValues, maxEntries: Int, budget: Long): Option[Encoded] = {
    val w = f.bytesPerValue
    val map = new java.util.HashMap[Key, Integer]()
    val dict = new java.io.ByteArrayOutputStream()
    val indices = new Array[Byte](f.count * IndexBytes)
    var i = 0
    while (i < f.count) {
      val k = key(f, i)
      var idx = map.get(k)
      if (idx == null) {
        if (map.size >= maxEntries) return None
        idx = map.size
        map.put(k, idx)
        dict.write(f.data, k.from, w)
      }
      putInt(indices, i, idx)
      if (map.size.toLong * w + (i + 1).toLong * IndexBytes > budget) return None
      i += 1
    }
    Some(Encoded(new FixedWidthValues(32, indices, f.count), new FixedWidthValues(f.bitsPerValue, dict.toByteArray, map.size)))
  }

  private def variable(v: VariableData, offsetBytes: Int, maxEntries: Int, budget: Long): Option[Encoded] = {
    val map = new java.util.HashMap[Key, Integer]()
    val first = new scala.collection.mutable.ArrayBuffer[Int]()
    var dictBytes = 0L
    val indices = new Array[Byte](v.count * IndexBytes)
    var i = 0
    while (i < v.count) {
      val k = key(v, i)
      var idx = map.get(k)
      if (idx == null) {
        if (map.size >= maxEntries) return None
        idx = map.size
        map.put(k, idx)
        first += i
        dictBytes += k.until - k.from
      }
      putInt(indices, i, idx)
      if (dictBytes + (i + 1).toLong * IndexBytes + (map.size + 1).toLong * offsetBytes > budget) return None
      i += 1
    }
    val b = new VariableDataBuilder(first.length, dictBytes)
    first.foreach(j => b.append(v.bytes, v.offsets(j), v.length(j)))
    Some(Encoded(new FixedWidthValues(32, indices, v.count), b.result()))
  }

  private def putInt(a: Array[Byte], i: Int, v: Int): Unit = {
    a(4 * i) = v.toByte; a(4 * i + 1) = (v >> 8).toByte; a(4 * i + 2) = (v >> 16).toByte; a(4 * i + 3) = (v >> 24).toByte
  }
}
