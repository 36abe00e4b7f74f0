package io.sparklance.format.write

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

  def appendZeros(len: Int): Unit = {
    if (n + len > buf.length) buf = java.util.Arrays.copyOf(buf, math.max(n + len, buf.length * 2))
    java.util.Arrays.fill(buf, n, n + len, 0.toShort)
    n += len
  }

  def toArray: Array[Short] = java.util.Arrays.copyOf(buf, n)
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

  def appendOnes(count: Int): Unit = { var i = 0; while (i < count) { append(true); i += 1 } }
  def toArray: Array[Byte] = bytes.toArray
  def clear(): Unit = { bytes.clear(); n = 0 }
}
