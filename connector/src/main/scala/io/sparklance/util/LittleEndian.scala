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

  @inline def putInt(a: Array[Byte], off: Int, v: Int): Unit = I32.set(a, off, v)
  @inline def putLong(a: Array[Byte], off: Int, v: Long): Unit = I64.set(a, off, v)
}
