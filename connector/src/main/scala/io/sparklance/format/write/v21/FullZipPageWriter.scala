package io.sparklance.format.write.v21

import io.sparklance.format.encoding.PerValueData
import io.sparklance.format.write.ByteArrayBuilder

// Spec: rust/lance-encoding/src/encodings/logical/primitive.rs (encode_full_zip,
// serialize_full_zip_fixed / _variable) and lance-format-facts §15.5. Wide values are zipped
// with their levels: per level entry a control word `(rep << bitsDef) | def` (1, 2 or 4 bytes,
// none when both widths are 0), then, if the entry is visible, the value: fixed-width values
// always (a null item keeps its slot), variable-width values only when valid, as a 4- or 8-byte
// length and the bytes. The repetition index holds the byte offset of every row's first entry
// and the total, all in the narrowest of 1/2/4/8 bytes that fits the page's size bound.

private[write] object FullZipPageWriter {

  final case class Buffers(zipped: Array[Byte], repetitionIndex: Option[Array[Byte]], bitsRep: Int, bitsDef: Int)

  private def bitLength(v: Int): Int = 32 - Integer.numberOfLeadingZeros(v)

  def write(values: PerValueData, rep: Array[Short], defs: Array[Short], numEntries: Int, maxVisible: Int, maxRep: Int): Buffers = {
    val bitsRep = if (rep == null) 0 else bitLength(max(rep, numEntries))
    val bitsDef = if (defs == null) 0 else bitLength(max(defs, numEntries))
    val wordBytes = bitsRep + bitsDef match { case 0 => 0; case b if b <= 8 => 1; case b if b <= 16 => 2; case _ => 4 }
    // Fixed-width values without levels zip to themselves (e.g. vectors with no nulls).
    values match {
      case PerValueData.Fixed(bits, data, count) if wordBytes == 0 && rep == null && data.length.toLong == bits / 8 * count =>
        return Buffers(data, None, 0, 0)
      case _ =>
    }
    // An upper bound of the buffer's size decides the index width, as the Rust writer does, and
    // sizes the buffer once.
    val (bound, hasIndex) = values match {
      case PerValueData.Fixed(bits, data, _) => (data.length.toLong + wordBytes.toLong * numEntries, rep != null)
      case PerValueData.Variable(bitsPerOffset, v) => (v.dataLength.toLong + wordBytes.toLong * numEntries + bitsPerOffset / 8 * v.count.toLong, true)
    }
    val out = new ByteArrayBuilder(math.min(bound, Int.MaxValue - 16L).toInt)
    val rowStarts = new ByteArrayBuilder(0)
    val indexWidth = if (bound < 256) 1 else if (bound < 65536) 2 else if (bound < (1L << 32)) 4 else 8
    def index(v: Long): Unit = {
      val a = rowStarts.reserve(indexWidth)
      var i = 0
      while (i < indexWidth) { a(rowStarts.length + i) = (v >>> (8 * i)).toByte; i += 1 }
      rowStarts.advance(indexWidth)
    }
    var slot = 0
    var e = 0
    while (e < numEntries) {
      val r = if (rep == null) 0 else rep(e).toInt
      val d = if (defs == null) 0 else defs(e).toInt
      if (hasIndex && (rep == null || r == maxRep)) index(out.length.toLong)
      if (wordBytes > 0) {
        val w = (r << bitsDef) | d
        val a = out.reserve(wordBytes)
        var i = 0
        while (i < wordBytes) { a(out.length + i) = (w >>> (8 * i)).toByte; i += 1 }
        out.advance(wordBytes)
      }
      if (d <= maxVisible) {
        values match {
          case PerValueData.Fixed(bits, data, _) =>
            val w = (bits / 8).toInt
            out.append(data, slot * w, w)
          case PerValueData.Variable(bitsPerOffset, v) =>
            if (d == 0) {
              val len = v.length(slot)
              val a = out.reserve(bitsPerOffset / 8 + len.toLong)
              var i = 0
              while (i < bitsPerOffset / 8) { a(out.length + i) = (if (i < 4) (len >>> (8 * i)).toByte else 0.toByte); i += 1 }
              out.advance(bitsPerOffset / 8)
              out.append(v.bytes, v.offsets(slot), len)
            }
        }
        slot += 1
      }
      e += 1
    }
    if (hasIndex) index(out.length.toLong)
    Buffers(out.result(), if (hasIndex) Some(rowStarts.result()) else None, bitsRep, bitsDef)
  }

  private def max(levels: Array[Short], n: Int): Int = {
    var m = 0
    var i = 0
    while (i < n) { if (levels(i) > m) m = levels(i).toInt; i += 1 }
    m
  }
}
