package io.sparklance.format.read

import org.apache.arrow.memory.{ArrowBuf, BufferAllocator}
import org.apache.arrow.vector.{BaseFixedWidthVector, BaseLargeVariableWidthVector, BaseVariableWidthVector, BitVector, FieldVector, NullVector}
import org.apache.arrow.vector.ipc.message.ArrowFieldNode
import org.apache.arrow.vector.types.pojo.Field

import io.sparklance.format.layout.RepDefLayer
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/file/encoding.md ("Repetition and definition
// levels") and the Arrow columnar format. Turns decoded leaf items into Arrow vectors:
// validity from definition levels, values copied once into Arrow buffers.

object ArrowAssembler {

  /**
   * Builds the vector of a primitive (non-nested) field from the items of `rows` rows.
   * Every item is a row and has a value slot; an item is null when its definition level
   * is non-zero.
   */
  def primitive(field: Field, pieces: IndexedSeq[LeafData], allocator: BufferAllocator, where: String): FieldVector = {
    pieces.foreach { p =>
      if (p.reps != null || p.layers.exists(_.isList))
        throw Errors.corrupt(where, "a primitive column has repetition levels")
      if (p.values.count != p.numItems)
        throw Errors.corrupt(where, s"${p.numItems} items carry ${p.values.count} values")
    }
    val n = pieces.iterator.map(_.numItems).sum
    val vector = field.createVector(allocator)
    try {
      vector match {
        case _: NullVector => vector.asInstanceOf[NullVector].setValueCount(n)
        case _ =>
          val validity = buildValidity(pieces, n, allocator)
          val nullCount = org.apache.arrow.vector.BitVectorHelper.getNullCount(validity, n)
          vector match {
            case _: BitVector | _: BaseFixedWidthVector =>
              val data = fixedData(vector, pieces, n, allocator, where)
              load(vector, n, nullCount, Seq(validity, data))
            case _: BaseVariableWidthVector =>
              val (offsets, data) = variableData(pieces, n, large = false, allocator, where)
              load(vector, n, nullCount, Seq(validity, offsets, data))
            case _: BaseLargeVariableWidthVector =>
              val (offsets, data) = variableData(pieces, n, large = true, allocator, where)
              load(vector, n, nullCount, Seq(validity, offsets, data))
            case _ =>
              validity.close()
              throw Errors.unsupported(s"reading Arrow type ${field.getType} as a primitive column", where)
          }
      }
      vector
    } catch { case t: Throwable => vector.close(); throw t }
  }

  /** Hands the buffers to the vector (which retains them) and drops our references. */
  private def load(vector: FieldVector, n: Int, nullCount: Int, buffers: Seq[ArrowBuf]): Unit =
    try vector.loadFieldBuffers(new ArrowFieldNode(n, nullCount), java.util.Arrays.asList(buffers: _*))
    finally buffers.foreach(_.close())

  /** A validity bitmap: bit i set when item i is valid (definition level 0). */
  private def buildValidity(pieces: IndexedSeq[LeafData], n: Int, allocator: BufferAllocator): ArrowBuf = {
    val bytes = (n + 7) / 8
    val buf = allocator.buffer(math.max(bytes, 1).toLong)
    buf.setZero(0, buf.capacity())
    val bits = new Array[Byte](bytes)
    var pos = 0
    pieces.foreach { p =>
      val defs = p.defs
      var i = 0
      while (i < p.numItems) {
        if (defs == null || defs(i) == 0) bits((pos + i) >>> 3) = (bits((pos + i) >>> 3) | (1 << ((pos + i) & 7))).toByte
        i += 1
      }
      pos += p.numItems
    }
    buf.setBytes(0, bits)
    buf
  }

  private def fixedData(vector: FieldVector, pieces: IndexedSeq[LeafData], n: Int, allocator: BufferAllocator, where: String): ArrowBuf = {
    val isBits = vector.isInstanceOf[BitVector]
    val width = if (isBits) 0 else vector.asInstanceOf[BaseFixedWidthVector].getTypeWidth
    if (isBits) {
      val bytes = (n + 7) / 8
      val out = new Array[Byte](bytes)
      var pos = 0
      pieces.foreach { p =>
        p.values match {
          case f: FixedWidthValues if f.bitsPerValue == 1 => BitCopy.copyBits(f.data, 0, out, pos, p.numItems)
          case f: FixedWidthValues if f.bitsPerValue == 8 =>
            // A constant boolean is stored as one bitmap byte per value (value in bit 0).
            var i = 0
            while (i < p.numItems) { if ((f.data(i) & 1) != 0) BitCopy.setBit(out, pos + i); i += 1 }
          case _: NullValues =>
          case other => throw Errors.corrupt(where, s"a boolean column decoded to ${describe(other)}")
        }
        pos += p.numItems
      }
      val buf = allocator.buffer(math.max(bytes, 1).toLong)
      buf.setBytes(0, out)
      buf
    } else {
      val total = Math.multiplyExact(n.toLong, width.toLong)
      val buf = allocator.buffer(math.max(total, 1L))
      var pos = 0L
      pieces.foreach { p =>
        val len = p.numItems.toLong * width
        p.values match {
          case f: FixedWidthValues if f.bitsPerValue == width * 8 => buf.setBytes(pos, f.data, 0, len)
          case _: NullValues => buf.setZero(pos, len)
          case other =>
            buf.close()
            throw Errors.corrupt(where, s"a column of ${width * 8}-bit values decoded to ${describe(other)}")
        }
        pos += len
      }
      buf
    }
  }

  private def variableData(pieces: IndexedSeq[LeafData], n: Int, large: Boolean, allocator: BufferAllocator, where: String): (ArrowBuf, ArrowBuf) = {
    val totalBytes = pieces.iterator.map { p =>
      p.values match {
        case v: VariableWidthValues => (v.offsets(v.count) - v.offsets(0)).toLong
        case _: NullValues => 0L
        case other => throw Errors.corrupt(where, s"a variable-width column decoded to ${describe(other)}")
      }
    }.sum
    if (!large && totalBytes > Int.MaxValue)
      throw Errors.unsupported(s"a batch of $totalBytes string bytes (over 2 GiB)", s"$where; lower the batch size")
    val ow = if (large) 8 else 4
    val offsets = allocator.buffer(Math.multiplyExact(n.toLong + 1, ow.toLong))
    val data = allocator.buffer(math.max(totalBytes, 1L))
    var item = 0
    var pos = 0L
    def putOffset(i: Int, v: Long): Unit = if (large) offsets.setLong(i.toLong * 8, v) else offsets.setInt(i.toLong * 4, v.toInt)
    putOffset(0, 0)
    pieces.foreach {
      case p if p.values.isInstanceOf[VariableWidthValues] =>
        val v = p.values.asInstanceOf[VariableWidthValues]
        val base = v.offsets(0)
        data.setBytes(pos, v.data, base, (v.offsets(v.count) - base).toLong)
        var i = 0
        while (i < v.count) { putOffset(item + i + 1, pos + (v.offsets(i + 1) - base)); i += 1 }
        item += v.count
        pos += v.offsets(v.count) - base
      case p =>
        var i = 0
        while (i < p.numItems) { putOffset(item + i + 1, pos); i += 1 }
        item += p.numItems
    }
    (offsets, data)
  }

  private def describe(v: DecodedValues): String = v match {
    case f: FixedWidthValues => s"${f.bitsPerValue}-bit values"
    case _: VariableWidthValues => "variable-width values"
    case _: NullValues => "no values"
  }

  /** True when the layers describe a plain (non-nested) column. */
  def isPrimitive(layers: IndexedSeq[RepDefLayer]): Boolean = !layers.exists(_.isList) && layers.length <= 1
}
