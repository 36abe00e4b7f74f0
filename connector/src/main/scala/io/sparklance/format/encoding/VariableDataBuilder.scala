package io.sparklance.format.encoding

import io.sparklance.util.{Bytes, Errors}

/**
 * Builds [[VariableData]] value by value in one growing byte array, never an array per value.
 * The value count is known up front (pages and chunks declare it, and callers bound it before
 * building), so the offsets are allocated once. The result keeps the array's spare capacity.
 *
 * Decoders that write a value themselves `reserve` room, write at `end`, then `endValue`.
 * `where` names the page for the error raised past 2 GiB of bytes.
 */
final class VariableDataBuilder(numValues: Int, initialBytes: Long, where: => String = "") {
  private val offsets = new Array[Int](numValues + 1)
  // A guess beyond 1 GiB is not worth allocating up front; growth takes over from there.
  private var buf = new Array[Byte](math.min(math.max(initialBytes, 0L), 1L << 30).toInt)
  private var n = 0

  /** Where the next value starts. */
  def end: Int = offsets(n)

  /** Makes room for `extra` more bytes after `end` and returns the array to write them into. */
  def reserve(extra: Long): Array[Byte] = {
    val need = end + extra
    if (need > buf.length) {
      // Arrays stop a little short of Int.MaxValue; 8 bytes of it are room for wide stores.
      if (need > GeneralCompression.MaxArrayBytes - 8)
        throw Errors.unsupported(s"more than 2 GiB of variable-width values in one page", where)
      buf = java.util.Arrays.copyOf(buf, math.min(math.max(need, buf.length * 2L), GeneralCompression.MaxArrayBytes.toLong).toInt)
    }
    buf
  }

  /** Ends the current value at `valueEnd` (bytes up to there were written after `reserve`). */
  def endValue(valueEnd: Int): Unit = {
    n += 1
    offsets(n) = valueEnd
  }

  def append(src: Array[Byte], off: Int, len: Int): Unit = {
    val out = reserve(len)
    System.arraycopy(src, off, out, end, len)
    endValue(end + len)
  }

  /** Appends `len` bytes of `src` at `off` (bounds-checked there). */
  def append(src: Bytes, off: Long, len: Int): Unit = {
    val out = reserve(len)
    src.copyTo(off, out, end, len)
    endValue(end + len)
  }

  def appendEmpty(): Unit = endValue(end)

  def result(): VariableData = {
    if (n != numValues) throw new IllegalStateException(s"built $n of $numValues values")
    new VariableData(offsets, buf)
  }
}
