package io.sparklance.spark.compat

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.DataWriter

/**
 * A data writer told when its task's rows end: Spark 4's DataWriter.writeAll (SPARK-46452) hands
 * a task's rows at once and reads the task's metrics after it returns and before commit(), so
 * finishing the files there lets the last file's rows and bytes count.
 */
trait RowsEnd extends DataWriter[InternalRow] {
  protected def rowsEnded(): Unit

  override def writeAll(records: java.util.Iterator[InternalRow]): Unit = {
    super.writeAll(records)
    rowsEnded()
  }
}
