package io.sparklance.spark.compat

import java.util

import org.apache.spark.sql.connector.catalog.{CatalogV2Util, Identifier, StagedTable, StagingTableCatalog, Table}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.StructType

/**
 * Spark 3.5's catalogs are asked to create and stage tables from a StructType (the Column
 * variants, which our catalogs implement, are 3.5's defaults calling these): each is answered
 * by the Column variant, so that every path, a delegating session catalog's included, reaches ours.
 */
trait StructTypeCreates extends StagingTableCatalog {
  override def createTable(ident: Identifier, schema: StructType, partitions: Array[Transform], properties: util.Map[String, String]): Table =
    createTable(ident, CatalogV2Util.structTypeToV2Columns(schema), partitions, properties)

  override def stageCreate(ident: Identifier, schema: StructType, partitions: Array[Transform], properties: util.Map[String, String]): StagedTable =
    stageCreate(ident, CatalogV2Util.structTypeToV2Columns(schema), partitions, properties)

  override def stageReplace(ident: Identifier, schema: StructType, partitions: Array[Transform], properties: util.Map[String, String]): StagedTable =
    stageReplace(ident, CatalogV2Util.structTypeToV2Columns(schema), partitions, properties)

  override def stageCreateOrReplace(ident: Identifier, schema: StructType, partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable =
    stageCreateOrReplace(ident, CatalogV2Util.structTypeToV2Columns(schema), partitions, properties)
}
