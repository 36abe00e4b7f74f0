package io.sparklance.testutil

import java.math.{BigDecimal => JBigDecimal}
import java.nio.charset.StandardCharsets.UTF_8

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector._
import org.apache.arrow.vector.complex.{FixedSizeListVector, LargeListVector, ListVector, StructVector}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType}

import io.sparklance.format.arrow.ArrowVectors

/**
 * Arrow vectors built from Scala values, one per row: null, a leaf value of the vector's
 * Java type (Byte for int8 and uint8, Int for uint32 (raw bits), Float for float16, String or
 * Array[Byte] for variable-width, BigDecimal for decimals), a Seq of items for lists or of
 * member values for structs, a Seq of key-value pairs for maps.
 */
object ArrowData {
  def field(name: String, t: ArrowType, children: Field*): Field =
    new Field(name, FieldType.nullable(t), children.asJava)

  def required(name: String, t: ArrowType, children: Field*): Field =
    new Field(name, FieldType.notNullable(t), children.asJava)

  /** A new vector of `f` holding `values`, owned by the caller. */
  def vector(f: Field, values: IndexedSeq[Any], allocator: BufferAllocator): FieldVector = {
    val v = ArrowVectors.create(f, allocator)
    try fill(v, values) catch { case t: Throwable => v.close(); throw t }
    v
  }

  private def items(x: Any): Seq[Any] = x match {
    case s: Seq[_] => s.map { case (k, value) => Seq(k, value); case other => other }
  }

  private def fill(v: FieldVector, values: IndexedSeq[Any]): Unit = {
    v.allocateNew()
    val n = values.length
    v match {
      case l: FixedSizeListVector =>
        // A null row still owns its slots.
        fill(l.getDataVector, values.flatMap(x => if (x == null) Seq.fill(l.getListSize)(null) else items(x)))
        (0 until n).foreach(i => if (values(i) == null) l.setNull(i) else l.startNewValue(i))
      case l: ListVector => // maps too
        fill(l.getDataVector, values.filter(_ != null).flatMap(items))
        (0 until n).foreach(i => if (values(i) == null) l.setNull(i) else { l.startNewValue(i); l.endValue(i, items(values(i)).size) })
      case l: LargeListVector =>
        fill(l.getDataVector, values.filter(_ != null).flatMap(items))
        (0 until n).foreach(i => if (values(i) == null) l.setNull(i) else { l.startNewValue(i.toLong); l.endValue(i, items(values(i)).size.toLong) })
      case s: StructVector =>
        s.getChildrenFromFields.asScala.zipWithIndex.foreach { case (c, k) => fill(c, values.map(x => if (x == null) null else items(x)(k))) }
        (0 until n).foreach(i => if (values(i) == null) s.setNull(i) else s.setIndexDefined(i))
      case _ => (0 until n).foreach(i => if (values(i) == null) setNull(v, i) else setLeaf(v, i, values(i)))
    }
    v.setValueCount(n)
  }

  private def setNull(v: FieldVector, i: Int): Unit = v match {
    case _: NullVector =>
    case f: BaseFixedWidthVector => f.setNull(i)
    case f: BaseVariableWidthVector => f.setNull(i)
    case f: BaseLargeVariableWidthVector => f.setNull(i)
  }

  private def setLeaf(v: FieldVector, i: Int, x: Any): Unit = (v, x) match {
    case (b: BitVector, x: Boolean) => b.setSafe(i, if (x) 1 else 0)
    case (b: TinyIntVector, x: Byte) => b.setSafe(i, x)
    case (b: UInt1Vector, x: Byte) => b.setSafe(i, x)
    case (s: SmallIntVector, x: Short) => s.setSafe(i, x)
    case (d: IntVector, x: Int) => d.setSafe(i, x)
    case (d: UInt4Vector, x: Int) => d.setSafe(i, x)
    case (d: DateDayVector, x: Int) => d.setSafe(i, x)
    case (l: BigIntVector, x: Long) => l.setSafe(i, x)
    case (t: TimeStampVector, x: Long) => t.setSafe(i, x)
    case (t: TimeNanoVector, x: Long) => t.setSafe(i, x)
    case (d: DurationVector, x: Long) => d.setSafe(i, x)
    case (f, x: Float) if HalfVectors.isHalf(f) => HalfVectors.set(f, i, x)
    case (f: Float4Vector, x: Float) => f.setSafe(i, x)
    case (f: Float8Vector, x: Double) => f.setSafe(i, x)
    case (d: DecimalVector, x: JBigDecimal) => d.setSafe(i, x)
    case (u: UInt2Vector, x: Short) => u.setSafe(i, x.toInt & 0xffff)
    case (u: UInt8Vector, x: Long) => u.setSafe(i, x)
    case (d: DateMilliVector, x: Long) => d.setSafe(i, x)
    case (t: TimeSecVector, x: Int) => t.setSafe(i, x)
    case (t: TimeMilliVector, x: Int) => t.setSafe(i, x)
    case (t: TimeMicroVector, x: Long) => t.setSafe(i, x)
    case (d: Decimal256Vector, x: JBigDecimal) => d.setSafe(i, x)
    case (f: FixedSizeBinaryVector, x: Array[Byte]) => f.setSafe(i, x)
    case (s: BaseVariableWidthVector, x: String) => s.setSafe(i, x.getBytes(UTF_8))
    case (s: BaseVariableWidthVector, x: Array[Byte]) => s.setSafe(i, x)
    case (s: BaseLargeVariableWidthVector, x: String) => s.setSafe(i, x.getBytes(UTF_8))
    case (s: BaseLargeVariableWidthVector, x: Array[Byte]) => s.setSafe(i, x)
  }
}
