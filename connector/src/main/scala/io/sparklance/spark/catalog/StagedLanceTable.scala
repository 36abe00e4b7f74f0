package io.sparklance.spark.catalog

import java.util

import org.apache.spark.sql.connector.catalog.{StagedTable, SupportsWrite, TableCapability}
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.types.StructType

import io.sparklance.spark.{LanceSparkException, LanceTable}

/**
 * The table a CREATE TABLE AS SELECT, REPLACE TABLE [AS SELECT] or DataFrameWriterV2
 * `create` / `createOrReplace` makes, before the catalog knows it. Spark writes the query's rows
 * into it through `target` (a write target that creates the Lance table, or replaces the
 * existing one's data and schema, in one Lance commit), then commits the staging: the catalog
 * records the table only once its Lance version exists. A REPLACE TABLE without a query writes
 * nothing: the staging commit then makes the empty version itself (`commitEmpty`).
 *
 * If the write fails nothing was committed and there is nothing to undo (the write removed its
 * files); if recording the name fails after the Lance commit, the table's data stays at its
 * location, where `CREATE TABLE t USING lance LOCATION '...'` can name it.
 */
final class StagedLanceTable(target: LanceTable, columns: StructType, commitEmpty: () => Unit, record: () => Unit)
    extends StagedTable with SupportsWrite {

  @volatile private var written = false

  override def name(): String = target.name()

  override def schema(): StructType = columns

  override def capabilities(): util.Set[TableCapability] = util.EnumSet.of(TableCapability.BATCH_WRITE, TableCapability.TRUNCATE)

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = {
    written = true
    target.newWriteBuilder(info)
  }

  override def commitStagedChanges(): Unit = LanceSparkException.boundary {
    if (!written) commitEmpty()
    record()
  }

  override def abortStagedChanges(): Unit = ()
}
