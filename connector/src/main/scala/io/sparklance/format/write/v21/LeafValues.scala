package io.sparklance.format.write.v21

import scala.jdk.CollectionConverters._

import org.apache.arrow.vector._
import org.apache.arrow.vector.complex.{FixedSizeListVector, StructVector}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field}

import io.sparklance.format.FixedWidths
import io.sparklance.format.encoding._
import io.sparklance.format.write.{BitArrayBuilder, ByteArrayBuilder, OutOfLine}
import io.sparklance.util.Errors

// Spec: rust/lance-encoding/src/data.rs (DataBlock::from_arrays): a 2.1+ leaf column stores one
// value slot per visible item (lance-format-facts §15.3), in the forms format/encoding's
// compressors take. The shredder decides which Arrow positions fill the slots; these
// accumulators copy them out of the caller's Arrow buffers (which the caller reuses after each
// batch) and hand a page's worth over as DecodedValues.

/** The visible values of one leaf column, buffered until its page is flushed. */
private[write] sealed trait LeafValues {
  /** Appends the values at Arrow positions `[from, from + count)` of `leaf`. */
  def appendRun(leaf: ValueVector, from: Int, count: Int): Unit
  /** Appends a slot for a null item (its bytes are never read). */
  def appendNull(): Unit
  def count: Int
  /** Bytes buffered, for the page budget. */
  def bytes: Long
  /** The buffered values as one page's values, and a fresh start. */
  def take(): DecodedValues
}

