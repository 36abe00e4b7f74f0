package io.sparklance.format.v21

import io.sparklance.format.encoding.{DecodedValues, FixedWidthValues, GeneralCompression, VariableData}
import io.sparklance.util.{Errors, LittleEndian => LE}

// Spec: lance-format/lance docs/src/format/file/encoding.md (mini-block "Dictionary").
// A dictionary-encoded page stores the distinct values once per page and, in its chunks,
// one index per value (8-, 16-, 32- or 64-bit). Looking up materialises the values.

object Dictionaries {

  /**
   * A page's dictionary, ready for lookups. Variable-width items of up to 8 bytes (the common
   * case for low-cardinality strings) are also kept as one little-endian word each, so that
   * looking one up is a single 8-byte store rather than a call to arraycopy.
   */
  final class Dictionary private[Dictionaries] (val items: DecodedValues) {
    private[Dictionaries] val (starts, lengths, words) = items match {
      case v: VariableData =>
        val n = v.count
        val starts = java.util.Arrays.copyOf(v.offsets, n)
        val lengths = Array.tabulate(n)(v.length)
        val padded = java.util.Arrays.copyOf(v.bytes, v.dataLength + 8)
        val words = Array.tabulate(n)(i => if (lengths(i) <= 8) LE.getLong(padded, starts(i)) else 0L)
        (starts, lengths, words)
      case _ => (null, null, null)
    }
  }

  def prepare(items: DecodedValues, where: => String): Dictionary = items match {
    case _: VariableData => new Dictionary(items)
    case f: FixedWidthValues if f.bitsPerValue % 8 == 0 => new Dictionary(f)
    case _ => throw Errors.unsupportedEncoding(where, "?", s"a dictionary of ${items.describe}")
  }

  def lookup(dictionary: Dictionary, indices: DecodedValues, where: => String): DecodedValues = {
    val ix = indices match {
      case f: FixedWidthValues if f.bitsPerValue % 8 == 0 && f.bitsPerValue <= 64 => checkedIndices(f, dictionary.items.count, where)
      case _ => throw Errors.corrupt(where, "dictionary indices are not 8-, 16-, 32- or 64-bit integers")
    }
    val n = ix.length
    dictionary.items match {
      case d: VariableData =>
        val starts = dictionary.starts
        val lengths = dictionary.lengths
        val words = dictionary.words
        var total = 0L
        var i = 0
        while (i < n) { total += lengths(ix(i)); i += 1 }
        if (total > GeneralCompression.MaxArrayBytes - 8) throw Errors.unsupported(s"a chunk of $total dictionary bytes", where)
        // 8 spare bytes at the end for the one-word stores.
        val out = new Array[Byte](total.toInt + 8)
        val offsets = new Array[Int](n + 1)
        val src = d.bytes
        var pos = 0
        i = 0
        while (i < n) {
          val k = ix(i)
          val len = lengths(k)
          if (len <= 8) LE.putLong(out, pos, words(k))
          else System.arraycopy(src, starts(k), out, pos, len)
          pos += len
          offsets(i + 1) = pos
          i += 1
        }
        new VariableData(offsets, out)
      case d: FixedWidthValues =>
        val vw = d.bytesPerValue
        val src = d.data
        val base = d.offset
        val out = new Array[Byte](Math.multiplyExact(n, vw))
        var i = 0
        vw match {
          case 4 => while (i < n) { LE.putInt(out, i * 4, LE.getInt(src, base + ix(i) * 4)); i += 1 }
          case 8 => while (i < n) { LE.putLong(out, i * 8, LE.getLong(src, base + ix(i) * 8)); i += 1 }
          case _ => while (i < n) { System.arraycopy(src, base + ix(i) * vw, out, i * vw, vw); i += 1 }
        }
        new FixedWidthValues(d.bitsPerValue, out, n)
      case other => throw Errors.unsupportedEncoding(where, "?", s"a dictionary of ${other.describe}")
    }
  }

  /** The indices as Ints, each checked to lie inside the dictionary of `size` items. */
  private def checkedIndices(idx: FixedWidthValues, size: Int, where: => String): Array[Int] = {
    val n = idx.count
    val d = idx.data
    val o = idx.offset
    val out = new Array[Int](n)
    def bad(i: Int, v: Long): Nothing =
      throw Errors.corrupt(where, s"dictionary index ${java.lang.Long.toUnsignedString(v)} at value $i is outside the $size-entry dictionary")
    var i = 0
    idx.bytesPerValue match {
      case 1 => while (i < n) { val v = d(o + i) & 0xff; if (v >= size) bad(i, v); out(i) = v; i += 1 }
      case 2 => while (i < n) { val v = LE.getShort(d, o + 2 * i) & 0xffff; if (v >= size) bad(i, v); out(i) = v; i += 1 }
      case 4 => while (i < n) { val v = LE.getInt(d, o + 4 * i); if (v < 0 || v >= size) bad(i, v & 0xffffffffL); out(i) = v; i += 1 }
      case 8 => while (i < n) { val v = LE.getLong(d, o + 8 * i); if (v < 0 || v >= size) bad(i, v); out(i) = v.toInt; i += 1 }
      case w => throw Errors.corrupt(where, s"dictionary indices of $w bytes")
    }
    out
  }
}
