package io.sparklance.spark.write

import org.apache.arrow.memory.{BufferAllocator, RootAllocator}
import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.{InternalRow, ProjectingInternalRow}
import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.write.{DataWriter, DataWriterFactory, WriterCommitMessage}
import org.apache.spark.sql.types.StructType

import io.sparklance.format.LanceSchema
import io.sparklance.spark.compat.RowsEnd
import io.sparklance.spark.{LanceMetrics, LanceSparkException}
import io.sparklance.storage.ObjectStoreFactory
import io.sparklance.table.Fragment
import io.sparklance.table.write.{FragmentWriter, FragmentWriterOptions, InsertedKeys, ZoneMapBuilder, ZoneMapTarget}

/**
 * Serializable, already-decided inputs of the executors' writers: the table's schema (field ids
 * assigned), the rows' schema as Spark hands them, for each table field the input column that
 * holds it (a DataFrame's columns may come in any order), the zone map indices whose zones
 * the writers compute (empty: none), the condition every row must satisfy, if any, and the
 * key columns whose values an insert-only MERGE records ([[InsertedKeyColumns]]), if any.
 */
final case class LanceDataWriterFactory(
    stores: ObjectStoreFactory,
    root: String,
    schema: LanceSchema,
    input: StructType,
    ordinals: IndexedSeq[Int],
    files: FragmentWriterOptions,
    batchRows: Int,
    batchBytes: Long,
    taskMemoryBytes: Long,
    zoneMaps: IndexedSeq[ZoneMapTarget] = IndexedSeq.empty,
    condition: Option[RowCondition] = None,
    keys: Option[InsertedKeyColumns] = None)
    extends DataWriterFactory {

  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] =
    LanceSparkException.boundary(new LanceDataWriter(this))
}

/**
 * Writes one task's rows as fragments: rows are converted into Arrow batches, cut at
 * `batchRows` rows or `batchBytes` bytes, and handed to a [[FragmentWriter]], which rolls to a
 * new data file at the file limits. `commit` sends the fragments to the driver; `abort`
 * removes every file this attempt wrote (a failed, retried or speculative attempt's files
 * never reach a commit).
 */
final class LanceDataWriter(factory: LanceDataWriterFactory) extends DataWriter[InternalRow] with RowsEnd {
  private val where = WritePlan.where(factory.root)
  private val allocator: BufferAllocator = new RootAllocator(factory.taskMemoryBytes)
  private var closed = false
  Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => close()))

  private val reordered = factory.ordinals != factory.input.fields.indices
  /** The rows in the table's column order, when the DataFrame's differs. */
  private val projection: ProjectingInternalRow =
    if (reordered) ProjectingInternalRow(StructType(factory.ordinals.map(factory.input.fields(_))), factory.ordinals) else null
  private val rows = new RowsToArrow(factory.schema.toArrowForWrite(where), if (reordered) projection.schema else factory.input,
    allocator, where)
  private val files = new FragmentWriter(factory.stores.create(), factory.root, factory.schema, factory.files,
    if (factory.zoneMaps.isEmpty) None else Some(new ZoneMapBuilder(factory.zoneMaps)),
    Option(TaskContext.get()).fold(0)(_.partitionId())) // tasks start their round of the target bases at different bases

  private val inserted = factory.keys.map(_ => new InsertedKeys())

  override def write(row: InternalRow): Unit = LanceSparkException.boundary {
    factory.condition.foreach(_.check(row))
    inserted.foreach(factory.keys.get.add(row, _))
    if (reordered) { projection.project(row); rows.append(projection) } else rows.append(row)
    if (rows.rowCount >= factory.batchRows || rows.bufferedBytes >= factory.batchBytes) files.write(rows.flush())
  }

  // Spark reads a task's metrics after the last row and before commit(): the files are finished
  // once the rows end, so that the last file's bytes count (compat.RowsEnd: not on Spark 3.5).
  override protected def rowsEnded(): Unit = finish()

  override def commit(): LanceCommitMessage = LanceCommitMessage(finish(), files.zoneMapsWritten, inserted.map(_.bitmap))

  private var fragments: IndexedSeq[Fragment] = _

  private def finish(): IndexedSeq[Fragment] = LanceSparkException.boundary {
    if (fragments == null) {
      if (rows.rowCount > 0) files.write(rows.flush())
      fragments = files.finish()
    }
    fragments
  }

  override def abort(): Unit = files.abort()

  override def currentMetricsValues(): Array[CustomTaskMetric] = Array(
    LanceMetrics.task(LanceMetrics.RowsWritten, files.rowsWritten),
    LanceMetrics.task(LanceMetrics.FilesWritten, files.filesWritten),
    LanceMetrics.task(LanceMetrics.BytesWritten, files.bytesWritten))

  // Also called by the task completion listener, possibly before the fields above are set
  // (a constructor that failed), hence the null check.
  override def close(): Unit = if (!closed) {
    closed = true
    try if (rows != null) rows.close() finally allocator.close()
  }
}

/** The writers of a write that is already in the table: they take the rows and write nothing. */
object SkippingWriterFactory extends DataWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] = new DataWriter[InternalRow] {
    override def write(row: InternalRow): Unit = ()
    override def commit(): WriterCommitMessage = LanceCommitMessage(IndexedSeq.empty)
    override def abort(): Unit = ()
    override def close(): Unit = ()
  }
}
