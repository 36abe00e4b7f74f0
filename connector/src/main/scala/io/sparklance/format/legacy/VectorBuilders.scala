package io.sparklance.format.legacy

import java.nio.charset.StandardCharsets

import org.apache.arrow.memory.{ArrowBuf, BufferAllocator}
import org.apache.arrow.vector.{BaseFixedWidthVector, BaseLargeVariableWidthVector, BaseVariableWidthVector, BitVector, FieldVector, NullVector}
import org.apache.arrow.vector.complex.{FixedSizeListVector, LargeListVector, ListVector, StructVector}
import org.apache.arrow.vector.ipc.message.ArrowFieldNode

import io.sparklance.util.{Bytes, Errors, LittleEndian}

// Spec: the Arrow columnar format (buffer layouts per type). Legacy pages are decoded batch
// by batch into these growable buffers, then copied once into the Arrow vector of the
// requested rows, so a read that crosses batch boundaries still yields one vector.

/** Bytes that grow by doubling, refusing to exceed what one JVM array (and Arrow buffer) holds. */
private[legacy] final class GrowingBytes(what: => String) {
  private var buf = new Array[Byte](64)
  private var used = 0

  def size: Int = used
  def array: Array[Byte] = buf

  /** Makes room for `extra` more bytes and returns the offset they start at. */
  def reserve(extra: Long): Int = {
    val need = used.toLong + extra
    if (extra < 0 || need > GrowingBytes.MaxBytes)
      throw Errors.unsupported(s"more than ${GrowingBytes.MaxBytes} bytes in one read", s"$what; lower the batch size")
    if (need > buf.length) {
      val grown = math.min(math.max(need, buf.length.toLong * 2), GrowingBytes.MaxBytes.toLong).toInt
      buf = java.util.Arrays.copyOf(buf, grown)
    }
    val at = used
    used = need.toInt
    at
  }

  def append(src: Bytes, off: Long, len: Int): Unit = {
    val at = reserve(len.toLong)
    src.copyTo(off, buf, at, len)
  }

  def putLong(v: Long): Unit = {
    val at = reserve(8) // first: it may replace `buf`
    LittleEndian.putLong(buf, at, v)
  }

  def longAt(i: Int): Long = LittleEndian.getLong(buf, i * 8)

  def clear(): Unit = { used = 0; if (buf.length > (1 << 20)) buf = new Array[Byte](64) }

  /** Copies the bytes into a new Arrow buffer of at least one byte. */
  def toArrow(allocator: BufferAllocator): ArrowBuf = {
    val out = allocator.buffer(math.max(used, 1).toLong)
    out.setZero(0, out.capacity())
    out.setBytes(0, buf, 0, used.toLong)
    out
  }
}

private[legacy] object GrowingBytes {
  val MaxBytes: Int = Int.MaxValue - 64
}

/** A bitmap that grows one bit at a time (values of a boolean column, or validity). */
private[legacy] final class GrowingBits(what: => String) {
  private val bytes = new GrowingBytes(what)
  private var bits = 0

  def count: Int = bits

  def append(value: Boolean): Unit = {
    if ((bits & 7) == 0) { val at = bytes.reserve(1); bytes.array(at) = 0 } // reserve may move the array
    if (value) { val a = bytes.array; a(bits >>> 3) = (a(bits >>> 3) | (1 << (bits & 7))).toByte }
    bits += 1
  }

  /** Appends `n` bits of `src` starting at bit `srcBit`. */
  def appendFrom(src: Bytes, srcBit: Long, n: Int): Unit = {
    var i = 0
    while (i < n) {
      val b = srcBit + i
      append(((src.u8(b >>> 3) >>> (b & 7).toInt) & 1) != 0)
      i += 1
    }
  }

  def get(i: Int): Boolean = ((bytes.array(i >>> 3) >>> (i & 7)) & 1) != 0

  def clear(): Unit = { bytes.clear(); bits = 0 }

  def toArrow(allocator: BufferAllocator): ArrowBuf = bytes.toArrow(allocator)
}

