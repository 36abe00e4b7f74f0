package io.sparklance.format.read

import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/file/encoding.md (mini-block "Dictionary").
// A dictionary-encoded page stores the distinct values once per page and, in its chunks,
// one index per value (8-, 16-, 32- or 64-bit). Looking up materialises the values.

object Dictionaries {

  def lookup(dictionary: DecodedValues, indices: DecodedValues, where: => String): DecodedValues = {
    val idx = indices match {
      case f: FixedWidthValues if f.bitsPerValue % 8 == 0 && f.bitsPerValue <= 64 => f
      case _ => throw Errors.corrupt(where, "dictionary indices are not 8-, 16-, 32- or 64-bit integers")
    }
    val n = idx.count
    val size = dictionary.count
    val bb = ByteBuffer.wrap(idx.data).order(ByteOrder.LITTLE_ENDIAN)
    val w = idx.bytesPerValue
    def index(i: Int): Int = {
      val v: Long = w match {
        case 1 => bb.get(i) & 0xffL
        case 2 => bb.getShort(i * 2) & 0xffffL
        case 4 => bb.getInt(i * 4) & 0xffffffffL
        case 8 => bb.getLong(i * 8)
      }
      if (v < 0 || v >= size) throw Errors.corrupt(where, s"dictionary index $v at value $i is outside the $size-entry dictionary")
      v.toInt
    }
    dictionary match {
      case d: VariableWidthValues =>
        var total = 0L
        val ix = new Array[Int](n)
        var i = 0
        while (i < n) { ix(i) = index(i); total += d.offsets(ix(i) + 1) - d.offsets(ix(i)); i += 1 }
        if (total > Int.MaxValue) throw Errors.unsupported(s"a chunk of $total dictionary bytes", where)
        val out = new Array[Byte](total.toInt)
        val offsets = new Array[Int](n + 1)
        var pos = 0
        i = 0
        while (i < n) {
          val s = d.offsets(ix(i)); val len = d.offsets(ix(i) + 1) - s
          System.arraycopy(d.data, s, out, pos, len)
          pos += len
          offsets(i + 1) = pos
          i += 1
        }
        new VariableWidthValues(offsets, out, n)
      case d: FixedWidthValues if d.bitsPerValue % 8 == 0 =>
        val vw = d.bytesPerValue
        val out = new Array[Byte](Math.multiplyExact(n, vw))
        var i = 0
        while (i < n) { System.arraycopy(d.data, index(i) * vw, out, i * vw, vw); i += 1 }
        new FixedWidthValues(d.bitsPerValue, out, n)
      case _ => throw Errors.unsupportedEncoding(where, "?", "a dictionary of this value kind")
    }
  }
}
