package io.sparklance.format.v21

import org.apache.arrow.memory.{ArrowBuf, BufferAllocator}
import org.apache.arrow.vector._
import org.apache.arrow.vector.complex.FixedSizeListVector
import org.apache.arrow.vector.ipc.message.ArrowFieldNode
import org.apache.arrow.vector.types.pojo.Field

import io.sparklance.format.arrow.ArrowVectors
import io.sparklance.format.encoding._
import io.sparklance.util.{Errors, LittleEndian => LE}

// Spec: the Arrow columnar format; lance-format/lance docs/src/format/file/encoding.md
// ("Repetition and definition levels"). Turns decoded leaf values into Arrow vectors:
// validity bitmaps from definition levels, values copied once into Arrow buffers.

object ArrowAssembler {

  /**
   * Builds the vector of a field without list or struct layers: every item is a row with a
   * value slot, null when its definition level is non-zero.
   */
  def primitive(field: Field, pieces: IndexedSeq[LeafData], allocator: BufferAllocator, where: String): FieldVector = {
    pieces.foreach { p =>
      if (p.reps != null || p.layers.exists(_.isList))
        throw Errors.corrupt(where, "a column without lists has repetition levels")
      if (p.values.count != p.numItems)
        throw Errors.corrupt(where, s"${p.numItems} items carry ${p.values.count} values")
    }
    val n = pieces.iterator.map(_.numItems).sum
    val validity: Array[Byte] =
      if (pieces.forall(_.defs == null)) null
      else {
        val bits = new Array[Byte]((n + 7) / 8)
        var pos = 0
        pieces.foreach { p =>
          val defs = p.defs
          var i = 0
          while (i < p.numItems) { if (defs == null || defs(i) == 0) BitCopy.setBit(bits, pos + i); i += 1 }
          pos += p.numItems
        }
        bits
      }
    leaf(field, n, validity, pieces.map(_.values), allocator, where)
  }

  /**
   * Builds a leaf vector of `n` slots from `values` (one value per slot, in order, split
   * over several decoded pieces). `validity` is an LSB-first bitmap, or null when every
   * slot is valid.
   */
  def leaf(field: Field, n: Int, validity: Array[Byte], values: IndexedSeq[DecodedValues],
           allocator: BufferAllocator, where: String): FieldVector = {
    val total = values.iterator.map(_.count).sum
    if (total != n) throw Errors.corrupt(where, s"$n slots but $total decoded values")
    val vector = ArrowVectors.create(field, allocator)
    try {
      vector match {
        case v: NullVector => v.setValueCount(n)
        case v: FixedSizeListVector =>
          val dim = v.getListSize
          val items = values.map {
            case f: FixedSizeListValues if f.dimension == dim => f
            case _: NullValues => null
            case other => throw Errors.corrupt(where, s"a fixed-size list of $dim decoded to ${other.describe}")
          }
          val itemValidity: Array[Byte] =
            if (items.forall(x => x == null || x.itemValidity == null)) null
            else {
              val bits = new Array[Byte]((n * dim + 7) / 8)
              var pos = 0
              values.indices.foreach { k =>
                val cnt = values(k).count * dim
                items(k) match {
                  case null =>
                  case f if f.itemValidity == null => var i = 0; while (i < cnt) { BitCopy.setBit(bits, pos + i); i += 1 }
                  case f => BitCopy.copyBits(f.itemValidity, 0, bits, pos, cnt)
                }
                pos += cnt
              }
              bits
            }
          val itemValues = values.indices.map(k => if (items(k) == null) new NullValues(values(k).count * dim): DecodedValues else items(k).items)
          load(v, n, validity, Seq.empty, allocator)
          val child = leaf(v.getField.getChildren.get(0), n * dim, itemValidity, itemValues, allocator, where)
          try child.makeTransferPair(v.getDataVector).transfer() finally child.close()
        case v: org.apache.arrow.vector.complex.StructVector =>
          // A struct stored in one column: its children come decoded side by side.
          val parts = values.map {
            case s: StructValues if s.children.length == v.size() => Some(s)
            case _: NullValues => None
            case other => throw Errors.corrupt(where, s"a packed struct decoded to ${other.describe}")
          }
          load(v, n, validity, Seq.empty, allocator)
          (0 until v.size()).foreach { c =>
            val childValues = values.indices.map(k => parts(k).fold(new NullValues(values(k).count): DecodedValues)(_.children(c)))
            val child = leaf(v.getField.getChildren.get(c), n, null, childValues, allocator, where)
            try child.makeTransferPair(v.getChildByOrdinal(c)).transfer() finally child.close()
          }
        case _: BitVector | _: BaseFixedWidthVector =>
          val data = fixedData(vector, values, n, allocator, where)
          load(vector, n, validity, Seq(data), allocator)
        case _: BaseVariableWidthVector =>
          val (offsets, data) = variableData(values, n, large = false, allocator, where)
          load(vector, n, validity, Seq(offsets, data), allocator)
        case _: BaseLargeVariableWidthVector =>
          val (offsets, data) = variableData(values, n, large = true, allocator, where)
          load(vector, n, validity, Seq(offsets, data), allocator)
        case _ => throw Errors.unsupported(s"reading Arrow type ${field.getType} as a leaf column", where)
      }
      vector
    } catch { case t: Throwable => vector.close(); throw t }
  }

