package io.sparklance.spark.write

import org.apache.spark.sql.types.{DataType, StructType}

import io.sparklance.format.LanceSchema
import io.sparklance.spark.{SparkArrow, WriteSchema}
import io.sparklance.util.Errors

// The DataFrame's columns against the table's, on the driver before any file is written.
// Lance itself (rust/lance/src/dataset/write/insert.rs, validate_write) matches an append's
// columns by name in any order and ignores nullability; it also lets an append leave out
// nullable columns, which we refuse, so that a forgotten column is an error rather than nulls.
// Names Lance reserves for its row ids and addresses are refused there and here
// (WriteSchema.checkNames).

object WriteColumns {
  /**
   * For each field of `table`, the input column that holds it. The input must have every
   * column of the table, no other, each of the Spark type the table's column reads as
   * (nullability, metadata and collations aside); a column stored as a type Spark lacks
   * (uint32, a vector, time64) takes the Spark type it reads as, its values converted back.
   */
  def ordinals(table: LanceSchema, input: StructType, where: String): IndexedSeq[Int] = {
    val byName = input.fieldNames.zipWithIndex.toMap
    val missing = table.fields.map(_.name).filterNot(byName.contains)
    val extra = input.fieldNames.toSeq.filterNot(n => table.field(n).isDefined)
    val mistyped = table.fields.flatMap { lf =>
      byName.get(lf.name).flatMap { i =>
        val readsAs = readTypes(lf, where)
        val written = input.fields(i).dataType
        if (readsAs.exists(t => WriteSchema.shape(t) == WriteSchema.shape(written))) None
        else Some((lf.name, written.simpleString, s"${readsAs.head.simpleString} (Lance type ${lf.logicalType})"))
      }
    }
    if (missing.nonEmpty || extra.nonEmpty || mistyped.nonEmpty) throw Errors.writeSchemaMismatch(where, missing, extra, mistyped)
    table.fields.map(f => byName(f.name))
  }

  /** The Spark types `lf` reads as, with and without Spark's TIME type enabled (blobs as bytes). */
  private def readTypes(lf: io.sparklance.format.LanceField, where: String): Seq[DataType] =
    Seq(false, true).map(timeType => SparkArrow.sparkField(lf.toArrowForWrite(where), where, timeType, Some(lf)).dataType)
}
