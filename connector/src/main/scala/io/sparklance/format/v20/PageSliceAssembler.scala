package io.sparklance.format.v20

import java.nio.{ByteBuffer, ByteOrder}

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.{ArrowBuf, BufferAllocator}
import org.apache.arrow.vector.{BaseFixedWidthVector, BaseLargeVariableWidthVector, BaseVariableWidthVector, BitVector, BitVectorHelper, FieldVector, NullVector}
import org.apache.arrow.vector.complex.{FixedSizeListVector, StructVector}
import org.apache.arrow.vector.ipc.message.ArrowFieldNode

import io.sparklance.format.encoding.BitCopy
import io.sparklance.util.Errors

// Spec: the Arrow columnar format (validity bitmaps, offsets, child arrays). Copies the rows
// a batch takes from one or more decoded 2.0 pages into a fresh Arrow vector of the
// column's type. The Arrow buffers are taken from the caller's allocator before anything is
// staged on the heap, so a batch too large for the task's memory fails there first.

object PageSliceAssembler {

  /** Fills the empty `vector` with the rows of `slices`, in order. */
  def fill(vector: FieldVector, slices: Seq[PageSlice], allocator: BufferAllocator, path: String, where: String): Unit = {
    val n = checkedSize(slices.iterator.map(_.count.toLong).sum, path, where)
    def mismatch(v: PageValues): Exception =
      Errors.corrupt(path, s"$where: a column of Arrow type ${vector.getField.getType} decoded to ${PageDecoder.describe(v)}")
    val bitmapBytes = (n + 7L) / 8
    vector match {
      case v: NullVector => v.setValueCount(n)

      case _: BitVector =>
        withBuffers(allocator, bitmapBytes, bitmapBytes) { bufs =>
          val out = new Array[Byte](bitmapBytes.toInt)
          var pos = 0
          slices.foreach { s =>
            s.values match {
              case PageValues.Fixed(1, data, _, _) => BitCopy.copyBits(data, s.start.toInt, out, pos, s.count)
              case PageValues.Constant(value, _, _) if value.length == 1 =>
                if ((value(0) & 1) != 0) setRange(out, pos, s.count)
              case PageValues.Dictionary(indices, items: PageValues.Fixed) if items.bits == 1 =>
                (0 until s.count).foreach { i =>
                  val k = indices(s.start.toInt + i)
                  if (k >= 0 && BitCopy.getBit(items.data, k)) BitCopy.setBit(out, pos + i)
                }
              case PageValues.Dictionary(_, _: PageValues.Nulls) | _: PageValues.Nulls =>
              case other => throw mismatch(other)
            }
            pos += s.count
          }
          load(vector, n, slices, bufs, Seq(out))
        }

      case v: BaseFixedWidthVector =>
        val w = v.getTypeWidth
        val bytes = checkedSize(n.toLong * w, path, where)
        withBuffers(allocator, bitmapBytes, bytes.toLong) { bufs =>
          val out = new Array[Byte](bytes)
          var pos = 0
          slices.foreach { s =>
            s.values match {
              case PageValues.Fixed(bits, data, _, _) if bits == w * 8 =>
                System.arraycopy(data, (s.start * w).toInt, out, pos, s.count * w)
              case PageValues.Constant(value, _, _) if value.length == w =>
                (0 until s.count).foreach(i => System.arraycopy(value, 0, out, pos + i * w, w))
              case PageValues.Dictionary(indices, items: PageValues.Fixed) if items.bits == w * 8 =>
                (0 until s.count).foreach { i =>
                  val k = indices(s.start.toInt + i)
                  if (k >= 0) System.arraycopy(items.data, k * w, out, pos + i * w, w)
                }
              case PageValues.Dictionary(_, _: PageValues.Nulls) | _: PageValues.Nulls =>
              case other => throw mismatch(other)
            }
            pos += s.count * w
          }
          load(vector, n, slices, bufs, Seq(out))
        }

      case _: BaseVariableWidthVector | _: BaseLargeVariableWidthVector =>
        val large = vector.isInstanceOf[BaseLargeVariableWidthVector]
        val bytes = slices.iterator.map { s =>
          val st = s.start.toInt
          s.values match {
            case PageValues.Variable(data, _) => (data.offsets(st + s.count) - data.offsets(st)).toLong
            case PageValues.Dictionary(indices, items: PageValues.Variable) =>
              var sum = 0L
              (0 until s.count).foreach { i => val k = indices(st + i); if (k >= 0) sum += items.data.length(k) }
              sum
            case PageValues.Dictionary(_, _: PageValues.Nulls) | _: PageValues.Nulls => 0L
            case other => throw mismatch(other)
          }
        }.sum
        if (bytes > Int.MaxValue - 8)
          throw Errors.unsupported(s"a batch of $bytes string bytes (over 2 GiB)", s"$path, $where; lower the batch size")
        val ow = if (large) 8 else 4
        withBuffers(allocator, bitmapBytes, (n + 1L) * ow, bytes) { bufs =>
          val offsets = ByteBuffer.allocate(checkedSize((n + 1L) * ow, path, where)).order(ByteOrder.LITTLE_ENDIAN)
          val out = new Array[Byte](bytes.toInt)
          var pos = 0
          def putOffset(): Unit = if (large) offsets.putLong(pos.toLong) else offsets.putInt(pos)
          putOffset()
          slices.foreach { s =>
            val st = s.start.toInt
            s.values match {
              case PageValues.Variable(data, _) =>
                val base = data.offsets(st)
                System.arraycopy(data.bytes, base, out, pos, data.offsets(st + s.count) - base)
                val start = pos
                var i = 1
                while (i <= s.count) { pos = start + (data.offsets(st + i) - base); putOffset(); i += 1 }
              case PageValues.Dictionary(indices, items: PageValues.Variable) =>
                (0 until s.count).foreach { i =>
                  val k = indices(st + i)
                  if (k >= 0) {
                    val l = items.data.length(k)
                    System.arraycopy(items.data.bytes, items.data.offsets(k), out, pos, l)
                    pos += l
                  }
                  putOffset()
                }
              case _ => (0 until s.count).foreach(_ => putOffset())
            }
          }
          load(vector, n, slices, bufs, Seq(offsets.array(), out))
        }

      case v: FixedSizeListVector =>
        val d = v.getListSize
        val items = slices.map { s =>
          val count = checkedSize(s.count.toLong * d, path, where)
          s.values match {
            case PageValues.FixedSizeList(dim, values, _, _) if dim == d => PageSlice(values, s.start * d, count)
            case _: PageValues.Nulls => PageSlice(PageValues.Nulls(count.toLong), 0, count)
            case other => throw mismatch(other)
          }
        }
        withBuffers(allocator, bitmapBytes)(bufs => load(vector, n, slices, bufs, Seq.empty))
        fill(v.getDataVector, items, allocator, path, where)

      case v: StructVector =>
        val children = v.getChildrenFromFields.asScala.toIndexedSeq
        val perChild = children.indices.map { c =>
          slices.map { s =>
            s.values match {
              case PageValues.Struct(values, _, _) if values.length == children.length => PageSlice(values(c), s.start, s.count)
              case _: PageValues.Nulls => PageSlice(PageValues.Nulls(s.count.toLong), 0, s.count)
              case other => throw mismatch(other)
            }
          }
        }
        withBuffers(allocator, bitmapBytes)(bufs => load(vector, n, slices, bufs, Seq.empty))
        children.indices.foreach(c => fill(children(c), perChild(c), allocator, path, where))

      case other =>
        throw Errors.unsupported(s"reading Arrow type ${other.getField.getType} from a file format 2.0 page", s"$path, $where")
    }
  }

