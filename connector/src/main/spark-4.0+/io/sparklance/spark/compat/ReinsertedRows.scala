package io.sparklance.spark.compat

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.connector.write.DeltaWriter

/**
 * How an updated row reaches a delta writer with its metadata (its stable row id): Spark 4
 * splits an update into a delete and a reinsert (DeltaWriter.reinsert), handing the reinserted
 * row the metadata columns marked PRESERVE_ON_REINSERT.
 */
object ReinsertedRows {
  val updateAsDeleteAndInsert = true
}

/** A delta writer's row moved by an update (Spark 4: reinsert). */
trait MovesUpdatedRows extends DeltaWriter[InternalRow] {
  protected def move(metadata: InternalRow, row: InternalRow): Unit

  override def reinsert(metadata: InternalRow, row: InternalRow): Unit = move(metadata, row)
}

/** A metadata column that may ask to be handed along with reinserted rows. */
trait KeptOnReinsert extends MetadataColumn {
  protected def keptOnReinsert: Boolean

  override def metadataInJSON(): String = if (keptOnReinsert) s"""{"${MetadataColumn.PRESERVE_ON_REINSERT}":true}""" else null
}