private[write] object LeafValues {
  /** The accumulator for a leaf of Arrow type `a`; `field` names it in errors. */
  def forType(a: Field, field: String): LeafValues = a.getType match {
    case _: ArrowType.Bool => new Booleans
    case _: ArrowType.Null => new Nulls
    case _: ArrowType.Utf8 | _: ArrowType.Binary => new Variable(large = false)
    case _: ArrowType.LargeUtf8 | _: ArrowType.LargeBinary => new Variable(large = true)
    case l: ArrowType.FixedSizeList =>
      FixedWidths.bytes(a.getChildren.get(0).getType) match {
        case Some(w) => new FixedSizeLists(l.getListSize, w)
        case None => throw Errors.unsupported(s"writing fixed-size lists of ${a.getChildren.get(0).getType} (field '$field')", "the file writer")
      }
    case t => FixedWidths.bytes(t) match {
      case Some(w) => new Fixed(w)
      case None => throw Errors.unsupported(s"writing Arrow type $t (field '$field')", "the file writer")
    }
  }

  /**
   * A struct stored in one column (`lance-encoding:packed`), row-major. Its members are never
   * null themselves (pylance refuses that; the struct itself may be null). From file format 2.2
   * members may be strings or binaries (a variable packed struct).
   */
  def packedStruct(a: Field, field: String, variableAllowed: Boolean): LeafValues = {
    val children = a.getChildren.asScala.toIndexedSeq.map { c =>
      c.getType match {
        case _: ArrowType.Utf8 | _: ArrowType.Binary | _: ArrowType.LargeUtf8 | _: ArrowType.LargeBinary =>
          if (!variableAllowed) throw Errors.unsupported(
            s"a packed struct member of type ${c.getType} (field '$field.${c.getName}') in file format 2.1; " +
              "packed structs with string or binary members need file format 2.2", "the file writer")
          new Variable(large = c.getType.isInstanceOf[ArrowType.LargeUtf8] || c.getType.isInstanceOf[ArrowType.LargeBinary])
        case t => new Fixed(FixedWidths.bytes(t).getOrElse(throw Errors.unsupported(
          s"a packed struct member of type $t (field '$field.${c.getName}'); packed structs hold fixed-width, string or binary members",
          "the file writer")))
      }
    }
    new PackedStruct(children, field)
  }

  final class Fixed(width: Int) extends LeafValues {
    private val data = new ByteArrayBuilder()
    private var n = 0
    def count: Int = n
    def bytes: Long = data.length
    def appendRun(leaf: ValueVector, from: Int, len: Int): Unit = {
      val out = data.reserve(len.toLong * width)
      leaf.asInstanceOf[BaseFixedWidthVector].getDataBuffer.getBytes(from.toLong * width, out, data.length, len * width)
      data.advance(len * width)
      n += len
    }
    def appendNull(): Unit = { data.appendZeros(width); n += 1 }
    def appendBytes(value: Array[Byte]): Unit = { data.append(value, 0, width); n += 1 }
    // The page takes the array as it is (compressors read `n` values of it) and the next page
    // fills the same array again: a page is written out before the column takes more rows (see
    // FieldEncoder.append), so the array is neither copied nor allocated again each page.
    def take(): DecodedValues = {
      val v = new FixedWidthValues(width * 8, data.array, n)
      data.clear()
      n = 0
      v
    }
  }

  final class Booleans extends LeafValues {
    private val bits = new BitArrayBuilder
    def count: Int = bits.length.toInt
    def bytes: Long = bits.length / 8
    def appendRun(leaf: ValueVector, from: Int, len: Int): Unit = {
      val b = leaf.asInstanceOf[BitVector]
      var i = 0
      while (i < len) { bits.append(b.getBitsUnsafe(from + i)); i += 1 }
    }
    def appendNull(): Unit = bits.append(false)
    def take(): DecodedValues = { val v = new FixedWidthValues(1, bits.toArray, count); bits.clear(); v }
  }

  private implicit final class BitVectorOps(private val b: BitVector) extends AnyVal {
    // The value bit regardless of validity: a null slot's bit is never read back.
    def getBitsUnsafe(i: Int): Boolean = (b.getDataBuffer.getByte(i >>> 3) & (1 << (i & 7))) != 0
  }

  /** Strings and binaries; `large` for 64-bit Arrow offsets (the page stores 64-bit offsets too). */
  final class Variable(val large: Boolean) extends LeafValues {
    private val data = new ByteArrayBuilder()
    private var offsets = new Array[Int](1025)
    private var n = 0
    def count: Int = n
    def bytes: Long = data.length + 4L * n
    private def ensure(extra: Int): Unit =
      if (n + extra + 1 > offsets.length) offsets = java.util.Arrays.copyOf(offsets, math.max(n + extra + 1, offsets.length * 2))
    def appendRun(leaf: ValueVector, from: Int, len: Int): Unit = {
      ensure(len)
      val (start, end) = leaf match {
        case v: BaseVariableWidthVector =>
          val o = v.getOffsetBuffer
          (o.getInt(from.toLong * 4).toLong, o.getInt((from + len).toLong * 4).toLong)
        case v: BaseLargeVariableWidthVector =>
          val o = v.getOffsetBuffer
          (o.getLong(from.toLong * 8), o.getLong((from + len).toLong * 8))
        case other => throw new IllegalStateException(s"not a variable-width vector: ${other.getClass}")
      }
      val total = end - start
      val out = data.reserve(total)
      val base = data.length
      leaf match {
        case v: BaseVariableWidthVector =>
          v.getDataBuffer.getBytes(start, out, base, total.toInt)
          val o = v.getOffsetBuffer
          var i = 1
          while (i <= len) { offsets(n + i) = base + (o.getInt((from + i).toLong * 4) - start).toInt; i += 1 }
        case v: BaseLargeVariableWidthVector =>
          v.getDataBuffer.getBytes(start, out, base, total.toInt)
          val o = v.getOffsetBuffer
          var i = 1
          while (i <= len) { offsets(n + i) = base + (o.getLong((from + i).toLong * 8) - start).toInt; i += 1 }
        case _ =>
      }
      data.advance(total.toInt)
      n += len
    }
    def appendNull(): Unit = { ensure(1); offsets(n + 1) = offsets(n); n += 1 }
    // As Fixed.take: the value bytes stay in the array the next page fills again.
    def take(): DecodedValues = {
      val v = new VariableData(java.util.Arrays.copyOf(offsets, n + 1), data.array)
      data.clear(); n = 0; offsets(0) = 0
      v
    }
  }

  /**
   * Fixed-size lists of fixed-width items (vectors). A list is one value; its items' own
   * validity, if any item is null, travels beside the items (the FixedSizeList encoding's
   * has_validity), so a vector column gets no rep/def level per item.
   */
  final class FixedSizeLists(dimension: Int, itemWidth: Int) extends LeafValues {
    private val items = new ByteArrayBuilder()
    private val validity = new BitArrayBuilder
    private var anyNullItem = false
    private var n = 0
    def count: Int = n
    def bytes: Long = items.length
    def appendRun(leaf: ValueVector, from: Int, len: Int): Unit = {
      val f = leaf.asInstanceOf[FixedSizeListVector]
      val inner = f.getDataVector.asInstanceOf[BaseFixedWidthVector]
      val first = from.toLong * dimension
      val total = len * dimension
      val out = items.reserve(total.toLong * itemWidth)
      inner.getDataBuffer.getBytes(first * itemWidth, out, items.length, total * itemWidth)
      items.advance(total * itemWidth)
      if (inner.getNullCount > 0 || anyNullItem) {
        if (!anyNullItem) { anyNullItem = true; validity.appendOnes(n * dimension) }
        var i = 0
        while (i < total) { validity.append(!inner.isNull((first + i).toInt)); i += 1 }
      }
      n += len
    }
    def appendNull(): Unit = {
      items.appendZeros(dimension * itemWidth)
      if (anyNullItem) validity.appendOnes(dimension)
      n += 1
    }
    def take(): DecodedValues = {
      val v = new FixedSizeListValues(dimension, if (anyNullItem) validity.toArray else null,
        new FixedWidthValues(itemWidth * 8, items.toArray, n * dimension), n)
      items.clear(); validity.clear(); anyNullItem = false; n = 0
      v
    }
  }

  final class PackedStruct(children: IndexedSeq[LeafValues], field: String) extends LeafValues {
    def count: Int = children.head.count
    def bytes: Long = children.map(_.bytes).sum
    def appendRun(leaf: ValueVector, from: Int, len: Int): Unit = {
      val s = leaf.asInstanceOf[StructVector]
      var c = 0
      while (c < children.length) {
        val v = s.getChildByOrdinal(c)
        if (v.getNullCount > 0) {
          var i = from
          while (i < from + len) {
            if (v.isNull(i) && !s.isNull(i)) throw Errors.invalidArgument(
              s"member '${v.getName}' of the packed struct field '$field' is null in row $i; members of a packed struct " +
                "cannot be null (the struct itself can): fill the nulls or store the struct unpacked")
            i += 1
          }
        }
        children(c).appendRun(v, from, len)
        c += 1
      }
    }
    def appendNull(): Unit = children.foreach(_.appendNull())
    def take(): DecodedValues = { val n = count; new StructValues(children.map(_.take()), n) }
  }

  /**
   * Blob descriptors (blob.rs BlobStructuralEncoder): each value's bytes are written out of line
   * at once, and the column keeps (position, size): (0, 0) for an empty value, and for a null
   * the levels smuggled into the position, `(def << 16) | rep`, with size 0. Blob fields are top
   * level, so a null's levels are def 1, rep 0.
   */
  final class BlobDescriptors(outOfLine: OutOfLine) extends LeafValues {
    private val positions = new Fixed(8)
    private val sizes = new Fixed(8)
    private val scratch = new Array[Byte](8)
    def count: Int = positions.count
    def bytes: Long = positions.bytes + sizes.bytes
    private def put(f: Fixed, v: Long): Unit = {
      var i = 0
      while (i < 8) { scratch(i) = (v >>> (8 * i)).toByte; i += 1 }
      f.appendBytes(scratch)
    }
    def appendRun(leaf: ValueVector, from: Int, len: Int): Unit = {
      var i = from
      while (i < from + len) {
        val (buf, start, end) = leaf match {
          case v: BaseVariableWidthVector =>
            (v.getDataBuffer, v.getOffsetBuffer.getInt(i.toLong * 4).toLong, v.getOffsetBuffer.getInt((i + 1).toLong * 4).toLong)
          case v: BaseLargeVariableWidthVector =>
            (v.getDataBuffer, v.getOffsetBuffer.getLong(i.toLong * 8), v.getOffsetBuffer.getLong((i + 1).toLong * 8))
          case other => throw new IllegalStateException(s"not a binary vector: ${other.getClass}")
        }
        if (end == start) { put(positions, 0); put(sizes, 0) }
        else { put(positions, outOfLine.write(buf, start, end - start)); put(sizes, end - start) }
        i += 1
      }
    }
    def appendNull(): Unit = { put(positions, 1L << 16); put(sizes, 0) }
    def take(): DecodedValues = { val n = count; new StructValues(IndexedSeq(positions.take(), sizes.take()), n) }
  }

  /** Arrow's null type: slots but no values. */
  final class Nulls extends LeafValues {
    private var n = 0
    def count: Int = n
    def bytes: Long = 0
    def appendRun(leaf: ValueVector, from: Int, len: Int): Unit = n += len
    def appendNull(): Unit = n += 1
    def take(): DecodedValues = { val v = new NullValues(n); n = 0; v }
  }
}
