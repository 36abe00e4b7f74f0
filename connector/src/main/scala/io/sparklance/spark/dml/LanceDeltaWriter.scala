package io.sparklance.spark.dml

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.{DeltaWriter, DeltaWriterFactory, WriterCommitMessage}
import org.roaringbitmap.RoaringBitmap

import io.sparklance.spark.LanceSparkException
import io.sparklance.spark.compat.MovesUpdatedRows
import io.sparklance.spark.write.{InsertedKeyColumns, LanceDataWriter, LanceDataWriterFactory}
import io.sparklance.table.{DeletionVector, Fragment}
import io.sparklance.table.write.{InsertedKeys, MovedRows}

/**
 * What one task of a DELETE, UPDATE or MERGE did: the rows it deleted, by fragment (offsets as
 * portable roaring bitmaps), the new fragments holding the rows it wrote (updated rows written
 * again, and inserted ones), and for a MERGE on a primary key the keys it inserted (the bits of
 * an [[InsertedKeys]] filter).
 */
final case class DeltaCommitMessage(deleted: Map[Long, Array[Byte]], fragments: IndexedSeq[Fragment],
    insertedKeys: Option[Array[Byte]] = None) extends WriterCommitMessage

object DeltaCommitMessage {
  /** The offsets of every (fragment, serialized offsets) part, by fragment. */
  def union(parts: Iterator[(Long, Array[Byte])]): Map[Long, RoaringBitmap] =
    parts.toSeq.groupBy(_._1).map { case (id, ps) =>
      id -> RoaringBitmap.or(ps.map(p => DeletionVector.fromBytes("a task's deleted rows", p._2)): _*)
    }
}

/** Row addresses (fragment id in the high 32 bits, offset in the low 32) collected by fragment. */
final class RowAddresses {
  private val byFragment = mutable.LongMap.empty[RoaringBitmap]

  def add(address: Long): Unit = byFragment.getOrElseUpdate(address >>> 32, new RoaringBitmap()).add(address.toInt)

  /** The offsets by fragment, serialized for a message to the driver. */
  def serialized: Map[Long, Array[Byte]] = byFragment.iterator.map { case (f, b) => f -> DeletionVector.toBytes(b) }.toMap
}

/**
 * The executors' writers of a row-level operation: rows to write (none for a DELETE) go through
 * the append writer. `keepRowIds`: the table has stable row ids, which updated rows keep (Spark
 * hands each with its `_rowid` as the first metadata value). `keys`: the primary key of a MERGE
 * whose inserted keys are recorded.
 */
final case class LanceDeltaWriterFactory(rows: Option[LanceDataWriterFactory], keepRowIds: Boolean,
    keys: Option[InsertedKeyColumns] = None) extends DeltaWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DeltaWriter[InternalRow] =
    LanceSparkException.boundary(new LanceDeltaWriter(rows, keepRowIds, keys))
}

/**
 * One task of a row-level operation. Spark hands it the row address (`_rowaddr`, fragment id in
 * the high 32 bits, offset in the low 32) of every row to delete, and the rows to write: updated
 * rows are deleted and written again (Lance's Update with REWRITE_ROWS), inserted rows written.
 * Deletions are only collected here; the driver writes the deletion files when it commits.
 */
final class LanceDeltaWriter(rows: Option[LanceDataWriterFactory], keepRowIds: Boolean, keys: Option[InsertedKeyColumns] = None)
    extends MovesUpdatedRows {
  private val deleted = new RowAddresses
  private val inserted = keys.map(_ => new InsertedKeys())
  private val written = rows.map(new LanceDataWriter(_))
  // Updated rows of a table with stable row ids, in fragments of their own that keep their ids.
  private val moved = rows.filter(_ => keepRowIds).map(new LanceDataWriter(_))
  private val movedIds = new mutable.ArrayBuilder.ofLong

  override def delete(metadata: InternalRow, id: InternalRow): Unit = deleted.add(id.getLong(0))

  // Only Spark 3.5 hands updates whole (compat.ReinsertedRows); Spark 4 splits them into delete and reinsert.
  override def update(metadata: InternalRow, id: InternalRow, row: InternalRow): Unit = {
    delete(metadata, id)
    move(metadata, row)
  }

  /** A new row: its key recorded, where the MERGE records them. */
  override def insert(row: InternalRow): Unit = {
    inserted.foreach(k => keys.get.add(row, k))
    writeRow(row)
  }

  private def writeRow(row: InternalRow): Unit =
    written.getOrElse(throw new IllegalStateException("a DELETE writes no rows")).write(row)

  /** An updated row written again: with its row id, where the table keeps them. */
  override protected def move(metadata: InternalRow, row: InternalRow): Unit = moved match {
    case Some(w) =>
      movedIds += metadata.getLong(0)
      w.write(row)
    case None => writeRow(row)
  }

  override def commit(): WriterCommitMessage = {
    val fragments = written.fold(IndexedSeq.empty[Fragment])(_.commit().fragments) ++
      moved.fold(IndexedSeq.empty[Fragment])(w => MovedRows.withRowIds(w.commit().fragments, movedIds.result()))
    DeltaCommitMessage(deleted.serialized, fragments, inserted.map(_.bitmap))
  }

  override def abort(): Unit = { written.foreach(_.abort()); moved.foreach(_.abort()) }

  override def close(): Unit = { written.foreach(_.close()); moved.foreach(_.close()) }
}
