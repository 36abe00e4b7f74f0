package io.sparklance.format.v21

import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.format.encoding._
import io.sparklance.format.encoding.{CompressiveEncoding => CE}
import io.sparklance.util.{Bytes, Errors}

// Spec: lance-format/lance docs/src/format/file/encoding.md ("Compressive encodings") and
// rust/lance-encoding/src/compression.rs. Interprets a CompressiveEncoding tree in the two
// contexts where 2.1+ pages use one: mini-block chunks (values of one chunk, spread over
// one or more chunk buffers) and blocks (a whole buffer: rep/def levels, dictionaries).
//
// A tree is turned into a Decoder once per page and the decoder is reused for every chunk:
// symbol tables are parsed and scratch space allocated once, and a chunk costs only its
// output arrays.

object ValueDecoders {

  /** Upper bound for one decompressed buffer; a larger declared size is corrupt input. */
  val MaxBufferBytes: Long = 1L << 31

  /** Decodes `n` values from the buffers of one chunk, or from the single buffer of a block. */
  abstract class Decoder {
    def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues
  }

  // ---- mini-block values ----------------------------------------------------------------

  /** The decoder for the values of a page's mini-block chunks; `where` names the page. */
  def miniBlock(enc: CE, where: String): Decoder = enc match {
    case CE.Flat(bits, None) =>
      checkFlatBits(bits, where)
      new Decoder {
        def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues = flat(bits, one(buffers, enc, where), n, where)
      }
    case CE.InlineBitpacking(bits, None) => inlineBitpacked(enc, bits, where)
    case CE.Variable(CE.Flat(offsetBits, None), None) =>
      new Decoder {
        def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues =
          VariableLayout.decodeMiniBlock(one(buffers, enc, where), offsetBits, n)
      }
    case CE.Fsst(table, inner) =>
      val fsst = new Fsst.Decoder(Fsst.parseSymbolTable(table, where))
      val compressed = miniBlock(inner, where)
      new Decoder {
        def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues = compressed.decode(buffers, n, where) match {
          case v: VariableData => fsst.decode(v)
          case _ => throw Errors.corrupt(where, "FSST values did not decode to variable-width data")
        }
      }
    case CE.General(compression, inner) =>
      val values = miniBlock(inner, where)
      new Decoder {
        def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues = {
          if (buffers.isEmpty) throw Errors.corrupt(where, "a compressed chunk has no buffers")
          // Only the first value buffer of a chunk is compressed.
          val first = GeneralCompression.decompress(compression.scheme, buffers.head, MaxBufferBytes)
          values.decode(first +: buffers.tail, n, where)
        }
      }
    case CE.Rle(CE.Flat(valueBits, None), CE.Flat(8, None)) =>
      checkRleBits(valueBits, where)
      new Decoder {
        def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues = {
          if (buffers.length != 2) throw Errors.corrupt(where, s"run-length chunks need 2 buffers, found ${buffers.length}")
          new FixedWidthValues(valueBits, Rle.decode(buffers(0), valueBits / 8, buffers(1), n), n)
        }
      }
    case CE.ByteStreamSplit(CE.Flat(bits, None)) =>
      new Decoder {
        def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues =
          new FixedWidthValues(bits, ByteStreamSplit.decode(one(buffers, enc, where), bits, n), n)
      }
    case CE.FixedSizeList(dim, hasValidity, inner) =>
      val d = fslDimension(dim, where)
      val itemDecoder = miniBlock(inner, where)
      new Decoder {
        def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues = {
          // One LSB-first item-validity buffer (when the layer has validity), then the items.
          val items = Math.multiplyExact(n, d)
          val validity = if (hasValidity) {
            if (buffers.isEmpty) throw Errors.corrupt(where, "a fixed-size list chunk lacks its validity buffer")
            val need = (items + 7) / 8
            if (buffers.head.length < need)
              throw Errors.corrupt(buffers.head.path, buffers.head.fileOffset, s"item validity needs $need bytes ($where)")
            val v = new Array[Byte](need); buffers.head.copyTo(0, v, 0, need); v
          } else null
          new FixedSizeListValues(d, validity, itemDecoder.decode(if (hasValidity) buffers.tail else buffers, items, where), n)
        }
      }
    case CE.PackedStruct(bits, inner @ CE.Flat(total, None)) if bits.forall(b => b > 0 && b % 8 == 0) && bits.sum == total =>
      val rows = miniBlock(inner, where)
      val widths = bits.map(b => (b / 8).toInt)
      new Decoder {
        def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues =
          // Children stored row-major: split each row's bytes back into one column per child.
          rows.decode(buffers, n, where) match {
            case f: FixedWidthValues => splitRows(f, widths)
            case _ => throw Errors.corrupt(where, "packed struct values are not fixed-width")
          }
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
      while (i < n) { System.arraycopy(rows.data, rows.offset + i * rowBytes + off, out, i * w, w); i += 1 }
      off += w
      new FixedWidthValues(w * 8, out, n): DecodedValues
    }
    new StructValues(children, n)
  }

  def fslDimension(dim: Long, where: => String): Int =
    if (dim <= 0 || dim > (1 << 20)) throw Errors.corrupt(where, s"fixed-size list dimension $dim") else dim.toInt

  // ---- blocks -------------------------------------------------------------------------------

