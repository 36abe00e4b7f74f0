package io.sparklance.format.encoding

import java.security.MessageDigest

import io.sparklance.util.{Bytes, CorruptFileException}
import org.scalatest.Assertions

/** Shared data generators and checks for the encoding suites. */
object EncodingFixtures extends Assertions {

  val Path = "mem://encoding-test.lance"

  /** Bytes at an arbitrary non-zero file offset, so error offsets are exercised too. */
  def bytes(a: Array[Byte]): Bytes = Bytes.wrap(Path, 4096, a)

  /** Width masks for W in 0..64. */
  def mask(w: Int): Long = if (w == 64) -1L else (1L << w) - 1

  /**
   * The 64-bit LCG (Knuth's MMIX constants) the Python reference in FastLanesBitpackingSuite uses:
   * value i is bits 11.. of the (i+1)-th state, masked to W bits.
   */
  def lcg(seed: Long, n: Int, w: Int): Array[Long] = {
    var x = seed
    Array.fill(n) {
      x = x * 6364136223846793005L + 1442695040888963407L
      (x >>> 11) & mask(w)
    }
  }

  /** `n` values of exactly `w` significant bits (one value has bit w-1 set), as Longs. */
  def valuesOfWidth(seed: Long, n: Int, w: Int): Array[Long] = {
    val v = lcg(seed, n, w)
    if (w > 0 && n > 0) v(n / 2) |= 1L << (w - 1)
    v
  }

  /** Decoded little-endian values as Longs: 8-, 16- and 32-bit ones zero-extended, 64-bit ones as they are. */
  def longs(v: FixedWidthValues): Array[Long] = {
    val bb = java.nio.ByteBuffer.wrap(v.data, v.offset, v.data.length - v.offset).slice().order(java.nio.ByteOrder.LITTLE_ENDIAN)
    Array.tabulate(v.count) { i =>
      v.bitsPerValue match {
        case 8 => bb.get(i) & 0xffL
        case 16 => bb.getShort(2 * i) & 0xffffL
        case 32 => bb.getInt(4 * i) & 0xffffffffL
        case 64 => bb.getLong(8 * i)
      }
    }
  }

  /** Decoded little-endian 32-bit values as signed Ints. */
  def ints(v: FixedWidthValues): Array[Int] = {
    assert(v.bitsPerValue == 32)
    longs(v).map(_.toInt)
  }

  def hex(s: String): Array[Byte] = s.grouped(2).map(Integer.parseInt(_, 16).toByte).toArray

  def sha256(a: Array[Byte]): String = MessageDigest.getInstance("SHA-256").digest(a).map(b => f"${b & 0xff}%02x").mkString

  /** Runs `f` and requires either success or a CorruptFileException; anything else fails the test. */
  def corruptOrOk[A](what: String)(f: => A): Option[A] =
    try Some(f)
    catch {
      case _: CorruptFileException => None
      case e: Throwable => fail(s"$what threw ${e.getClass.getName} instead of CorruptFileException: $e", e)
    }

  /** Every prefix shorter than `a`, and copies with one byte changed at several positions. */
  def damaged(a: Array[Byte], seed: Long): Iterator[(String, Array[Byte])] = {
    val truncations = (0 until a.length).iterator.filter(i => i < 64 || i % 37 == 0 || i > a.length - 16)
      .map(i => (s"truncated to $i bytes", java.util.Arrays.copyOf(a, i)))
    val rnd = new scala.util.Random(seed)
    val flips = Iterator.fill(if (a.isEmpty) 0 else 200) {
      val c = a.clone()
      val pos = if (rnd.nextInt(4) == 0) rnd.nextInt(math.min(16, c.length)) else rnd.nextInt(c.length)
      c(pos) = (c(pos) ^ (1 << rnd.nextInt(8))).toByte
      (s"bit flipped at byte $pos", c)
    }
    truncations ++ flips
  }
}
