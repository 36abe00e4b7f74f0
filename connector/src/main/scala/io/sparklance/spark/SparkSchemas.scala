package io.sparklance.spark

import scala.jdk.CollectionConverters._

import org.apache.arrow.vector.types.{DateUnit, FloatingPointPrecision, TimeUnit}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field}
import org.apache.spark.sql.types._

import io.sparklance.format.LanceSchema
import io.sparklance.util.Errors

// Maps the Arrow types of a Lance schema to Spark SQL types. Only types whose Arrow
// vectors Spark's ArrowColumnVector reads directly are mapped so far; any other type
// raises the unsupported-feature error naming the column.

object SparkSchemas {

  def toSpark(schema: LanceSchema, where: String): StructType =
    StructType(schema.toArrow(where).getFields.asScala.map(f => field(f, where)).toSeq)

  private def field(f: Field, where: String): StructField =
    StructField(f.getName, dataType(f, where), f.isNullable)

  private def dataType(f: Field, where: String): DataType = f.getType match {
    case _: ArrowType.Bool => BooleanType
    case i: ArrowType.Int if i.getIsSigned => i.getBitWidth match {
      case 8 => ByteType
      case 16 => ShortType
      case 32 => IntegerType
      case 64 => LongType
    }
    case fp: ArrowType.FloatingPoint if fp.getPrecision == FloatingPointPrecision.SINGLE => FloatType
    case fp: ArrowType.FloatingPoint if fp.getPrecision == FloatingPointPrecision.DOUBLE => DoubleType
    case _: ArrowType.Utf8 | _: ArrowType.LargeUtf8 => StringType
    case _: ArrowType.Binary | _: ArrowType.LargeBinary => BinaryType
    case d: ArrowType.Date if d.getUnit == DateUnit.DAY => DateType
    case t: ArrowType.Timestamp if t.getUnit == TimeUnit.MICROSECOND =>
      if (t.getTimezone == null) TimestampNTZType else TimestampType
    case d: ArrowType.Decimal if d.getBitWidth == 128 => DecimalType(d.getPrecision, d.getScale)
    case _: ArrowType.Null => NullType
    case other => throw Errors.unsupported(s"column '${f.getName}' of Arrow type $other in Spark", where)
  }
}
