package io.sparklance.format.read

import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/file/encoding.md ("Repetition and definition
// levels"). A leaf column of a 2.1+ file decodes to three parallel streams: repetition
// levels and definition levels (one per item, including invisible items that stand for
// null or empty lists) and values (one per visible item). This is that decoded form for a
// run of items, before it is assembled into Arrow vectors.

/** Values decoded from one or more buffers: one per visible item. */
sealed trait DecodedValues {
  def count: Int
  /** The values `[from, until)` as a new independent object. */
  def slice(from: Int, until: Int): DecodedValues
}

/**
 * Fixed-width values. `bitsPerValue` is a multiple of 8, or 1 for booleans (bit-packed,
 * LSB first, starting at bit 0 of `data`).
 */
final class FixedWidthValues(val bitsPerValue: Int, val data: Array[Byte], val count: Int) extends DecodedValues {
  require(bitsPerValue == 1 || bitsPerValue % 8 == 0, s"bits per value $bitsPerValue")
  def bytesPerValue: Int = bitsPerValue / 8

  override def slice(from: Int, until: Int): FixedWidthValues = {
    val n = until - from
    if (bitsPerValue == 1) {
      val out = new Array[Byte]((n + 7) / 8)
      BitCopy.copyBits(data, from, out, 0, n)
      new FixedWidthValues(1, out, n)
    } else {
      val w = bytesPerValue
      new FixedWidthValues(bitsPerValue, java.util.Arrays.copyOfRange(data, from * w, until * w), n)
    }
  }
}

/**
 * Variable-width values: value i is `data[offsets(i), offsets(i + 1))`. `offsets` has
 * `count + 1` entries and need not start at 0.
 */
final class VariableWidthValues(val offsets: Array[Int], val data: Array[Byte], val count: Int) extends DecodedValues {
  override def slice(from: Int, until: Int): VariableWidthValues = {
    val n = until - from
    val o = new Array[Int](n + 1)
    val base = offsets(from)
    var i = 0
    while (i <= n) { o(i) = offsets(from + i) - base; i += 1 }
    new VariableWidthValues(o, java.util.Arrays.copyOfRange(data, base, offsets(until)), n)
  }
}

/**
 * Fixed-size lists of `dimension` items each: `count` lists whose items are
 * `items` (`count * dimension` values). `itemValidity` is null when every item is valid,
 * else an LSB-first bitmap over the items.
 */
final class FixedSizeListValues(val dimension: Int, val itemValidity: Array[Byte], val items: DecodedValues, val count: Int)
    extends DecodedValues {
  override def slice(from: Int, until: Int): FixedSizeListValues = {
    val n = until - from
    val v = if (itemValidity == null) null else {
      val out = new Array[Byte]((n * dimension + 7) / 8)
      BitCopy.copyBits(itemValidity, from * dimension, out, 0, n * dimension)
      out
    }
    new FixedSizeListValues(dimension, v, items.slice(from * dimension, until * dimension), n)
  }
}

/** Structs stored in one column (packed structs, blob descriptors): one value per child. */
final class StructValues(val children: IndexedSeq[DecodedValues], val count: Int) extends DecodedValues {
  override def slice(from: Int, until: Int): StructValues = new StructValues(children.map(_.slice(from, until)), until - from)
}

object VariableWidthValues {
  /** Concatenates separate values (checking the 2 GiB limit of one array). */
  def of(parts: Array[Array[Byte]], where: => String): VariableWidthValues = {
    val n = parts.length
    val offsets = new Array[Int](n + 1)
    var total = 0L
    var i = 0
    while (i < n) {
      total += parts(i).length
      if (total > Int.MaxValue) throw Errors.unsupported(s"more than 2 GiB of values in one page", where)
      offsets(i + 1) = total.toInt
      i += 1
    }
    val data = new Array[Byte](total.toInt)
    i = 0
    while (i < n) { System.arraycopy(parts(i), 0, data, offsets(i), parts(i).length); i += 1 }
    new VariableWidthValues(offsets, data, n)
  }
}

/** No values at all (every visible item is null), `count` slots. */
final class NullValues(val count: Int) extends DecodedValues {
  override def slice(from: Int, until: Int): NullValues = new NullValues(until - from)
}

/**
 * A run of decoded items of a leaf column. `layers` give the meaning of the levels
 * (innermost first; they may differ from page to page). `reps` is null when the leaf has
 * no list layer; `defs` is null when every item is valid at every layer. `values` holds
 * one value per visible item.
 */
final class LeafData(
    val layers: IndexedSeq[io.sparklance.format.layout.RepDefLayer],
    val numItems: Int,
    val reps: Array[Short],
    val defs: Array[Short],
    val values: DecodedValues) {
  if (reps != null && reps.length < numItems) throw new IllegalArgumentException("reps shorter than items")
  if (defs != null && defs.length < numItems) throw new IllegalArgumentException("defs shorter than items")
}

object LeafData {
  /** Checks that the decoded value count matches the visible items; `where` names the page. */
  def checkValueCount(where: String, expected: Long, actual: Long): Unit =
    if (expected != actual) throw Errors.corrupt(where, s"expected $expected values but decoded $actual")
}

/** Bit-level copies between LSB-first bitmaps. */
object BitCopy {
  def getBit(src: Array[Byte], i: Int): Boolean = ((src(i >>> 3) >>> (i & 7)) & 1) != 0

  def setBit(dst: Array[Byte], i: Int): Unit = dst(i >>> 3) = (dst(i >>> 3) | (1 << (i & 7))).toByte

  /** Copies `n` bits from `src` starting at bit `srcBit` to `dst` starting at bit `dstBit` (dst bits are OR-ed). */
  def copyBits(src: Array[Byte], srcBit: Int, dst: Array[Byte], dstBit: Int, n: Int): Unit = {
    if ((srcBit & 7) == 0 && (dstBit & 7) == 0) {
      val full = n >>> 3
      System.arraycopy(src, srcBit >>> 3, dst, dstBit >>> 3, full)
      var i = full << 3
      while (i < n) { if (getBit(src, srcBit + i)) setBit(dst, dstBit + i); i += 1 }
    } else {
      var i = 0
      while (i < n) { if (getBit(src, srcBit + i)) setBit(dst, dstBit + i); i += 1 }
    }
  }
}
