package io.sparklance.spark.compat

import java.util

import org.apache.spark.sql.connector.catalog.{Column, Identifier, StagedTable, StagingTableCatalog, Table}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.StructType

/**
 * Spark 3.5's catalogs are asked to create and stage tables from a StructType (the Column
 * variants, which our catalogs implement, are 3.5's defaults calling these): each is answered
 * by the Column variant, so that every path, a delegating session catalog's included, reaches ours.
 */
trait StructTypeCreates extends StagingTableCatalog {
  override def createTable(ident: Identifier, schema: StructType, partitions: Array[Transform], properties: util.Map[String, String]): Table =
    createTable(ident, StructTypeCreates.columns(schema), partitions, properties)

  override def stageCreate(ident: Identifier, schema: StructType, partitions: Array[Transform], properties: util.Map[String, String]): StagedTable =
    stageCreate(ident, StructTypeCreates.columns(schema), partitions, properties)

  override def stageReplace(ident: Identifier, schema: StructType, partitions: Array[Transform], properties: util.Map[String, String]): StagedTable =
    stageReplace(ident, StructTypeCreates.columns(schema), partitions, properties)

  override def stageCreateOrReplace(ident: Identifier, schema: StructType, partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable =
    stageCreateOrReplace(ident, StructTypeCreates.columns(schema), partitions, properties)
}

object StructTypeCreates {
  /** The columns of `schema`: name, type, nullability, comment and the rest of the field's metadata. */
  def columns(schema: StructType): Array[Column] = schema.fields.map { f =>
    Column.create(f.name, f.dataType, f.nullable, f.getComment().orNull, if (f.metadata.json == "{}") null else f.metadata.json)
  }
}
