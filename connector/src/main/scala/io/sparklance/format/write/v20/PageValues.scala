package io.sparklance.format.write.v20

import java.nio.ByteBuffer

import org.apache.arrow.vector._
import org.apache.arrow.vector.complex.{FixedSizeListVector, StructVector}

import io.sparklance.format.v20.{ArrayEncoding => AE, BufferKind, BufferRef, FlatCompression}
import io.sparklance.format.write.{BitArrayBuilder, ByteArrayBuilder, LongArrayBuilder}
import io.sparklance.util.Errors

// Spec: rust/lance-encoding/src/data.rs (DataBlock::from_arrays) and
// previous/encodings/physical/{basic,value,bitmap,fixed_size_list,binary,dictionary}.rs.
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
private[v20] sealed trait PageValues {
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
      var i = 0
      while (i < n) {
        val valid = !v.isNull(from + i)
        if (!valid) nullCount += 1
        bits.append(valid)
        i += 1
      }
    }

  /**
   * basic.rs BasicEncoder: `nullable{all_nulls}` without buffers when no value is valid (an
   * empty page included, as DataBlock::from_arrays makes it all-null), `nullable{no_nulls}`
   * when every value is, and otherwise `nullable{some_nulls}` with the bitmap first.
   */
  def wrap(count: Long, out: PageBuffers)(values: => AE): AE =
    if (count == 0 || nullCount == count) AE.AllNulls
    else if (nullCount == 0) AE.NoNulls(values)
    else {
      val validity = AE.Flat(1, out.add(bits.toArray), None)
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
      if (bits == 1) {
        // The value bit of a null slot is kept as it is; it is never read back.
        val buf = v.asInstanceOf[BitVector].getDataBuffer
        var i = 0
        while (i < len) { val p = from + i; booleans.append((buf.getByte(p >>> 3) & (1 << (p & 7))) != 0); i += 1 }
      } else {
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

  /**
   * A struct asked to be packed (`lance-encoding:packed`): `packed_struct{inner, buffer}`, one
   * buffer of rows, each row its members' values back to back (packed_struct.rs). Members are
   * whole-byte fixed-width values or fixed-size lists of them, each described as
   * `nullable{no_nulls{...}}` naming buffer 0 (Rust encodes each member on its own). Neither the
   * struct nor its members can be null: Rust refuses null members, and drops struct validity.
   */
  final class PackedStruct(path: String, members: IndexedSeq[PackedMember]) extends PageValues {
    private val rows = new ByteArrayBuilder()
    private val rowBytes = members.map(_.bytesPerRow).sum
    private var n = 0L

    def count: Long = n
    def arrowBytes(v: ValueVector, from: Int, len: Int): Long = len.toLong * rowBytes

    override def check(v: ValueVector, from: Int, len: Int): Unit = {
      val s = v.asInstanceOf[StructVector]
      def refuse(what: String, at: Int) = throw Errors.notInFileVersion(s"$what in the packed struct field '$path' (at position $at of the batch)",
        "2.0", "the file writer", "remove the lance-encoding:packed hint, or fill the nulls")
      firstNull(s, from, len).foreach(refuse("a null struct", _))
      members.zipWithIndex.foreach { case (m, i) => m.firstNull(s.getChildByOrdinal(i), from, len).foreach(refuse(s"a null in member '${m.name}'", _)) }
    }

    def append(v: ValueVector, from: Int, len: Int): Unit = {
      val s = v.asInstanceOf[StructVector]
      val out = rows.reserve(len.toLong * rowBytes)
      var at = rows.length
      val sources = members.indices.map(i => members(i).leafBuffer(s.getChildByOrdinal(i)))
      var r = 0
      while (r < len) {
        var i = 0
        while (i < members.length) {
          val w = members(i).bytesPerRow
          sources(i).getBytes((from + r).toLong * w, out, at, w)
          at += w
          i += 1
        }
        r += 1
      }
      rows.advance(len * rowBytes)
      n += len
    }

    def encode(out: PageBuffers): AE = AE.PackedStruct(members.map(_.encoding), out.add(rows.toArray))

    def reset(): Unit = { rows.clear(); n = 0 }
  }

  private def firstNull(v: ValueVector, from: Int, len: Int): Option[Int] =
    if (v.getNullCount == 0) None else (from until from + len).find(v.isNull)

  /**
   * One member of a packed struct: `bitsPerItem`-bit values, `itemsPerRow` of them per row
   * (`dimensions` are the sizes of the fixed-size lists around them, outermost first).
   */
  final class PackedMember(val name: String, bitsPerItem: Int, dimensions: Seq[Int]) {
    private val itemsPerRow = dimensions.product
    val bytesPerRow: Int = itemsPerRow * (bitsPerItem / 8)

    val encoding: AE = dimensions.foldRight[AE](AE.NoNulls(AE.Flat(bitsPerItem, BufferRef(0, BufferKind.Page), None))) {
      (dim, items) => AE.NoNulls(AE.FixedSizeList(dim, hasValidity = false, items))
    }

    /** The fixed-width vector holding the member's items. */
    private def leaf(v: ValueVector): ValueVector = dimensions.foldLeft(v)((x, _) => x.asInstanceOf[FixedSizeListVector].getDataVector)

    def leafBuffer(v: ValueVector): org.apache.arrow.memory.ArrowBuf = leaf(v).asInstanceOf[BaseFixedWidthVector].getDataBuffer

    /** The first row of `[from, from + len)` where the member or one of its items is null. */
    def firstNull(v: ValueVector, from: Int, len: Int): Option[Int] = {
      var x = v
      var per = 1
      var found = PageValues.firstNull(x, from, len)
      dimensions.foreach { d =>
        x = x.asInstanceOf[FixedSizeListVector].getDataVector
        per *= d
        if (found.isEmpty) found = PageValues.firstNull(x, from * per, len * per).map(_ / per)
      }
      found
    }
  }

  /**
   * Strings and binaries (binary.rs BinaryEncoder): `binary{indices, bytes, null_adjustment}`,
   * or, for `Utf8` pages the strategy picks it for, a dictionary (dictionary.rs). Each value's
   * bytes span what its Arrow offsets say, a null's included, as Rust copies them.
   */
  final class Binaries(large: Boolean, dictionaryCandidate: Boolean, compression: Option[FlatCompression]) extends PageValues {
    private val bytes = new ByteArrayBuilder()
    private val ends = new LongArrayBuilder()
    private val validity = new ValidityBits
    private val nullFlags = new BitArrayBuilder

    def count: Long = ends.length

    private def offset(v: ValueVector, i: Int): Long = v match {
      case l: BaseLargeVariableWidthVector => l.getOffsetBuffer.getLong(i.toLong * 8)
      case s: BaseVariableWidthVector => s.getOffsetBuffer.getInt(i.toLong * 4).toLong
      case other => throw new IllegalStateException(s"not a variable-width vector: ${other.getClass}")
    }

    def arrowBytes(v: ValueVector, from: Int, len: Int): Long =
      offset(v, from + len) - offset(v, from) + (len + 1L) * (if (large) 8 else 4) + (if (v.getNullCount > 0) (len + 7L) / 8 else 0)

    def append(v: ValueVector, from: Int, len: Int): Unit = {
      validity.append(v, from, len)
      val start = offset(v, from)
      val total = offset(v, from + len) - start
      val out = bytes.reserve(total)
      v.asInstanceOf[VariableWidthFieldVector].getDataBuffer.getBytes(start, out, bytes.length, total.toInt)
      val base = bytes.length.toLong - start
      bytes.advance(total.toInt)
      var i = 0
      while (i < len) {
        ends.append(base + offset(v, from + i + 1))
        nullFlags.append(v.isNull(from + i))
        i += 1
      }
    }

    def encode(out: PageBuffers): AE = {
      val flags = nullFlags.toArray
      val page = new BinaryPage(ends.length, i => ends(i), i => (flags(i >>> 3) & (1 << (i & 7))) != 0, bytes.array, validity.nulls)
      val dictionary = if (dictionaryCandidate) ArrayEncodingStrategy.dictionary(page) else None
      dictionary.fold(binary(page, out))(d => dictionaryEncoding(d, out))
    }

    // binary.rs get_indices_from_string_arrays: indices are the values' cumulative end offsets,
    // a null's raised by null_adjustment = total bytes + 1. A page with no valid value is
    // DataBlock::AllNull in Rust: no bytes, every index 1 and null_adjustment 1.
    private def binary(p: BinaryPage, out: PageBuffers): AE = {
      val allNull = p.count > 0 && p.nulls == p.count
      val total = if (p.count == 0 || allNull) 0L else p.end(p.count - 1)
      val adjustment = if (p.count == 0) 0L else total + 1
      val indices = PageBuffers.longs(p.count, i => if (allNull) 1L else if (p.isNull(i)) p.end(i) + adjustment else p.end(i))
      val idx = AE.NoNulls(AE.Flat(64, out.add(indices), None))
      val raw = java.util.Arrays.copyOf(p.data, total.toInt)
      AE.Binary(idx, AE.Flat(8, out.add(ArrayEncodingStrategy.compress(raw, compression)), compression), adjustment)
    }

    // dictionary.rs DictionaryEncoder: u8 indices counting from 1 (0 = null), then the distinct
    // strings in first-seen order as a binary without compression; a page whose values are all
    // null gets a dictionary of one null item.
    private def dictionaryEncoding(d: ArrayEncodingStrategy.Dictionary, out: PageBuffers): AE = {
      val idx = AE.NoNulls(AE.Flat(8, out.add(d.indices), None))
      val items =
        if (d.items.isEmpty) AE.Binary(AE.NoNulls(AE.Flat(64, out.add(PageBuffers.longs(1, _ => 1L)), None)), AE.Flat(8, out.add(Array.emptyByteArray), None), 1)
        else {
          val itemEnds = d.items.scanLeft(0L)(_ + _.length).tail
          val itemBytes = new ByteArrayBuilder()
          d.items.foreach(b => itemBytes.append(b, 0, b.length))
          AE.Binary(AE.NoNulls(AE.Flat(64, out.add(PageBuffers.longs(itemEnds.length, itemEnds(_))), None)),
            AE.Flat(8, out.add(itemBytes.toArray), None), itemEnds.last + 1)
        }
      AE.Dictionary(idx, items, math.max(1, d.items.length).toLong)
    }

    def reset(): Unit = { bytes.clear(); ends.clear(); validity.reset(); nullFlags.clear() }
  }
}

/** One page of strings or binaries as the encoding strategy sees it: value `i` is `data[start(i), end(i))`. */
private[v20] final class BinaryPage(val count: Int, val end: Int => Long, val isNull: Int => Boolean, val data: Array[Byte], val nulls: Long) {
  def start(i: Int): Long = if (i == 0) 0L else end(i - 1)
}