  private def checkedSize(n: Long, path: String, where: String): Int =
    if (n < 0 || n > Int.MaxValue - 8)
      throw Errors.unsupported(s"a batch of $n values or bytes in one vector (over 2 GiB)", s"$path, $where; lower the batch size")
    else n.toInt

  /** The validity bitmap of the rows of `slices`: bit set where the row is valid. */
  private def validity(slices: Seq[PageSlice], n: Int): Array[Byte] = {
    val out = new Array[Byte]((n + 7) / 8)
    var pos = 0
    slices.foreach { s =>
      s.values match {
        case _: PageValues.Nulls =>
        case d: PageValues.Dictionary =>
          (0 until s.count).foreach(i => if (d.isValid(s.start + i)) BitCopy.setBit(out, pos + i))
        case v =>
          v.validity match {
            case Validity.AllValid => setRange(out, pos, s.count)
            case Validity.Bits(bits) => BitCopy.copyBits(bits, s.start.toInt, out, pos, s.count)
          }
      }
      pos += s.count
    }
    out
  }

  /** Sets bits `[from, from + count)` of `bits`, whole bytes at a time where it can. */
  private def setRange(bits: Array[Byte], from: Int, count: Int): Unit = {
    var i = from
    val end = from + count
    while (i < end && (i & 7) != 0) { BitCopy.setBit(bits, i); i += 1 }
    while (i + 8 <= end) { bits(i >>> 3) = 0xff.toByte; i += 8 }
    while (i < end) { BitCopy.setBit(bits, i); i += 1 }
  }

  /** Allocates zeroed buffers of the given sizes, runs `body`, then drops our references. */
  private def withBuffers[A](allocator: BufferAllocator, sizes: Long*)(body: Seq[ArrowBuf] => A): A = {
    val bufs = scala.collection.mutable.ArrayBuffer.empty[ArrowBuf]
    try {
      sizes.foreach { size =>
        val b = allocator.buffer(math.max(size, 1L))
        bufs += b
        b.setZero(0, b.capacity())
      }
      body(bufs.toSeq)
    } finally bufs.foreach(_.close())
  }

  /** Copies the validity of `slices` and then `data` into `bufs` and hands them to `vector`. */
  private def load(vector: FieldVector, n: Int, slices: Seq[PageSlice], bufs: Seq[ArrowBuf], data: Seq[Array[Byte]]): Unit = {
    (validity(slices, n) +: data).zip(bufs).foreach { case (a, b) => b.setBytes(0, a) }
    vector.loadFieldBuffers(new ArrowFieldNode(n.toLong, BitVectorHelper.getNullCount(bufs.head, n).toLong), bufs.asJava)
  }

  /** Hands a validity bitmap and data buffers, built by the caller, to `vector`. */
  def loadBuffers(vector: FieldVector, n: Int, validity: Array[Byte], data: Seq[Array[Byte]], allocator: BufferAllocator): Unit =
    withBuffers(allocator, (validity +: data).map(_.length.toLong): _*) { bufs =>
      (validity +: data).zip(bufs).foreach { case (a, b) => b.setBytes(0, a) }
      vector.loadFieldBuffers(new ArrowFieldNode(n.toLong, BitVectorHelper.getNullCount(bufs.head, n).toLong), bufs.asJava)
    }
}
