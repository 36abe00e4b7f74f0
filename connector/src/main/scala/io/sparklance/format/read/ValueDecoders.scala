package io.sparklance.format.read

import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.format.encoding._
import io.sparklance.format.encoding.{CompressiveEncoding => CE}
import io.sparklance.util.{Bytes, Errors}

// Spec: lance-format/lance docs/src/format/file/encoding.md ("Compressive encodings") and
// rust/lance-encoding/src/compression.rs. Interprets a CompressiveEncoding tree in the two
// contexts where 2.1+ pages use one: mini-block chunks (values of one chunk, spread over
// one or more chunk buffers) and blocks (a whole buffer: rep/def levels, dictionaries).

object ValueDecoders {

  /** Upper bound for one decompressed buffer; a larger declared size is corrupt input. */
  val MaxBufferBytes: Long = 1L << 31

  // ---- mini-block values ----------------------------------------------------------------

  /** Decodes the `n` values of one mini-block chunk from its value buffers. */
  def miniBlock(enc: CE, buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues = enc match {
    case CE.Flat(bits, None) => flat(bits, one(buffers, enc, where), n, where)
    case CE.InlineBitpacking(bits, None) => fromPrimitive(bits, inlineBitpacked(bits, one(buffers, enc, where), n), n)
    case CE.Variable(CE.Flat(ob, None), None) => variableMiniBlock(one(buffers, enc, where), ob, n, where)
    case CE.Fsst(table, inner) =>
      val compressed = miniBlock(inner, buffers, n, where) match {
        case v: VariableWidthValues => v
        case _ => throw Errors.corrupt(where, "FSST values did not decode to variable-width data")
      }
      variable(Fsst.decode(Fsst.parseSymbolTable(table, where), compressed.offsets, compressed.data))
    case CE.General(compression, inner) =>
      if (buffers.isEmpty) throw Errors.corrupt(where, "a compressed chunk has no buffers")
      // Only the first value buffer of a chunk is compressed.
      val first = GeneralCompression.decompress(compression.scheme, buffers.head, MaxBufferBytes)
      miniBlock(inner, first +: buffers.tail, n, where)
    case CE.Rle(CE.Flat(vb, None), CE.Flat(8, None)) =>
      if (buffers.length != 2) throw Errors.corrupt(where, s"run-length chunks need 2 buffers, found ${buffers.length}")
      fromRle(vb, buffers(0), buffers(1), n, where)
    case CE.ByteStreamSplit(CE.Flat(bits, None)) =>
      new FixedWidthValues(bits, ByteStreamSplit.decode(one(buffers, enc, where), bits, n), n)
    case CE.FixedSizeList(dim, hasValidity, inner) =>
      // One LSB-first item-validity buffer (when the layer has validity), then the items.
      val d = fslDimension(dim, where)
      val items = Math.multiplyExact(n, d)
      val validity = if (hasValidity) {
        if (buffers.isEmpty) throw Errors.corrupt(where, "a fixed-size list chunk lacks its validity buffer")
        val need = (items + 7) / 8
        if (buffers.head.length < need) throw Errors.corrupt(buffers.head.path, buffers.head.fileOffset, s"item validity needs $need bytes ($where)")
        val v = new Array[Byte](need); buffers.head.copyTo(0, v, 0, need); v
      } else null
      new FixedSizeListValues(d, validity, miniBlock(inner, if (hasValidity) buffers.tail else buffers, items, where), n)
    case CE.PackedStruct(bits, inner @ CE.Flat(total, None)) if bits.forall(b => b > 0 && b % 8 == 0) && bits.sum == total =>
      // Children stored row-major: split each row's bytes back into one column per child.
      miniBlock(inner, buffers, n, where) match {
        case f: FixedWidthValues => splitRows(f, bits.map(b => (b / 8).toInt))
        case _ => throw Errors.corrupt(where, "packed struct values are not fixed-width")
      }
    case other => throw Errors.unsupportedEncoding(where, "?", s"mini-block value encoding ${other.describe}")
  }

  /** Splits row-major fixed-width rows into one fixed-width column per child. */
  def splitRows(rows: FixedWidthValues, widths: IndexedSeq[Int]): StructValues = {
    val n = rows.count
    val rowBytes = widths.sum
    var off = 0
    val children = widths.map { w =>
      val out = new Array[Byte](Math.multiplyExact(n, w))
      var i = 0
      while (i < n) { System.arraycopy(rows.data, i * rowBytes + off, out, i * w, w); i += 1 }
      off += w
      new FixedWidthValues(w * 8, out, n): DecodedValues
    }
    new StructValues(children, n)
  }

  def fslDimension(dim: Long, where: => String): Int =
    if (dim <= 0 || dim > (1 << 20)) throw Errors.corrupt(where, s"fixed-size list dimension $dim") else dim.toInt

  // ---- blocks -------------------------------------------------------------------------------

  /** Decodes a whole block of `n` values (levels, dictionary items). */
  def block(enc: CE, buf: Bytes, n: Int, where: => String): DecodedValues = enc match {
    case CE.Flat(bits, None) => flat(bits, buf, n, where)
    case CE.InlineBitpacking(bits, None) => fromPrimitive(bits, inlineBitpacked(bits, buf, n), n)
    case CE.OutOfLineBitpacking(bits, CE.Flat(w, None)) =>
      val values: AnyRef = bits match {
        case 8 => OutOfLineBitpacking.decode8(buf, w, n)
        case 16 => OutOfLineBitpacking.decode16(buf, w, n)
        case 32 => OutOfLineBitpacking.decode32(buf, w, n)
        case 64 => OutOfLineBitpacking.decode64(buf, w, n)
        case _ => throw Errors.corrupt(where, s"out-of-line bit packing of $bits-bit values")
      }
      fromPrimitive(bits, values, n)
    case CE.Variable(CE.Flat(_, None), None) => variable(VariableLayout.decodeBlock(buf, n))
    case CE.General(compression, inner) =>
      block(inner, GeneralCompression.decompress(compression.scheme, buf, MaxBufferBytes), n, where)
    case CE.Rle(CE.Flat(vb, None), CE.Flat(8, None)) =>
      // Block form: u64 byte length of the run values, the values, then the run lengths.
      val valuesLen = buf.u64AsSize(0, "run-length values size")
      val values = buf.slice(8, valuesLen, "run-length values")
      fromRle(vb, values, buf.from(8 + valuesLen, "run lengths"), n, where)
    case CE.Constant(Some(value)) => constant(value, n, where)
    case other => throw Errors.unsupportedEncoding(where, "?", s"block encoding ${other.describe}")
  }

  /** Decodes `n` u16 levels from a block. */
  def levels(enc: CE, buf: Bytes, n: Int, where: => String): Array[Short] = block(enc, buf, n, where) match {
    case f: FixedWidthValues if f.bitsPerValue == 16 =>
      val out = new Array[Short](n)
      ByteBuffer.wrap(f.data).order(ByteOrder.LITTLE_ENDIAN).asShortBuffer().get(out, 0, n)
      out
    case _ => throw Errors.corrupt(where, s"repetition/definition levels are not 16-bit values (${enc.describe})")
  }

  // ---- helpers -------------------------------------------------------------------------------

  private def one(buffers: IndexedSeq[Bytes], enc: CE, where: => String): Bytes = {
    if (buffers.length != 1)
      throw Errors.corrupt(where, s"${enc.describe} needs 1 buffer per chunk, found ${buffers.length}")
    buffers.head
  }

  /** `n` values of `bits` bits each (bits a multiple of 8, or 1 for booleans). */
  def flat(bits: Int, buf: Bytes, n: Int, where: => String): FixedWidthValues = {
    if (bits != 1 && (bits <= 0 || bits % 8 != 0))
      throw Errors.unsupportedEncoding(where, "?", s"flat values of $bits bits")
    val need = (n.toLong * bits + 7) / 8
    if (need > buf.length)
      throw Errors.corrupt(buf.path, buf.fileOffset, s"$n values of $bits bits need $need bytes but the buffer has ${buf.length} ($where)")
    val out = new Array[Byte](need.toInt)
    buf.copyTo(0, out, 0, need.toInt)
    new FixedWidthValues(bits, out, n)
  }

  private def constant(value: Array[Byte], n: Int, where: => String): FixedWidthValues = {
    val w = value.length
    if (w == 0) throw Errors.corrupt(where, "a constant has an empty value")
    val out = new Array[Byte](Math.multiplyExact(w, n))
    var i = 0
    while (i < n) { System.arraycopy(value, 0, out, i * w, w); i += 1 }
    new FixedWidthValues(w * 8, out, n)
  }

  private def inlineBitpacked(bits: Int, buf: Bytes, n: Int): AnyRef = bits match {
    case 8 => InlineBitpacking.decode8(buf, n)
    case 16 => InlineBitpacking.decode16(buf, n)
    case 32 => InlineBitpacking.decode32(buf, n)
    case 64 => InlineBitpacking.decode64(buf, n)
    case _ => throw Errors.corrupt(buf.path, buf.fileOffset, s"inline bit packing of $bits-bit values")
  }

  /** Little-endian bytes of a primitive array of `n` values. */
  def fromPrimitive(bits: Int, values: AnyRef, n: Int): FixedWidthValues = {
    val out = new Array[Byte](n * (bits / 8))
    val bb = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN)
    values match {
      case a: Array[Byte] => System.arraycopy(a, 0, out, 0, n)
      case a: Array[Short] => bb.asShortBuffer().put(a, 0, n)
      case a: Array[Int] => bb.asIntBuffer().put(a, 0, n)
      case a: Array[Long] => bb.asLongBuffer().put(a, 0, n)
    }
    new FixedWidthValues(bits, out, n)
  }

  private def variableMiniBlock(buf: Bytes, offsetBits: Int, n: Int, where: => String): VariableWidthValues =
    variable(VariableLayout.decodeMiniBlock(buf, offsetBits, n))

  private def variable(v: VariableData): VariableWidthValues = new VariableWidthValues(v.offsets, v.bytes, v.numValues)

  private def fromRle(valueBits: Int, values: Bytes, runs: Bytes, n: Int, where: => String): FixedWidthValues = {
    if (valueBits % 8 != 0 || valueBits <= 0) throw Errors.corrupt(where, s"run-length values of $valueBits bits")
    new FixedWidthValues(valueBits, Rle.decode(values, valueBits / 8, runs, n), n)
  }
}
