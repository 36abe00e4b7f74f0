package io.sparklance.spark.compat

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.connector.write.DeltaWriter

/**
 * How an updated row reaches a delta writer with its metadata (its stable row id). Spark 3.5's
 * DeltaWriter has no reinsert and its metadata columns no PRESERVE_ON_REINSERT (both 4.0): an
 * update split into a delete and an insert would lose the row's id, so on 3.5 updates come
 * whole, to update(metadata, id, row).
 */
object ReinsertedRows {
  val updateAsDeleteAndInsert = false
}

/** A delta writer's row moved by an update (Spark 3.5: called from update()). */
trait MovesUpdatedRows extends DeltaWriter[InternalRow] {
  protected def move(metadata: InternalRow, row: InternalRow): Unit
}

/** A metadata column; on Spark 3.5 none can ask to be handed along with reinserted rows. */
trait KeptOnReinsert extends MetadataColumn {
  protected def keptOnReinsert: Boolean
}
