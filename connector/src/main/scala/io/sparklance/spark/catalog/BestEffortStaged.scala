package io.sparklance.spark.catalog

import java.util

import org.apache.spark.sql.connector.catalog.{Column, Identifier, StagedTable, SupportsWrite, Table, TableCapability, TableCatalog}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.types.StructType

import io.sparklance.util.Errors

/**
 * A CTAS or REPLACE TABLE AS SELECT in the session catalog whose provider is not Lance (another
 * DataSource V2 connector's): the built-in catalog has no staging, so the table is created at
 * once and dropped again if the write fails, which is what Spark does for such catalogs itself.
 */
private[catalog] final class BestEffortStaged(catalog: TableCatalog, ident: Identifier, table: Table)
    extends StagedTable with SupportsWrite {
  override def name(): String = table.name()
  @scala.annotation.nowarn("cat=deprecation") // abstract until Spark 4.0, where columns() took over
  override def schema(): StructType = table.schema()
  override def partitioning(): Array[Transform] = table.partitioning()
  override def properties(): util.Map[String, String] = table.properties()
  override def capabilities(): util.Set[TableCapability] = table.capabilities()

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = table match {
    case t: SupportsWrite => t.newWriteBuilder(info)
    case _ => throw Errors.unsupported(s"writing the query's rows into ${table.name()}: its provider does not write through " +
      "DataSource V2", table.name())
  }

  override def commitStagedChanges(): Unit = ()
  override def abortStagedChanges(): Unit = catalog.dropTable(ident)
}

private[catalog] object BestEffortStaged {
  def create(catalog: LanceSessionCatalog, ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = {
    catalog.createBuiltIn(ident, columns, partitions, properties)
    new BestEffortStaged(catalog, ident, catalog.loadTable(ident))
  }

  def replace(catalog: LanceSessionCatalog, ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = {
    catalog.dropTable(ident)
    create(catalog, ident, columns, partitions, properties)
  }
}
