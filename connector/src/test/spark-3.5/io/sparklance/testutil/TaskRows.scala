package io.sparklance.testutil

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.DataWriter

/** Hands a task's rows to a data writer as Spark 3.5 does: one by one (no writeAll before 4.0). */
object TaskRows {
  def write(w: DataWriter[InternalRow], rows: Iterator[InternalRow]): Unit = rows.foreach(w.write)
}
