package io.sparklance.spark.columns

import scala.jdk.CollectionConverters._

import org.apache.arrow.vector._
import org.apache.arrow.vector.complex.{FixedSizeListVector, LargeListVector, ListVector, MapVector, StructVector}
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.ColumnVector

import io.sparklance.spark.SparkArrow
import io.sparklance.spark.compat.SparkTime
import io.sparklance.util.Errors

/**
 * Spark columns over the Arrow vectors of a batch, which SparkArrow has made readable. Each
 * vector is checked once here (see [[BatchChecks]]) before a column reads it unchecked.
 */
private[spark] object ArrowColumns {

  /**
   * The column over `vector`, of the Spark type that SparkArrow maps its field to; `source`
   * names where the batch was read from, for errors.
   */
  def of(vector: FieldVector, source: String): ColumnVector = {
    val where = s"column '${vector.getName}'"
    of(vector, SparkArrow.sparkType(vector.getField, where), where, source)
  }

  private def of(vector: FieldVector, sparkType: DataType, where: String, source: String): ColumnVector = {
    BatchChecks.check(vector, source)
    column(vector, sparkType, where, source)
  }

  private def column(vector: FieldVector, sparkType: DataType, where: String, source: String): ColumnVector = (sparkType, vector) match {
    case (BooleanType, v: BitVector) => new BooleanColumn(v)
    case (t: DecimalType, v: DecimalVector) => new DecimalColumn(t, v)
    case (ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType | DateType | TimestampType |
          TimestampNTZType | SparkTime() | _: DayTimeIntervalType, v: BaseFixedWidthVector)
        // The width guards against a vector SparkArrow should have converted (e.g. 64-bit dates).
        if v.getTypeWidth == sparkType.defaultSize =>
      new FixedWidthColumn(sparkType, v)
    case (StringType | BinaryType, v: BaseVariableWidthVector) => new VariableWidthColumn(sparkType, v, large = false)
    case (StringType | BinaryType, v: BaseLargeVariableWidthVector) => new VariableWidthColumn(sparkType, v, large = true)
    case (t: ArrayType, v: FixedSizeListVector) => new FixedSizeListColumn(t, v, of(v.getDataVector, t.elementType, where, source))
    case (t: ArrayType, v: ListVector) => new ListColumn(t, v, of(v.getDataVector, t.elementType, where, source), large = false)
    case (t: ArrayType, v: LargeListVector) => new ListColumn(t, v, of(v.getDataVector, t.elementType, where, source), large = true)
    case (t: MapType, v: MapVector) =>
      BatchChecks.check(v.getDataVector, source) // the entries: keys and values hold a row each
      val entries = v.getDataVector.getChildrenFromFields
      new MapColumn(t, v, of(entries.get(0), t.keyType, where, source), of(entries.get(1), t.valueType, where, source))
    case (t: StructType, v: StructVector) =>
      val members = v.getChildrenFromFields.asScala.zip(t.fields).map { case (m, f) => of(m, f.dataType, where, source) }
      new StructColumn(t, v, members.toArray)
    case (NullType, v: NullVector) =>
      // Arrow's null type has no buffers at all: Spark's constant null column fits it (left
      // unset when empty, where it would otherwise claim a null it does not have).
      val nulls = new ConstantColumnVector(v.getValueCount, NullType)
      if (v.getValueCount > 0) nulls.setNull()
      nulls
    case _ => throw Errors.unsupported(s"reading an Arrow ${vector.getField.getType} vector as Spark ${sparkType.simpleString}", where)
  }
}
