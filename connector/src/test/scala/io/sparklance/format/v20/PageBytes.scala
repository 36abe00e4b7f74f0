package io.sparklance.format.v20

import java.nio.{ByteBuffer, ByteOrder}

/** Little-endian page bytes for hand-made 2.0 pages. */
object PageBytes {
  def le(width: Int, values: Long*): Array[Byte] = {
    val b = ByteBuffer.allocate(width * values.length).order(ByteOrder.LITTLE_ENDIAN)
    values.foreach(v => width match {
      case 1 => b.put(v.toByte)
      case 2 => b.putShort(v.toShort)
      case 4 => b.putInt(v.toInt)
      case _ => b.putLong(v)
    })
    b.array()
  }

  /** LSB-first bitmap, bit set = true. */
  def bitmap(bits: Boolean*): Array[Byte] = {
    val out = new Array[Byte]((bits.length + 7) / 8)
    bits.indices.foreach(i => if (bits(i)) out(i / 8) = (out(i / 8) | (1 << (i % 8))).toByte)
    out
  }

  def buf(i: Int): BufferRef = BufferRef(i, BufferKind.Page)
  def flat(bits: Int, i: Int): ArrayEncoding.Flat = ArrayEncoding.Flat(bits, buf(i), None)
}