/** Rows accumulated for one Arrow vector (and its children). */
private[legacy] sealed abstract class VectorBuilder {
  /** Rows appended since the last [[clear]]. */
  def count: Int
  def clear(): Unit

  /** Hands the rows to `vector`, created from the Arrow field this builder was made for. */
  def load(vector: FieldVector, allocator: BufferAllocator, where: String): Unit

  protected def loadOwn(vector: FieldVector, nullCount: Int, buffers: ArrowBuf*): Unit =
    try vector.loadFieldBuffers(new ArrowFieldNode(count.toLong, nullCount.toLong), java.util.Arrays.asList(buffers: _*))
    finally buffers.foreach(_.close())

  protected def allValid(allocator: BufferAllocator): ArrowBuf = {
    val bytes = math.max((count + 7) / 8, 1)
    val buf = allocator.buffer(bytes.toLong)
    buf.setOne(0, bytes.toLong)
    buf
  }

  protected def mismatch(vector: FieldVector, where: String): Nothing =
    throw Errors.unsupported(s"reading Arrow type ${vector.getField.getType} from a legacy page", where)
}

/** A column of the Arrow null type: only a row count. */
private[legacy] final class NullBuilder extends VectorBuilder {
  private var rows = 0
  def count: Int = rows
  def add(n: Int): Unit = rows = Math.addExact(rows, n)
  def clear(): Unit = rows = 0
  def load(vector: FieldVector, allocator: BufferAllocator, where: String): Unit = vector match {
    case v: NullVector => v.setValueCount(rows)
    case _ => mismatch(vector, where)
  }
}

/** Booleans as a bitmap; legacy pages store no validity, so every row is valid. */
private[legacy] final class BitBuilder(where: => String) extends VectorBuilder {
  val bits = new GrowingBits(where)
  def count: Int = bits.count
  def clear(): Unit = bits.clear()
  def load(vector: FieldVector, allocator: BufferAllocator, where: String): Unit = vector match {
    case _: BitVector => loadOwn(vector, 0, allValid(allocator), bits.toArrow(allocator))
    case _ => mismatch(vector, where)
  }
}

/** Values of `width` bytes each, all valid. */
private[legacy] final class FixedBuilder(val width: Int, where: => String) extends VectorBuilder {
  val data = new GrowingBytes(where)
  def count: Int = data.size / width
  def clear(): Unit = data.clear()
  def append(src: Bytes, off: Long, rows: Int): Unit = data.append(src, off, Math.multiplyExact(rows, width))
  def load(vector: FieldVector, allocator: BufferAllocator, where: String): Unit = vector match {
    case v: BaseFixedWidthVector if v.getTypeWidth == width => loadOwn(vector, 0, allValid(allocator), data.toArrow(allocator))
    case _ => mismatch(vector, where)
  }
}

/**
 * Variable-width values (strings, binaries). `emptyIsNull`: the legacy format has no validity
 * for these pages, and pylance reads a zero-length value of a nullable field as null.
 */
private[legacy] final class VarBuilder(emptyIsNull: Boolean, where: => String) extends VectorBuilder {
  private val data = new GrowingBytes(where)
  private val ends = new GrowingBytes(where) // i64 end offset of each value
  private val valid = new GrowingBits(where)
  private var nulls = 0

  def count: Int = valid.count
  def clear(): Unit = { data.clear(); ends.clear(); valid.clear(); nulls = 0 }

  def append(src: Bytes, off: Long, len: Int): Unit = {
    if (len > 0) data.append(src, off, len)
    ends.putLong(data.size.toLong)
    val isValid = len > 0 || !emptyIsNull
    if (!isValid) nulls += 1
    valid.append(isValid)
  }

  /** The value of row `i`, or None when it is null. */
  def value(i: Int): Option[Array[Byte]] =
    if (!valid.get(i)) None
    else {
      val start = if (i == 0) 0 else ends.longAt(i - 1).toInt
      Some(java.util.Arrays.copyOfRange(data.array, start, ends.longAt(i).toInt))
    }

  def string(i: Int): Option[String] = value(i).map(new String(_, StandardCharsets.UTF_8))

  def load(vector: FieldVector, allocator: BufferAllocator, where: String): Unit = {
    val large = vector match {
      case _: BaseVariableWidthVector => false
      case _: BaseLargeVariableWidthVector => true
      case _ => mismatch(vector, where)
    }
    val ow = if (large) 8 else 4
    val offsets = allocator.buffer(Math.multiplyExact(count.toLong + 1, ow.toLong))
    try {
      if (large) offsets.setLong(0, 0) else offsets.setInt(0, 0)
      var i = 0
      while (i < count) {
        val e = ends.longAt(i)
        if (large) offsets.setLong((i + 1).toLong * 8, e) else offsets.setInt((i + 1).toLong * 4, e.toInt)
        i += 1
      }
    } catch { case t: Throwable => offsets.close(); throw t }
    loadOwn(vector, nulls, valid.toArrow(allocator), offsets, data.toArrow(allocator))
  }
}

