package io.sparklance.spark

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.{BufferAllocator, RootAllocator}
import org.apache.arrow.vector.{FieldVector, VectorSchemaRoot}
import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

import io.sparklance.format.LanceField
import io.sparklance.spark.columns.ArrowColumns
import io.sparklance.storage.ObjectStoreFactory
import io.sparklance.table.{BlobMode, FragmentScanner, MetadataColumn}

/** Serializable, already-parsed inputs of the executors' readers. */
final case class LanceReaderFactory(
    stores: ObjectStoreFactory,
    fields: IndexedSeq[LanceField],
    metadata: IndexedSeq[MetadataColumn],
    batchSize: Int,
    taskMemoryBytes: Long,
    predicate: Option[io.sparklance.table.expr.Expr],
    blobs: BlobMode,
    timeType: Boolean)
    extends PartitionReaderFactory {

  override def supportColumnarReads(partition: InputPartition): Boolean = true

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    throw new UnsupportedOperationException("the Lance source only produces columnar batches")

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] =
    LanceSparkException.boundary(new LanceColumnarReader(partition.asInstanceOf[LanceInputPartition], this))
}

/**
 * Reads one input partition as Arrow-backed columnar batches. Each batch stays valid until
 * the next call to `next()` (its columns read the Arrow memory in place); everything is
 * released on `close()`, which Spark calls at the end of the task (and which a task
 * completion listener guarantees).
 */
final class LanceColumnarReader(partition: LanceInputPartition, factory: LanceReaderFactory)
    extends PartitionReader[ColumnarBatch] {

  private val allocator: BufferAllocator = new RootAllocator(factory.taskMemoryBytes)
  private val store = factory.stores.create()
  private val pending = scala.collection.mutable.Queue(partition.tasks: _*)
  private var scanner: FragmentScanner = null
  /** The data files of the scanner's task, named in errors about its batches. */
  private var source: String = ""
  private var bytesRead = 0L
  private var rowsDeleted = 0L
  private var rowsPruned = 0L
  private var fragments = 0L
  private var current: VectorSchemaRoot = null
  private var batch: ColumnarBatch = null
  private var closed = false

  Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => close()))

  /** The scanner of the next task that has rows left, or null at the end. */
  private def nextScanner(): FragmentScanner = {
    while (scanner == null || !scanner.hasNext) {
      if (scanner != null) closeScanner()
      if (pending.isEmpty) return null
      val task = pending.dequeue()
      source = task.files.map(_.path).mkString(", ")
      scanner = new FragmentScanner(store, task, factory.fields, factory.batchSize, allocator, factory.metadata, factory.predicate,
        factory.blobs)
      fragments += 1
    }
    scanner
  }

  private def closeScanner(): Unit = {
    bytesRead += scanner.bytesRead
    rowsDeleted += scanner.rowsDeleted
    rowsPruned += scanner.rowsPruned
    scanner.close()
    scanner = null
  }

  override def currentMetricsValues(): Array[CustomTaskMetric] = {
    val live = if (scanner == null) (0L, 0L, 0L) else (scanner.bytesRead, scanner.rowsDeleted, scanner.rowsPruned)
    Array(
      LanceMetrics.task(LanceMetrics.BytesRead, bytesRead + live._1),
      LanceMetrics.task(LanceMetrics.RowsDeleted, rowsDeleted + live._2),
      LanceMetrics.task(LanceMetrics.RowsPruned, rowsPruned + live._3),
      LanceMetrics.task(LanceMetrics.FragmentsRead, fragments),
      LanceMetrics.task(LanceMetrics.ArrowPeak, allocator.getPeakMemoryAllocation))
  }

  override def next(): Boolean = LanceSparkException.boundary {
    releaseCurrent()
    val s = nextScanner()
    if (s == null) false
    else {
      val root = s.next()
      // Vectors whose values are not Spark's are converted (and the originals released).
      val originals = root.getFieldVectors.asScala.toList
      val converted = scala.collection.mutable.ListBuffer.empty[FieldVector]
      try originals.foreach(v => converted += SparkArrow.convert(v, allocator, factory.timeType))
      catch { case t: Throwable => originals.drop(converted.length + 1).foreach(_.close()); converted.foreach(_.close()); throw t }
      val vectors = converted.toList
      current = new VectorSchemaRoot(vectors.asJava)
      current.setRowCount(root.getRowCount)
      val columns: Array[ColumnVector] = vectors.map(ArrowColumns.of(_, source)).toArray
      batch = new ColumnarBatch(columns, current.getRowCount)
      true
    }
  }

  override def get(): ColumnarBatch = batch

  private def releaseCurrent(): Unit = {
    if (current != null) { current.close(); current = null; batch = null }
  }

  override def close(): Unit = if (!closed) LanceSparkException.boundary {
    closed = true
    releaseCurrent()
    if (scanner != null) closeScanner()
    allocator.close()
  }
}
