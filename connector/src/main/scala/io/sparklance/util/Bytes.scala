package io.sparklance.util

import java.nio.{ByteBuffer, ByteOrder}

/**
 * A little-endian view over bytes read from a file, which knows where it came from
 * (`path`, absolute `fileOffset` of its first byte) so that every bounds failure can name the
 * file and byte offset. All reads are checked against the view's length: a length or offset
 * read from a file is hostile until it passes here.
 */
final class Bytes private (val path: String, val fileOffset: Long, private val buf: ByteBuffer) {

  def length: Int = buf.remaining()

  /** Checks that `[off, off + len)` lies inside this view; `what` names the structure for the error. */
  def check(off: Long, len: Long, what: => String): Unit =
    if (off < 0 || len < 0 || off > length - len)
      throw Errors.corrupt(path, fileOffset + math.max(off, 0L),
        s"$what needs bytes [$off, +$len) but only $length bytes are available")

  def slice(off: Long, len: Long, what: => String): Bytes = {
    check(off, len, what)
    val b = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN)
    b.position(b.position() + off.toInt).limit(b.position() + len.toInt)
    new Bytes(path, fileOffset + off, b.slice().order(ByteOrder.LITTLE_ENDIAN))
  }

  def from(off: Long, what: => String): Bytes = slice(off, length - off, what)

  def u8(off: Long): Int = { check(off, 1, "u8"); buf.get(buf.position() + off.toInt) & 0xff }
  def u16(off: Long): Int = { check(off, 2, "u16"); buf.getShort(buf.position() + off.toInt) & 0xffff }
  def i32(off: Long): Int = { check(off, 4, "u32"); buf.getInt(buf.position() + off.toInt) }
  def u32(off: Long): Long = i32(off) & 0xffffffffL
  def i64(off: Long): Long = { check(off, 8, "u64"); buf.getLong(buf.position() + off.toInt) }

  /** An unsigned 64-bit value that must fit in a non-negative Long to be usable as a size or offset. */
  def u64AsSize(off: Long, what: => String): Long = {
    val v = i64(off)
    if (v < 0) throw Errors.corrupt(path, fileOffset + off, s"$what is ${java.lang.Long.toUnsignedString(v)}, larger than any file")
    v
  }

  /** A read-only little-endian ByteBuffer over the whole view (position 0). */
  def byteBuffer: ByteBuffer = buf.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN)

  def toArray: Array[Byte] = copyOfRange(0, length, "copy")

  /**
   * Bytes `[off, off + len)` as a new array. A heap view copies with Arrays.copyOfRange, which
   * the JIT fills without zeroing the array first.
   */
  def copyOfRange(off: Long, len: Int, what: => String): Array[Byte] = {
    check(off, len, what)
    if (buf.hasArray) {
      val from = buf.arrayOffset() + buf.position() + off.toInt
      java.util.Arrays.copyOfRange(buf.array(), from, from + len)
    } else {
      val out = new Array[Byte](len)
      copyTo(off, out, 0, len)
      out
    }
  }

  /**
   * Bytes `[off, off + len)` as an array and the index they start at in it: the backing
   * array itself when there is one (reads hand out fresh arrays, never reused), else a copy.
   * Nothing may write to the array.
   */
  def arrayView(off: Long, len: Int, what: => String): (Array[Byte], Int) = {
    check(off, len, what)
    if (buf.hasArray) (buf.array(), buf.arrayOffset() + buf.position() + off.toInt)
    else (copyOfRange(off, len, what), 0)
  }

  /** Copies `len` bytes starting at `off` into `dst` at `dstOff`. */
  def copyTo(off: Long, dst: Array[Byte], dstOff: Int, len: Int): Unit = {
    check(off, len, "copy")
    val b = buf.duplicate()
    b.position(b.position() + off.toInt)
    b.get(dst, dstOff, len)
  }

  override def toString: String = s"Bytes($path@$fileOffset, $length bytes)"
}

object Bytes {
  def apply(path: String, fileOffset: Long, buf: ByteBuffer): Bytes =
    new Bytes(path, fileOffset, buf.slice().order(ByteOrder.LITTLE_ENDIAN))

  def wrap(path: String, fileOffset: Long, bytes: Array[Byte]): Bytes =
    apply(path, fileOffset, ByteBuffer.wrap(bytes))
}
