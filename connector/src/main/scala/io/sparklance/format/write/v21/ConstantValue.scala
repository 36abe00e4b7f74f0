package io.sparklance.format.write.v21

import io.sparklance.format.encoding.{DecodedValues, FixedWidthValues, VariableData}

// Spec: rust/lance-encoding/src/encodings/logical/primitive.rs (find_constant_scalar,
// is_constant_values), primitive/constant.rs (encode_constant_page) and lance-arrow scalar.rs
// (try_inline_value, encode_scalar_value_buffer). From file version 2.2, a page whose valid
// values are all equal stores the value once: inline in the layout when it is one Arrow buffer of
// at most 32 bytes (fixed-width values, booleans as a one-byte bitmap), else in a page buffer
// holding the Arrow buffers of a one-value array: u32 count, u32 length of each, the bytes.

private[write] object ConstantValue {
  final val InlineMaxBytes = 32

  /** The page's value if every valid slot holds the same one; `valid(i)` says whether slot i is valid. */
  def find(values: DecodedValues, valid: Int => Boolean, bitsPerOffset: Int): Option[Either[Array[Byte], Array[Byte]]] = {
    val n = values.count
    var first = 0
    while (first < n && !valid(first)) first += 1
    if (first == n) return None
    values match {
      case f: FixedWidthValues if f.bitsPerValue == 1 =>
        def bit(i: Int) = (f.data(i >>> 3) >> (i & 7) & 1) == 1
        val v = bit(first)
        var i = first + 1
        while (i < n) { if (valid(i) && bit(i) != v) return None; i += 1 }
        Some(Left(Array[Byte](if (v) 1 else 0)))
      case f: FixedWidthValues =>
        val w = f.bytesPerValue
        val at = f.offset + first * w
        var i = first + 1
        while (i < n) {
          if (valid(i) && !java.util.Arrays.equals(f.data, at, at + w, f.data, f.offset + i * w, f.offset + (i + 1) * w)) return None
          i += 1
        }
        val value = java.util.Arrays.copyOfRange(f.data, at, at + w)
        Some(if (w <= InlineMaxBytes) Left(value) else Right(arrowBuffers(Seq(value))))
      case v: VariableData =>
        val (s, e) = (v.offsets(first), v.offsets(first + 1))
        var i = first + 1
        while (i < n) {
          if (valid(i) && !java.util.Arrays.equals(v.bytes, s, e, v.bytes, v.offsets(i), v.offsets(i + 1))) return None
          i += 1
        }
        // A one-value string array: offsets [0, len] (4 or 8 bytes each) and the bytes.
        val bb = java.nio.ByteBuffer.allocate(bitsPerOffset / 4).order(java.nio.ByteOrder.LITTLE_ENDIAN)
        val offsets = (if (bitsPerOffset == 64) bb.putLong(0).putLong((e - s).toLong) else bb.putInt(0).putInt(e - s)).array()
        Some(Right(arrowBuffers(Seq(offsets, java.util.Arrays.copyOfRange(v.bytes, s, e)))))
      case _ => None
    }
  }

  private def arrowBuffers(parts: Seq[Array[Byte]]): Array[Byte] = {
    val bb = java.nio.ByteBuffer.allocate(4 + 4 * parts.length + parts.map(_.length).sum).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    bb.putInt(parts.length)
    parts.foreach(p => bb.putInt(p.length))
    parts.foreach(p => bb.put(p))
    bb.array()
  }
}
