package io.sparklance.util

import java.lang.invoke.{MethodHandles, VarHandle}
import java.nio.ByteOrder

/**
 * Little-endian 16/32/64-bit loads and 32/64-bit stores at any byte offset of a byte array.
 * Lance stores every multi-byte value little-endian and Arrow buffers are little-endian too, so
 * decoders read and write values in place in byte arrays. Byte-array views compile to single
 * (bounds-checked) unaligned loads and stores, where ByteBuffer views cost several times more
 * per access in hot decode loops.
 */
object LittleEndian {
  private val I16: VarHandle = MethodHandles.byteArrayViewVarHandle(classOf[Array[Short]], ByteOrder.LITTLE_ENDIAN)
  private val I32: VarHandle = MethodHandles.byteArrayViewVarHandle(classOf[Array[Int]], ByteOrder.LITTLE_ENDIAN)
  private val I64: VarHandle = MethodHandles.byteArrayViewVarHandle(classOf[Array[Long]], ByteOrder.LITTLE_ENDIAN)

  @inline def getShort(a: Array[Byte], off: Int): Short = (I16.get(a, off): Short)
  @inline def getInt(a: Array[Byte], off: Int): Int = (I32.get(a, off): Int)
  @inline def getLong(a: Array[Byte], off: Int): Long = (I64.get(a, off): Long)

  /**
   * The bytes of `a` at `[from, min(until, from + 8))` as a little-endian word, zeros above them:
   * one masked load where the array holds 8 bytes from `from`, else assembled byte by byte (the
   * same word either way, so a value's tail reads alike wherever it lies in the array).
   */
  @inline def getLongUpTo(a: Array[Byte], from: Int, until: Int): Long =
    if (from + 8 <= a.length) getLong(a, from) & lowBytes(until - from)
    else {
      var w = 0L
      var i = math.min(until, from + 8) - 1
      while (i >= from) { w = (w << 8) | (a(i) & 0xffL); i -= 1 }
      w
    }

  /** The mask of a word's low `n` bytes (all of it from 8 on, none at 0). */
  @inline def lowBytes(n: Int): Long = if (n >= 8) -1L else (1L << (n << 3)) - 1

  @inline def putInt(a: Array[Byte], off: Int, v: Int): Unit = I32.set(a, off, v)
  @inline def putLong(a: Array[Byte], off: Int, v: Long): Unit = I64.set(a, off, v)
}
