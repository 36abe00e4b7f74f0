package io.sparklance.spark.write

import org.apache.spark.sql.connector.write.{LogicalWriteInfo, SupportsTruncate, Write, WriteBuilder}

import io.sparklance.spark.{LanceSparkException, LanceTable}

/**
 * Builds the write Spark plans for a write target. Spark truncates the builder for
 * OverwriteByExpression(true), the plan of save mode `overwrite`: a truncate is an overwrite,
 * a new version that replaces the table's data and schema.
 */
final class LanceWriteBuilder(table: LanceTable, target: WriteTarget, info: LogicalWriteInfo) extends SupportsTruncate {
  private var overwrite = false

  override def truncate(): WriteBuilder = { overwrite = true; this }

  override def build(): Write = LanceSparkException.boundary(LanceWrite.plan(table, target, overwrite || target.mode == WriteMode.Replace, info.schema()))
}
