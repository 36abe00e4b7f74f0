package io.sparklance.format.encoding

import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.format.encoding.EncodingFixtures.bytes
import io.sparklance.format.v21.ValueDecoders
import org.scalatest.Assertions

/** Decodes what the compressors write with the reader's decoders, and compares values. */
object CompressorFixtures extends Assertions {

  /** Value counts of each chunk: 2^log, and for the last chunk whatever is left. */
  def chunkCounts(c: MiniBlockCompressed): IndexedSeq[Int] = {
    var seen = 0L
    c.chunks.zipWithIndex.map { case (ch, k) =>
      val n = if (k == c.chunks.length - 1) (c.numValues - seen).toInt else 1 << ch.logNumValues
      if (k < c.chunks.length - 1) assert(ch.logNumValues > 0 && ch.logNumValues <= 12, s"chunk $k log ${ch.logNumValues}")
      seen += n
      n
    }
  }

  /** Decodes every chunk with ValueDecoders.miniBlock and returns the chunks' values in order. */
  def decodeMiniBlock(c: MiniBlockCompressed, enc: CompressiveEncoding): IndexedSeq[DecodedValues] = {
    val decoder = ValueDecoders.miniBlock(enc, "test")
    val pos = new Array[Int](c.numBuffers)
    c.chunks.zip(chunkCounts(c)).map { case (ch, n) =>
      assert(ch.bufferSizes.length == c.numBuffers)
      val bufs = ch.bufferSizes.indices.map { b =>
        val slice = java.util.Arrays.copyOfRange(c.buffers(b), pos(b), pos(b) + ch.bufferSizes(b))
        pos(b) += ch.bufferSizes(b)
        bytes(slice)
      }
      decoder.decode(bufs, n, "test")
    }
  }

  /** A comparable form of decoded values. */
  def canonical(v: DecodedValues): Any = v match {
    case f: FixedWidthValues =>
      if (f.bitsPerValue == 1) (1, (0 until f.count).map(i => BitCopy.getBit(f.data, i)))
      else (f.bitsPerValue, f.data.slice(f.offset, f.offset + f.count * f.bytesPerValue).toSeq)
    case d: VariableData => (0 until d.count).map(i => d.value(i).toSeq)
    case l: FixedSizeListValues =>
      val validity = Option(l.itemValidity).map(v => (0 until l.count * l.dimension).map(i => BitCopy.getBit(v, i)))
      (l.dimension, validity, canonical(l.items))
    case s: StructValues => s.children.map(canonical)
    case n: NullValues => n.count
  }

  /** The values of the decoded chunks, concatenated, in canonical form. */
  def concat(parts: IndexedSeq[DecodedValues]): Any = parts.headOption match {
    case None => Nil
    case Some(_: FixedWidthValues) =>
      val fs = parts.map(_.asInstanceOf[FixedWidthValues])
      val all = new FixedWidthValues(fs.head.bitsPerValue, {
        if (fs.head.bitsPerValue == 1) {
          val out = new Array[Byte]((fs.map(_.count).sum + 7) / 8)
          var at = 0
          fs.foreach { f => BitCopy.copyBits(f.data, 0, out, at, f.count); at += f.count }
          out
        } else fs.flatMap(f => f.data.slice(f.offset, f.offset + f.count * f.bytesPerValue)).toArray
      }, fs.map(_.count).sum)
      canonical(all)
    case Some(_: VariableData) => parts.flatMap(p => canonical(p).asInstanceOf[IndexedSeq[Any]])
    case Some(_) => parts.map(canonical)
  }

  /** Round trips `values` through a mini-block compressor and the reader's decoder. */
  def roundTrip(c: MiniBlockCompressor, values: DecodedValues): (MiniBlockCompressed, CompressiveEncoding) = {
    val (out, enc) = c.compress(values)
    assert(out.numValues == values.count)
    out.buffers.zipWithIndex.foreach { case (b, i) => assert(b.length == out.chunks.map(_.bufferSizes(i)).sum, s"buffer $i size") }
    val parts = decodeMiniBlock(out, enc)
    values match {
      case _ if values.count == 0 => assert(parts.forall(_.count == 0))
      case _: FixedWidthValues | _: VariableData => assert(concat(parts) == canonical(values), s"${enc.describe} round trip")
      case _ =>
        // Chunk by chunk: compare with the same rows sliced from the input.
        var at = 0
        parts.foreach { p => assert(canonical(p) == canonical(values.slice(at, at + p.count)), s"${enc.describe} rows from $at"); at += p.count }
        assert(at == values.count)
    }
    (out, enc)
  }

  /** Round trips `values` through a block compressor and ValueDecoders.block. */
  def roundTripBlock(c: BlockCompressor, values: DecodedValues): Array[Byte] = {
    val out = c.compress(values)
    val back = ValueDecoders.block(c.encoding, bytes(out), values.count, "test")
    assert(canonical(back) == canonical(values), s"${c.encoding.describe} block round trip")
    out
  }

  def fixed(bits: Int, values: Array[Long]): FixedWidthValues = {
    val w = bits / 8
    val bb = ByteBuffer.allocate(values.length * w).order(ByteOrder.LITTLE_ENDIAN)
    values.foreach(v => w match { case 1 => bb.put(v.toByte); case 2 => bb.putShort(v.toShort); case 4 => bb.putInt(v.toInt); case 8 => bb.putLong(v) })
    new FixedWidthValues(bits, bb.array(), values.length)
  }

  def strings(s: Seq[String]): VariableData = VariableData.of(s.map(_.getBytes("UTF-8")))
}
