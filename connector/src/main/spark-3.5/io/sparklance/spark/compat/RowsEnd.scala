package io.sparklance.spark.compat

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.DataWriter

/**
 * A data writer told when its task's rows end. Spark 3.5's DataWriter has no writeAll (4.0,
 * SPARK-46452): rows come one by one and the writer first learns they ended at commit(), after
 * Spark read the task's metrics, so on 3.5 a write's SQL metrics leave out the files its tasks
 * finish at commit (the commit and the table are unaffected).
 */
trait RowsEnd extends DataWriter[InternalRow] {
  protected def rowsEnded(): Unit
}
