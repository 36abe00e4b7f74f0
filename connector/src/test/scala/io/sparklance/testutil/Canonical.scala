package io.sparklance.testutil

import java.nio.charset.StandardCharsets.UTF_8

import scala.jdk.CollectionConverters._

import org.apache.arrow.vector._
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.types._

import io.sparklance.spark.compat.SparkTime

/**
 * Cell values in one comparable form, whether they come from an Arrow vector (ours or
 * pylance's) or from a Spark InternalRow: floats by their bits (so NaN and -0.0 compare
 * exactly), strings as String, binaries as byte sequences, dates as days, timestamps as
 * microseconds.
 */
object Canonical {
  final case class FloatBits(bits: Int)
  final case class DoubleBits(bits: Long)

  def rows(root: VectorSchemaRoot): IndexedSeq[IndexedSeq[Any]] = rows(root, null)

  /**
   * The rows of `root`; dictionary-encoded columns (pylance returns dictionary columns so)
   * are decoded through `dictionaries` first, since spark-lance reads them as their values.
   */
  def rows(root: VectorSchemaRoot, dictionaries: org.apache.arrow.vector.dictionary.DictionaryProvider): IndexedSeq[IndexedSeq[Any]] = {
    val decoded = root.getFieldVectors.asScala.toIndexedSeq.map { v =>
      val enc = v.getField.getDictionary
      if (enc == null || dictionaries == null) (v, false)
      else (org.apache.arrow.vector.dictionary.DictionaryEncoder.decode(v, dictionaries.lookup(enc.getId)).asInstanceOf[FieldVector], true)
    }
    try Range(0, root.getRowCount).map(i => decoded.map { case (v, _) => cell(v, i) })
    finally decoded.foreach { case (v, owned) => if (owned) v.close() }
  }

  def cell(v: FieldVector, i: Int): Any =
    if (v.isNull(i)) null
    else v match {
      case b: BitVector => b.get(i) == 1
      case f: Float4Vector => FloatBits(java.lang.Float.floatToRawIntBits(f.get(i)))
      case d: Float8Vector => DoubleBits(java.lang.Double.doubleToRawLongBits(d.get(i)))
      case s: VarCharVector => new String(s.get(i), UTF_8)
      case s: LargeVarCharVector => new String(s.get(i), UTF_8)
      case b: VarBinaryVector => b.get(i).toSeq
      case b: LargeVarBinaryVector => b.get(i).toSeq
      case d: DateDayVector => d.get(i)
      case t: TimeStampVector => t.get(i)
      case l: org.apache.arrow.vector.complex.ListVector =>
        (l.getElementStartIndex(i) until l.getElementEndIndex(i)).map(j => cell(l.getDataVector, j))
      case l: org.apache.arrow.vector.complex.LargeListVector =>
        (l.getElementStartIndex(i).toInt until l.getElementEndIndex(i).toInt).map(j => cell(l.getDataVector, j))
      case l: org.apache.arrow.vector.complex.FixedSizeListVector =>
        (i * l.getListSize until (i + 1) * l.getListSize).map(j => cell(l.getDataVector, j))
      case s: org.apache.arrow.vector.complex.StructVector =>
        s.getChildrenFromFields.asScala.map(c => c.getName -> cell(c, i)).toMap
      case f: FixedSizeBinaryVector => f.get(i).toSeq
      case h if HalfVectors.isHalf(h) => HalfVectors.bits(h, i) // raw 16 bits
      case other => other.getObject(i)
    }

  def fromSpark(row: InternalRow, schema: StructType): IndexedSeq[Any] =
    schema.fields.indices.map(i => fromSpark(row, i, schema.fields(i).dataType))

  /**
   * Value `i` of a Spark row or array of type `t`, in the forms `cell` gives: lists as
   * sequences, structs as maps by member name, decimals as BigDecimal; maps as their keys
   * paired with their values.
   */
  def fromSpark(g: SpecializedGetters, i: Int, t: DataType): Any =
    if (g.isNullAt(i)) null
    else t match {
      case BooleanType => g.getBoolean(i)
      case ByteType => g.getByte(i)
      case ShortType => g.getShort(i)
      case IntegerType | DateType => g.getInt(i)
      case LongType | TimestampType | TimestampNTZType | SparkTime() | _: DayTimeIntervalType => g.getLong(i)
      case FloatType => FloatBits(java.lang.Float.floatToRawIntBits(g.getFloat(i)))
      case DoubleType => DoubleBits(java.lang.Double.doubleToRawLongBits(g.getDouble(i)))
      case d: DecimalType => g.getDecimal(i, d.precision, d.scale).toJavaBigDecimal
      case StringType => g.getUTF8String(i).toString
      case BinaryType => g.getBinary(i).toSeq
      case ArrayType(e, _) => elements(g.getArray(i), e)
      case MapType(k, v, _) =>
        val m = g.getMap(i)
        elements(m.keyArray, k).zip(elements(m.valueArray, v))
      case s: StructType =>
        val r = g.getStruct(i, s.size)
        s.fields.indices.map(j => s(j).name -> fromSpark(r, j, s(j).dataType)).toMap
      case other => throw new IllegalArgumentException(s"no canonical form for $other")
    }

  /** The items of a Spark array of item type `t`. */
  def elements(a: ArrayData, t: DataType): IndexedSeq[Any] = (0 until a.numElements).map(j => fromSpark(a, j, t))
}
