package io.sparklance.spark.write

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.VectorSchemaRoot
import org.apache.arrow.vector.types.pojo.Schema
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType

import io.sparklance.format.arrow.ArrowVectors
import io.sparklance.util.Errors

// Spark rows into Arrow batches of a Lance table's Arrow schema (LanceSchema.toArrowForWrite):
// the inverse of the read mapping (spark.SparkArrow), so a column keeps its Lance type however
// Spark shows it. Shaped as Spark's own ArrowWriter (sql/core .../execution/arrow/ArrowWriter.scala):
// one writer per field, chosen once from the (Arrow type, Spark type) pair, each appending
// values to its vector with a typed call and no allocation for fixed-width values; the vectors
// are reset, keeping their buffers, after each batch. Unlike Spark's, a value the Lance type
// cannot hold is an error, never a silent null (see FieldWriters for the rules per type).

/**
 * Converts Spark rows of `input` into Arrow batches of `target`, column `i` of `input` into
 * field `i` of `target`. `where` names the write in errors. Not thread-safe; one per task.
 */
final class RowsToArrow(target: Schema, input: StructType, allocator: BufferAllocator, where: String = "the Lance write")
    extends AutoCloseable {

  if (target.getFields.size != input.length)
    throw Errors.invalidArgument(
      s"$where: the rows have ${input.length} columns (${input.fieldNames.mkString(", ")}) but the table has " +
        s"${target.getFields.size} (${target.getFields.asScala.map(_.getName).mkString(", ")}); select the table's columns in its order")

  private val root = ArrowVectors.root(target, allocator)
  private val context = new WriteContext(where)
  private val writers: Array[FieldWriter] =
    try target.getFields.asScala.indices.map { i =>
      FieldWriters.create(root.getVector(i), input.fields(i).dataType, input.fields(i).name, context)
    }.toArray
    catch { case t: Throwable => root.close(); throw t }

  private var rows = 0
  private var converted = 0L
  private var flushed = false

  /** Appends one row (its values are copied; the row may be reused by the caller afterwards). */
  def append(row: InternalRow): Unit = {
    if (flushed) reset()
    context.row = converted
    var i = 0
    while (i < writers.length) { writers(i).write(row, i); i += 1 }
    rows += 1
    converted += 1
  }

  /** Rows appended since the last flush. */
  def rowCount: Int = if (flushed) 0 else rows

  /** About how many bytes of values are buffered (validity bits not counted): to cut batches by size. */
  def bufferedBytes: Long = if (flushed) 0L else context.bytes

  /** The rows appended since the last flush, as a batch valid until the next append (or close). */
  def flush(): VectorSchemaRoot = {
    if (flushed) reset()
    writers.foreach(_.finish())
    root.setRowCount(rows)
    flushed = true
    root
  }

  override def close(): Unit = root.close()

  private def reset(): Unit = {
    writers.foreach(_.reset())
    rows = 0
    context.bytes = 0L
    flushed = false
  }
}

/** What every field writer of one converter shares: the write's name, the row being written, the bytes buffered. */
private[write] final class WriteContext(val where: String) {
  var row: Long = 0L
  var bytes: Long = 0L
}
