package io.sparklance.format.write

import io.sparklance.format.encoding.BitCopy
import io.sparklance.util.Errors

// Growing primitive arrays for what a column writer buffers until it flushes a page. A page is
// bounded by the writer's per-column budget (FileWriterOptions.pageBytes), far below 2 GiB; the
// check here names the column if a single batch would still overflow an array.

final class ByteArrayBuilder(initial: Int = 1024) {
  private var buf = new Array[Byte](math.max(initial, 16))
  private var n = 0

  def length: Int = n
  def array: Array[Byte] = buf

  /** Makes room for `extra` more bytes and returns the array to write them into at `length`. */
  def reserve(extra: Long): Array[Byte] = {
    val need = n + extra
    if (need > buf.length) {
      if (need > Int.MaxValue - 16) throw Errors.unsupported("more than 2 GiB of buffered values in one column page", "the file writer")
      buf = java.util.Arrays.copyOf(buf, math.min(math.max(need, buf.length * 2L), Int.MaxValue - 16L).toInt)
    }
    buf
  }

  def advance(count: Int): Unit = n += count
  def append(src: Array[Byte], off: Int, len: Int): Unit = { reserve(len); System.arraycopy(src, off, buf, n, len); n += len }
  def appendZeros(len: Int): Unit = { reserve(len); java.util.Arrays.fill(buf, n, n + len, 0.toByte); n += len }
  def toArray: Array[Byte] = java.util.Arrays.copyOf(buf, n)
  /** The bytes, as the builder's own array when it is exactly full (no copy); the builder is done. */
  def result(): Array[Byte] = if (n == buf.length) buf else toArray
  def clear(): Unit = n = 0
}

final class ShortArrayBuilder(initial: Int = 1024) {
  private var buf = new Array[Short](math.max(initial, 16))
  private var n = 0

  def length: Int = n
  def apply(i: Int): Short = buf(i)

  def append(v: Short): Unit = {
    if (n == buf.length) buf = java.util.Arrays.copyOf(buf, math.min(buf.length * 2L, Int.MaxValue - 16L).toInt)
    buf(n) = v
    n += 1
  }

  def appendAll(src: Array[Short], len: Int): Unit = {
    if (n + len > buf.length) buf = java.util.Arrays.copyOf(buf, math.max(n + len, buf.length * 2))
    System.arraycopy(src, 0, buf, n, len)
    n += len
  }

  def appendZeros(len: Int): Unit = appendZerosIn(len)

  /**
   * Appends `len` zeros and returns the array that holds them at `[length - len, length)`, for
   * the caller to set some of them in place; it is valid until the next append.
   */
  def appendZerosIn(len: Int): Array[Short] = {
    if (n + len > buf.length) buf = java.util.Arrays.copyOf(buf, math.max(n + len, buf.length * 2))
    java.util.Arrays.fill(buf, n, n + len, 0.toShort)
    n += len
    buf
  }

  /** The values so far at `[0, length)`, in the builder's own array: valid until the next append or clear. */
  def buffer: Array[Short] = buf
  def clear(): Unit = n = 0
}

final class LongArrayBuilder(initial: Int = 1024) {
  private var buf = new Array[Long](math.max(initial, 16))
  private var n = 0

  def length: Int = n
  def apply(i: Int): Long = buf(i)

  def append(v: Long): Unit = {
    if (n == buf.length) {
      if (n > Int.MaxValue / 2 - 16) throw Errors.unsupported("more than 2^30 buffered values in one column page", "the file writer")
      buf = java.util.Arrays.copyOf(buf, n * 2)
    }
    buf(n) = v
    n += 1
  }

  def clear(): Unit = n = 0
}

/** LSB-first bits, as Arrow validity bitmaps and boolean values are laid out. */
final class BitArrayBuilder {
  private val bytes = new ByteArrayBuilder()
  private var n = 0L

  def length: Long = n

  def append(bit: Boolean): Unit = {
    if ((n & 7) == 0) bytes.appendZeros(1)
    if (bit) { val a = bytes.array; a((n >>> 3).toInt) = (a((n >>> 3).toInt) | (1 << (n & 7).toInt)).toByte }
    n += 1
  }

  def appendOnes(count: Int): Unit = {
    val start = n.toInt
    grow(count)
    val a = bytes.array
    var i = 0
    // Bit by bit up to a byte boundary, then whole bytes, then the tail.
    while (i < count && ((start + i) & 7) != 0) { a((start + i) >>> 3) = (a((start + i) >>> 3) | (1 << ((start + i) & 7))).toByte; i += 1 }
    val whole = (count - i) >>> 3
    java.util.Arrays.fill(a, (start + i) >>> 3, ((start + i) >>> 3) + whole, 0xff.toByte)
    i += whole << 3
    while (i < count) { a((start + i) >>> 3) = (a((start + i) >>> 3) | (1 << ((start + i) & 7))).toByte; i += 1 }
  }

  /** Appends bits `[fromBit, fromBit + count)` of the LSB-first bitmap `src` (an Arrow validity or boolean buffer). */
  def appendBits(src: org.apache.arrow.memory.ArrowBuf, fromBit: Long, count: Int): Unit = {
    if (count == 0) return
    val firstByte = fromBit >>> 3
    val tmp = new Array[Byte](((((fromBit & 7) + count + 7) >>> 3)).toInt)
    src.getBytes(firstByte, tmp, 0, tmp.length)
    val start = n.toInt
    grow(count)
    BitCopy.copyBits(tmp, (fromBit & 7).toInt, bytes.array, start, count)
  }

  /** How many of bits `[from, from + count)` are set. */
  def countSet(from: Long, count: Int): Int = {
    val a = bytes.array
    var c = 0
    var i = from.toInt
    val end = i + count
    while (i < end && (i & 7) != 0) { if ((a(i >>> 3) & (1 << (i & 7))) != 0) c += 1; i += 1 }
    while (i + 8 <= end) { c += Integer.bitCount(a(i >>> 3) & 0xff); i += 8 }
    while (i < end) { if ((a(i >>> 3) & (1 << (i & 7))) != 0) c += 1; i += 1 }
    c
  }

  /** Makes room for `count` more bits, zeroed, and counts them in. */
  private def grow(count: Int): Unit = {
    if (n + count > Int.MaxValue - 64) throw Errors.unsupported("more than 2^31 buffered bits in one column page", "the file writer")
    val need = ((n + count + 7) >>> 3) - bytes.length
    if (need > 0) bytes.appendZeros(need.toInt)
    n += count
  }

  def toArray: Array[Byte] = bytes.toArray
  def clear(): Unit = { bytes.clear(); n = 0 }
}
