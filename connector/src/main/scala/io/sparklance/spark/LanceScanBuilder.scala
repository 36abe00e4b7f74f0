package io.sparklance.spark

import org.apache.spark.sql.connector.read.{Scan, ScanBuilder, SupportsPushDownRequiredColumns}
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

import io.sparklance.format.LanceField

/**
 * Collects what Spark pushes down and builds the scan. Column pruning reaches into nested
 * fields: only the struct members Spark asks for are read (their leaves own the columns).
 */
final class LanceScanBuilder(table: LanceTable) extends ScanBuilder with SupportsPushDownRequiredColumns {
  private var required: StructType = table.schema()

  override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema

  override def build(): Scan = {
    val byName = table.snapshot.manifest.schema.fields.map(f => f.name -> f).toMap
    val fields = required.fields.toIndexedSeq.map(f => LanceScanBuilder.prune(byName(f.name), f.dataType))
    val where = table.snapshot.manifestPath
    val schema = StructType(fields.map(f => SparkArrow.sparkField(f.toArrow(where), where)))
    new LanceScan(table, fields, schema)
  }
}

object LanceScanBuilder {
  /** `field` keeping only the nested members present in Spark's `required` type. */
  def prune(field: LanceField, required: DataType): LanceField = (required, field) match {
    case (s: StructType, f) if f.isStruct && f.columnsOwnedByLeaves =>
      val keep = s.fields.map(_.name).toSet
      f.copy(children = f.children.filter(c => keep.contains(c.name)).map(c => prune(c, s(c.name).dataType)))
    case (ArrayType(elem, _), f) if f.isList => f.copy(children = f.children.map(prune(_, elem)))
    case (MapType(_, _, _), f) => f
    case _ => field
  }
}
