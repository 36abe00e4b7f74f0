package io.sparklance.format.legacy

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.FieldVector

import io.sparklance.format.arrow.ArrowVectors
import io.sparklance.format.{FieldScanner, LanceField}
import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance-file/src/previous/format/metadata.rs (batch offsets). Rows
// of a legacy file are split into batches, each field having one page per batch; a scan request
// may start inside one batch and end in another, so it is served batch by batch and the pieces
// are built into one vector.

/** Reads top-level `field` of a legacy file front to back. */
private[legacy] final class LegacyFieldScanner(file: LegacyFileReader, val field: LanceField) extends FieldScanner {
  private val where = s"${file.path}, field '${field.name}'"

  // The dataset schema names the field; the file's own schema must agree on every id and type.
  field.preOrder.foreach { f =>
    file.fileSchema.schema.byId.get(f.id) match {
      case None => throw Errors.corrupt(file.path, s"field '${f.name}' (id ${f.id}) is not stored in this legacy data file")
      case Some(stored) if stored.logicalType != f.logicalType =>
        throw Errors.corrupt(file.path, s"field '${f.name}' (id ${f.id}) is '${f.logicalType}' in the dataset but '${stored.logicalType}' in the file")
      case _ =>
    }
  }

  private val arrowField = field.toArrow(where)
  private val column = ColumnReader.forField(file.source, file.pageTable, field, file.fileSchema.dictionaries.get, file.path)
  private var position = 0L
  private var batch = 0

  override def skip(n: Long): Unit = if (n > 0) position = math.min(file.numRows, position + n)

  override def next(n: Int, allocator: BufferAllocator): FieldVector = {
    val total = math.max(math.min(n.toLong, file.numRows - position), 0L).toInt
    build(total, allocator) {
      var left = total
      while (left > 0) {
        val k = readRun(left)
        left -= k
      }
    }
  }

  /**
   * The given rows (ascending, none before the rows already read) as one vector; runs of
   * consecutive rows are decoded together and the rows between them are never read.
   */
  override def take(rows: Array[Long], allocator: BufferAllocator): FieldVector = {
    var prev = position - 1
    rows.foreach { r =>
      if (r <= prev || r >= file.numRows)
        throw Errors.invalidArgument(s"$where: row $r cannot be taken after row $prev of ${file.numRows} (rows must ascend)")
      prev = r
    }
    build(rows.length, allocator) {
      var i = 0
      while (i < rows.length) {
        var run = 1
        while (i + run < rows.length && rows(i + run) == rows(i) + run) run += 1
        position = rows(i)
        var left = run
        while (left > 0) left -= readRun(left)
        i += run
      }
    }
  }

  /** Appends up to `max` rows from the current position, within one batch; returns how many. */
  private def readRun(max: Int): Int = {
    while (file.batchEnd(batch) <= position) batch += 1
    val k = math.min(max.toLong, file.batchEnd(batch) - position).toInt
    column.read(batch, (position - file.batchStart(batch)).toInt, k)
    position += k
    k
  }

  private def build(total: Int, allocator: BufferAllocator)(fill: => Unit): FieldVector = {
    val builder = column.builder
    builder.clear()
    try {
      fill
      if (builder.count != total)
        throw Errors.corrupt(file.path, s"field '${field.name}' decoded ${builder.count} rows where $total were expected")
      val vector = ArrowVectors.create(arrowField, allocator)
      try builder.load(vector, allocator, where)
      catch { case t: Throwable => vector.close(); throw t }
      vector
    } finally builder.clear()
  }
}
