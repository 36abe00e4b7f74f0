package io.sparklance.util;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Little-endian 16/32/64-bit loads and 32/64-bit stores at any byte offset of a byte array.
 * Lance stores every multi-byte value little-endian and Arrow buffers are little-endian too, so
 * decoders read and write values in place in byte arrays. Byte-array views compile to single
 * (bounds-checked) unaligned loads and stores, where ByteBuffer views cost several times more
 * per access in hot decode loops.
 *
 * <p>Java, not Scala: a VarHandle's access methods are signature-polymorphic, which Scala 2.13
 * compiles only from 2.13.11, and Spark 3.5's Scala 2.13 is 2.13.8.
 */
public final class LittleEndian {
  private static final VarHandle I16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle I32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle I64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private LittleEndian() {}

  public static short getShort(byte[] a, int off) { return (short) I16.get(a, off); }

  public static int getInt(byte[] a, int off) { return (int) I32.get(a, off); }

  public static long getLong(byte[] a, int off) { return (long) I64.get(a, off); }

  /**
   * The bytes of {@code a} at {@code [from, min(until, from + 8))} as a little-endian word, zeros
   * above them: one masked load where the array holds 8 bytes from {@code from}, else assembled
   * byte by byte (the same word either way, so a value's tail reads alike wherever it lies in
   * the array).
   */
  public static long getLongUpTo(byte[] a, int from, int until) {
    if (from + 8 <= a.length) return getLong(a, from) & lowBytes(until - from);
    long w = 0L;
    for (int i = Math.min(until, from + 8) - 1; i >= from; i--) w = (w << 8) | (a[i] & 0xffL);
    return w;
  }

  /** The mask of a word's low {@code n} bytes (all of it from 8 on, none at 0). */
  public static long lowBytes(int n) { return n >= 8 ? -1L : (1L << (n << 3)) - 1; }

  public static void putInt(byte[] a, int off, int v) { I32.set(a, off, v); }

  public static void putLong(byte[] a, int off, long v) { I64.set(a, off, v); }
}