/** Fixed-size lists (and their items, in `items`); every list is valid. */
private[legacy] final class FixedListBuilder(val dimension: Int, val items: VectorBuilder) extends VectorBuilder {
  private var rows = 0
  def count: Int = rows
  def add(n: Int): Unit = rows = Math.addExact(rows, n)
  def clear(): Unit = { rows = 0; items.clear() }
  def load(vector: FieldVector, allocator: BufferAllocator, where: String): Unit = vector match {
    case v: FixedSizeListVector if v.getListSize == dimension =>
      loadOwn(vector, 0, allValid(allocator))
      items.load(v.getDataVector, allocator, where)
    case _ => mismatch(vector, where)
  }
}

/** Variable-size lists: lengths here, items in `items`. Legacy lists have no validity. */
private[legacy] final class ListBuilder(val items: VectorBuilder, where: => String) extends VectorBuilder {
  private val ends = new GrowingBytes(where)
  private var rows = 0
  private var total = 0L

  def count: Int = rows
  def clear(): Unit = { ends.clear(); rows = 0; total = 0; items.clear() }

  def addList(length: Long): Unit = {
    total += length
    ends.putLong(total)
    rows += 1
  }

  def load(vector: FieldVector, allocator: BufferAllocator, where: String): Unit = {
    val (large, child) = vector match {
      case v: ListVector => (false, v.getDataVector)
      case v: LargeListVector => (true, v.getDataVector)
      case _ => mismatch(vector, where)
    }
    if (!large && total > Int.MaxValue)
      throw Errors.unsupported(s"$total list items in one read", s"$where; lower the batch size")
    val ow = if (large) 8 else 4
    val offsets = allocator.buffer(Math.multiplyExact(count.toLong + 1, ow.toLong))
    try {
      if (large) offsets.setLong(0, 0) else offsets.setInt(0, 0)
      var i = 0
      while (i < rows) {
        val e = ends.longAt(i)
        if (large) offsets.setLong((i + 1).toLong * 8, e) else offsets.setInt((i + 1).toLong * 4, e.toInt)
        i += 1
      }
    } catch { case t: Throwable => offsets.close(); throw t }
    loadOwn(vector, 0, allValid(allocator), offsets)
    items.load(child, allocator, where)
  }
}

/** Structs: the children hold the values; legacy structs have no validity. */
private[legacy] final class StructBuilder(val children: IndexedSeq[VectorBuilder]) extends VectorBuilder {
  private var rows = 0
  def count: Int = rows
  def add(n: Int): Unit = rows = Math.addExact(rows, n)
  def clear(): Unit = { rows = 0; children.foreach(_.clear()) }
  def load(vector: FieldVector, allocator: BufferAllocator, where: String): Unit = vector match {
    case v: StructVector =>
      val kids = v.getChildrenFromFields
      if (kids.size != children.length) mismatch(vector, where)
      loadOwn(vector, 0, allValid(allocator))
      children.indices.foreach(i => children(i).load(kids.get(i), allocator, where))
    case _ => mismatch(vector, where)
  }
}