  /** The decoder for whole blocks (levels, dictionary items): each decode gets one buffer. */
  def block(enc: CE, where: String): Decoder = enc match {
    case CE.Flat(bits, None) =>
      checkFlatBits(bits, where)
      new Decoder {
        def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues = flat(bits, one(buffers, enc, where), n, where)
      }
    case CE.InlineBitpacking(bits, None) => inlineBitpacked(enc, bits, where)
    case CE.OutOfLineBitpacking(bits, CE.Flat(width, None)) =>
      checkWordBits(bits, where, "out-of-line bit packing")
      new Decoder {
        def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues =
          OutOfLineBitpacking.decode(bits, one(buffers, enc, where), width, n)
      }
    case CE.Variable(CE.Flat(_, None), None) =>
      new Decoder {
        def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues =
          VariableLayout.decodeBlock(one(buffers, enc, where), n)
      }
    case CE.General(compression, inner) =>
      val values = block(inner, where)
      new Decoder {
        def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues =
          values.decode(IndexedSeq(GeneralCompression.decompress(compression.scheme, one(buffers, enc, where), MaxBufferBytes)), n, where)
      }
    case CE.Rle(CE.Flat(valueBits, None), CE.Flat(8, None)) =>
      checkRleBits(valueBits, where)
      new Decoder {
        def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues = {
          // Block form: u64 byte length of the run values, the values, then the run lengths.
          val buf = one(buffers, enc, where)
          val valuesLen = buf.u64AsSize(0, "run-length values size")
          val values = buf.slice(8, valuesLen, "run-length values")
          new FixedWidthValues(valueBits, Rle.decode(values, valueBits / 8, buf.from(8 + valuesLen, "run lengths"), n), n)
        }
      }
    case CE.Constant(Some(value)) =>
      if (value.isEmpty) throw Errors.corrupt(where, "a constant has an empty value")
      new Decoder {
        def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues = constant(value, n)
      }
    case other => throw Errors.unsupportedEncoding(where, "?", s"block encoding ${other.describe}")
  }

  /** Decodes a whole block of `n` values (levels, dictionary items) with a one-off decoder. */
  def block(enc: CE, buf: Bytes, n: Int, where: String): DecodedValues = block(enc, where).decode(IndexedSeq(buf), n, where)

  /** Decodes `n` u16 levels from a block with a one-off decoder. */
  def levels(enc: CE, buf: Bytes, n: Int, where: String): Array[Short] = levels(block(enc, where), buf, n, where)

  /** Decodes `n` u16 levels from a block with the page's levels decoder. */
  def levels(decoder: Decoder, buf: Bytes, n: Int, where: => String): Array[Short] = decoder.decode(IndexedSeq(buf), n, where) match {
    case f: FixedWidthValues if f.bitsPerValue == 16 =>
      val out = new Array[Short](n)
      ByteBuffer.wrap(f.data, f.offset, 2 * n).slice().order(ByteOrder.LITTLE_ENDIAN).asShortBuffer().get(out, 0, n)
      out
    case other => throw Errors.corrupt(where, s"repetition/definition levels are not 16-bit values (${other.describe})")
  }

  // ---- helpers -------------------------------------------------------------------------------

  private def one(buffers: IndexedSeq[Bytes], enc: CE, where: => String): Bytes = {
    if (buffers.length != 1)
      throw Errors.corrupt(where, s"${enc.describe} needs 1 buffer per chunk, found ${buffers.length}")
    buffers.head
  }

  private def checkFlatBits(bits: Int, where: String): Unit =
    if (bits != 1 && (bits <= 0 || bits % 8 != 0))
      throw Errors.unsupportedEncoding(where, "?", s"flat values of $bits bits")

  private def checkWordBits(bits: Int, where: String, what: String): Unit =
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) throw Errors.corrupt(where, s"$what of $bits-bit values")

  private def checkRleBits(valueBits: Int, where: String): Unit =
    if (valueBits % 8 != 0 || valueBits <= 0) throw Errors.corrupt(where, s"run-length values of $valueBits bits")

  /** `n` values of `bits` bits each (bits a multiple of 8, or 1 for booleans). */
  def flat(bits: Int, buf: Bytes, n: Int, where: => String): FixedWidthValues = {
    val need = (n.toLong * bits + 7) / 8
    if (need > buf.length)
      throw Errors.corrupt(buf.path, buf.fileOffset, s"$n values of $bits bits need $need bytes but the buffer has ${buf.length} ($where)")
    // Byte-wide values are used where they were read; packed bits must start at bit 0.
    if (bits % 8 != 0) new FixedWidthValues(bits, buf.copyOfRange(0, need.toInt, s"$n flat values"), n)
    else {
      val (array, at) = buf.arrayView(0, need.toInt, s"$n flat values")
      new FixedWidthValues(bits, array, n, at)
    }
  }

  private def constant(value: Array[Byte], n: Int): FixedWidthValues = {
    val w = value.length
    val out = new Array[Byte](Math.multiplyExact(w, n))
    var i = 0
    while (i < n) { System.arraycopy(value, 0, out, i * w, w); i += 1 }
    new FixedWidthValues(w * 8, out, n)
  }

  private def inlineBitpacked(enc: CE, bits: Int, where: String): Decoder = {
    checkWordBits(bits, where, "inline bit packing")
    val blocks = new InlineBitpacking.Decoder(bits)
    new Decoder {
      def decode(buffers: IndexedSeq[Bytes], n: Int, where: => String): DecodedValues = blocks.decode(one(buffers, enc, where), n)
    }
  }
}
