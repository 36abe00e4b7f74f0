package io.sparklance.testutil

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.DataWriter

/** Hands a task's rows to a data writer as Spark 4 does: all at once (writeAll). */
object TaskRows {
  def write(w: DataWriter[InternalRow], rows: Iterator[InternalRow]): Unit = w.writeAll(rows.asJava)
}
