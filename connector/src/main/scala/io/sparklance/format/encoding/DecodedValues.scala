// Spec: lance-format/lance rust/lance-encoding/src/data.rs (`DataBlock`: FixedWidth, VariableWidth,
// FixedSizeList, Struct, AllNull), the in-memory forms that every compressive encoding decodes to
// and that an encoder takes in. Fixed-width values are little-endian bytes and variable-width
// values Arrow-style offsets and bytes, so that assembling Arrow vectors is one bulk copy.
package io.sparklance.format.encoding

/** Values decoded from one or more buffers: one per visible item. */
sealed trait DecodedValues {
  def count: Int
  /** The values `[from, until)` as a new independent object. */
  def slice(from: Int, until: Int): DecodedValues
  /** What kind of values these are, for error messages. */
  def describe: String
}

/**
 * Fixed-width values, little-endian. `bitsPerValue` is a multiple of 8, with value `i` at
 * byte `offset + i * bytesPerValue` of `data`, or 1 for booleans (bit-packed, LSB first,
 * starting at bit 0 of `data`). Slices of byte-wide values share the array: a batch cut
 * from a large decoded page is not copied before it is assembled into Arrow memory.
 */
final class FixedWidthValues(val bitsPerValue: Int, val data: Array[Byte], val count: Int, val offset: Int = 0) extends DecodedValues {
  require(bitsPerValue == 1 || bitsPerValue % 8 == 0, s"bits per value $bitsPerValue")
  require(offset == 0 || bitsPerValue % 8 == 0, "bit-packed values start at bit 0")
  def bytesPerValue: Int = bitsPerValue / 8
  def describe: String = s"$bitsPerValue-bit values"

  override def slice(from: Int, until: Int): FixedWidthValues = {
    val n = until - from
    if (bitsPerValue == 1) {
      val out = new Array[Byte]((n + 7) / 8)
      BitCopy.copyBits(data, from, out, 0, n)
      new FixedWidthValues(1, out, n)
    } else {
      new FixedWidthValues(bitsPerValue, data, n, offset + from * bytesPerValue)
    }
  }
}

/**
 * Variable-width values laid out as Arrow does: value `i` is `bytes(offsets(i) until offsets(i + 1))`.
 * `offsets` has `count + 1` entries, starts at 0 and never decreases; decoders check the file's
 * offsets before building one. `bytes` may run past `offsets(count)`: a decoder that appends into
 * one growing array hands it over with its spare capacity rather than copying it to size.
 *
 * Offsets are `Int` even where the file stores 64-bit offsets: one JVM array cannot hold 2 GiB, so
 * a 64-bit offset that passes the bounds check always fits. Widening for an Arrow large type is the
 * Arrow layer's job.
 */
final class VariableData(val offsets: Array[Int], val bytes: Array[Byte]) extends DecodedValues {
  def count: Int = offsets.length - 1
  /** Bytes of value data, `offsets(count)`; `bytes` may be longer. */
  def dataLength: Int = offsets(count)
  def length(i: Int): Int = offsets(i + 1) - offsets(i)
  def value(i: Int): Array[Byte] = java.util.Arrays.copyOfRange(bytes, offsets(i), offsets(i + 1))
  def describe: String = "variable-width values"

  override def slice(from: Int, until: Int): VariableData = {
    val n = until - from
    val o = new Array[Int](n + 1)
    val base = offsets(from)
    var i = 0
    while (i <= n) { o(i) = offsets(from + i) - base; i += 1 }
    new VariableData(o, java.util.Arrays.copyOfRange(bytes, base, offsets(until)))
  }

  override def toString: String = s"VariableData($count values, $dataLength bytes)"
}

object VariableData {
  val empty: VariableData = new VariableData(Array(0), Array.emptyByteArray)

  /** Concatenates `values` into arrays of exactly their size (a writer-side and test helper). */
  def of(values: Seq[Array[Byte]]): VariableData = {
    val b = new VariableDataBuilder(values.size, values.iterator.map(_.length.toLong).sum)
    values.foreach(v => b.append(v, 0, v.length))
    b.result()
  }
}

/**
 * Fixed-size lists of `dimension` items each: `count` lists whose items are
 * `items` (`count * dimension` values). `itemValidity` is null when every item is valid,
 * else an LSB-first bitmap over the items.
 */
final class FixedSizeListValues(val dimension: Int, val itemValidity: Array[Byte], val items: DecodedValues, val count: Int)
    extends DecodedValues {
  def describe: String = s"fixed-size lists of $dimension"

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
  def describe: String = s"structs of ${children.length} children"
  override def slice(from: Int, until: Int): StructValues = new StructValues(children.map(_.slice(from, until)), until - from)
}

/** No values at all (every visible item is null), `count` slots. */
final class NullValues(val count: Int) extends DecodedValues {
  def describe: String = "no values"
  override def slice(from: Int, until: Int): NullValues = new NullValues(until - from)
}
