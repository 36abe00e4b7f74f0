package io.sparklance.format.write.v20

import java.nio.ByteBuffer

import org.apache.arrow.vector._
import org.apache.arrow.vector.complex.FixedSizeListVector

import io.sparklance.format.v20.{ArrayEncoding => AE, BufferKind, BufferRef}
import io.sparklance.format.write.{BitArrayBuilder, ByteArrayBuilder}

// Spec: rust/lance-encoding/src/data.rs (DataBlock::from_arrays) and
// previous/encodings/physical/{basic,value,bitmap,fixed_size_list}.rs.
// The values of one 2.0 column page, copied out of the caller's Arrow vectors as they arrive
// (the caller reuses them after each batch) and turned into an ArrayEncoding tree and its page
// buffers when the page is written. Buffers are numbered in the order the Rust encoders number
// them: depth first, a validity bitmap before the values it guards.

/** The buffers of one page being encoded; each buffer added gets the next page buffer index. */
private[v20] final class PageBuffers {
  private val buffers = IndexedSeq.newBuilder[Array[Byte]]
  private var count = 0

  def add(b: Array[Byte]): BufferRef = {
    buffers += b
    count += 1
    BufferRef(count - 1, BufferKind.Page)
  }

  def result: IndexedSeq[Array[Byte]] = buffers.result()
}

private[v20] object PageBuffers {
  /** `n` little-endian 64-bit words, word `i` being `value(i)`: offsets and binary indices. */
  def longs(n: Int, value: Int => Long): Array[Byte] = {
    val b = ByteBuffer.allocate(n * 8).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    var i = 0
    while (i < n) { b.putLong(value(i)); i += 1 }
    b.array()
  }
}

/** The values a 2.0 page of one column buffers until it is written. */
private[v20] trait PageValues {
  /** Values buffered (items for the items of a list or fixed-size list). */
  def count: Long
  /** Roughly the Arrow memory of values `[from, from + n)` of `v`, which the page budget counts (Rust get_array_memory_size). */
  def arrowBytes(v: ValueVector, from: Int, n: Int): Long
  /** Throws for values among `[from, from + n)` of `v` that these pages cannot store. */
  def check(v: ValueVector, from: Int, n: Int): Unit = ()
  def append(v: ValueVector, from: Int, n: Int): Unit
  /** The buffered values as an encoding; their buffers go to `out`. */
  def encode(out: PageBuffers): AE
  def reset(): Unit
}

/** Which values are valid, one bit each (set = valid), and how many are not. */
private[v20] final class ValidityBits {
  private val bits = new BitArrayBuilder
  private var nullCount = 0L

  def nulls: Long = nullCount

  def append(v: ValueVector, from: Int, n: Int): Unit =
    if (v.getNullCount == 0) bits.appendOnes(n)
    else {
      val at = bits.length
      bits.appendBits(v.getValidityBuffer, from, n)
      nullCount += n - bits.countSet(at, n)
    }

  /** The bitmap (bit set = valid) of every value buffered. */
  def toArray: Array[Byte] = bits.toArray

  /**
   * basic.rs BasicEncoder: `nullable{all_nulls}` without buffers when no value is valid (an
   * empty page included, as DataBlock::from_arrays makes it all-null), `nullable{no_nulls}`
   * when every value is, and otherwise `nullable{some_nulls}` with the bitmap first.
   */
  def wrap(count: Long, out: PageBuffers)(values: => AE): AE =
    if (count == 0 || nullCount == count) AE.AllNulls
    else if (nullCount == 0) AE.NoNulls(values)
    else {
      val validity = AE.Flat(1, out.add(toArray), None)
      AE.SomeNulls(validity, values)
    }

  def reset(): Unit = { bits.clear(); nullCount = 0 }
}

private[v20] object PageValues {

  /** Fixed-width values of `bits` bits each (1 for booleans), plain (value.rs, bitmap.rs). */
  final class Flat(bits: Int) extends PageValues {
    private val data = new ByteArrayBuilder()
    private val booleans = new BitArrayBuilder
    private val validity = new ValidityBits
    private var n = 0L

    def count: Long = n
    def arrowBytes(v: ValueVector, from: Int, len: Int): Long =
      (if (bits == 1) (len + 7L) / 8 else len.toLong * (bits / 8)) + (if (v.getNullCount > 0) (len + 7L) / 8 else 0)

    def append(v: ValueVector, from: Int, len: Int): Unit = {
      validity.append(v, from, len)
      // The value bit of a null slot is kept as it is; it is never read back.
      if (bits == 1) booleans.appendBits(v.asInstanceOf[BitVector].getDataBuffer, from, len)
      else {
        val width = bits / 8
        val out = data.reserve(len.toLong * width)
        v.asInstanceOf[BaseFixedWidthVector].getDataBuffer.getBytes(from.toLong * width, out, data.length, len * width)
        data.advance(len * width)
      }
      n += len
    }

    def encode(out: PageBuffers): AE =
      validity.wrap(n, out)(AE.Flat(bits, out.add(if (bits == 1) booleans.toArray else data.toArray), None))

    def reset(): Unit = { data.clear(); booleans.clear(); validity.reset(); n = 0 }
  }

  /** Arrow's null type: every value null, nothing stored (DataBlock::from_arrays makes it all-null). */
  final class Nulls extends PageValues {
    private var n = 0L
    def count: Long = n
    def arrowBytes(v: ValueVector, from: Int, len: Int): Long = 0
    def append(v: ValueVector, from: Int, len: Int): Unit = n += len
    def encode(out: PageBuffers): AE = AE.AllNulls
    def reset(): Unit = n = 0
  }

  /**
   * Fixed-size lists: `nullable{fixed_size_list{dimension, items}}` (fixed_size_list.rs FslEncoder
   * under a BasicEncoder). The list's validity guards the rows; the items keep their own validity,
   * taken from the item vector as it is (pyarrow gives the items of a null row null items).
   */
  final class FixedSizeLists(dimension: Int, items: PageValues) extends PageValues {
    private val validity = new ValidityBits
    private var n = 0L

    def count: Long = n
    def arrowBytes(v: ValueVector, from: Int, len: Int): Long =
      items.arrowBytes(v.asInstanceOf[FixedSizeListVector].getDataVector, from * dimension, len * dimension) +
        (if (v.getNullCount > 0) (len + 7L) / 8 else 0)

    def append(v: ValueVector, from: Int, len: Int): Unit = {
      validity.append(v, from, len)
      items.append(v.asInstanceOf[FixedSizeListVector].getDataVector, from * dimension, len * dimension)
      n += len
    }

    def encode(out: PageBuffers): AE = validity.wrap(n, out)(AE.FixedSizeList(dimension, hasValidity = false, items.encode(out)))

    def reset(): Unit = { validity.reset(); items.reset(); n = 0 }
  }
}