  /**
   * Hands a validity bitmap (null: every slot valid) and the other buffers to the vector,
   * which retains them, and drops our references. The null count comes from the heap
   * bitmap. Without nulls the vector gets an empty validity buffer, from which Arrow makes
   * its own all-valid bitmap (it would take a non-empty one as it is).
   */
  def load(vector: FieldVector, n: Int, validity: Array[Byte], rest: Seq[ArrowBuf], allocator: BufferAllocator): Unit = {
    val nulls = if (validity == null) 0 else BitCopy.countUnset(validity, n)
    val buffers =
      try { (if (nulls == 0) allocator.getEmpty else validityBuffer(validity, n, allocator)) +: rest }
      catch { case t: Throwable => rest.foreach(_.close()); throw t }
    try vector.loadFieldBuffers(new ArrowFieldNode(n, nulls), java.util.Arrays.asList(buffers: _*))
    finally buffers.foreach(_.close())
  }

  /** An Arrow validity buffer of `n` slots from an LSB-first bitmap. */
  private def validityBuffer(bits: Array[Byte], n: Int, allocator: BufferAllocator): ArrowBuf = {
    val bytes = (n + 7) / 8
    val buf = allocator.buffer(math.max(bytes, 1).toLong)
    buf.setZero(0, buf.capacity())
    buf.setBytes(0, bits, 0, bytes.toLong)
    buf
  }

  private def fixedData(vector: FieldVector, values: IndexedSeq[DecodedValues], n: Int, allocator: BufferAllocator, where: String): ArrowBuf = {
    if (vector.isInstanceOf[BitVector]) {
      val bytes = (n + 7) / 8
      val out = new Array[Byte](bytes)
      var pos = 0
      values.foreach { v =>
        v match {
          case f: FixedWidthValues if f.bitsPerValue == 1 => BitCopy.copyBits(f.data, 0, out, pos, v.count)
          case f: FixedWidthValues if f.bitsPerValue == 8 =>
            // A constant boolean is stored as one bitmap byte per value (value in bit 0).
            var i = 0
            while (i < v.count) { if ((f.data(f.offset + i) & 1) != 0) BitCopy.setBit(out, pos + i); i += 1 }
          case _: NullValues =>
          case other => throw Errors.corrupt(where, s"a boolean column decoded to ${other.describe}")
        }
        pos += v.count
      }
      val buf = allocator.buffer(math.max(bytes, 1).toLong)
      buf.setBytes(0, out)
      buf
    } else {
      val width = vector.asInstanceOf[BaseFixedWidthVector].getTypeWidth
      val total = Math.multiplyExact(n.toLong, width.toLong)
      val buf = allocator.buffer(math.max(total, 1L))
      try {
        var pos = 0L
        values.foreach { v =>
          val len = v.count.toLong * width
          v match {
            case f: FixedWidthValues if f.bitsPerValue == width * 8 => buf.setBytes(pos, f.data, f.offset, len)
            case _: NullValues => buf.setZero(pos, len)
            case other => throw Errors.corrupt(where, s"a column of ${width * 8}-bit values decoded to ${other.describe}")
          }
          pos += len
        }
        buf
      } catch { case t: Throwable => buf.close(); throw t }
    }
  }

  private def variableData(values: IndexedSeq[DecodedValues], n: Int, large: Boolean, allocator: BufferAllocator, where: String): (ArrowBuf, ArrowBuf) = {
    val totalBytes = values.iterator.map {
      case v: VariableData => v.dataLength.toLong
      case _: NullValues => 0L
      case other => throw Errors.corrupt(where, s"a variable-width column decoded to ${other.describe}")
    }.sum
    if (!large && totalBytes > Int.MaxValue)
      throw Errors.unsupported(s"a batch of $totalBytes string bytes (over 2 GiB)", s"$where; lower the batch size")
    // The offsets are written little-endian into a heap array and copied over in one go: one
    // checked ArrowBuf.setInt per value costs several times more.
    val ow = if (large) 8 else 4
    val staged = new Array[Byte](Math.multiplyExact(n + 1, ow))
    val offsets = allocator.buffer(staged.length.toLong)
    val data =
      try allocator.buffer(math.max(totalBytes, 1L))
      catch { case t: Throwable => offsets.close(); throw t }
    try {
      var at = ow // offset 0 is 0
      var pos = 0L
      values.foreach {
        case v: VariableData =>
          data.setBytes(pos, v.bytes, 0, v.dataLength.toLong)
          val o = v.offsets
          var i = 1
          if (large) while (i <= v.count) { LE.putLong(staged, at, pos + o(i)); at += 8; i += 1 }
          else {
            val base = pos.toInt
            while (i <= v.count) { LE.putInt(staged, at, base + o(i)); at += 4; i += 1 }
          }
          pos += v.dataLength
        case v =>
          var i = 0
          while (i < v.count) { if (large) LE.putLong(staged, at, pos) else LE.putInt(staged, at, pos.toInt); at += ow; i += 1 }
      }
      offsets.setBytes(0, staged)
    } catch { case t: Throwable => offsets.close(); data.close(); throw t }
    (offsets, data)
  }
}
