package io.sparklance.table

import scala.collection.mutable

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{FieldVector, VectorSchemaRoot}

import io.sparklance.format.{DataFileReader, LanceField}
import io.sparklance.format.read.FieldScanner
import io.sparklance.storage.ObjectStore
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/table/index.md (fragments, data files). A
// fragment's columns may be spread over several data files (columns added later); a
// field stored in none of them reads as nulls.

/**
 * Reads the projected top-level `fields` of one scan task in batches of at most
 * `batchRows` rows. Each batch is a new [[VectorSchemaRoot]] owned by the caller.
 */
final class FragmentScanner(
    store: ObjectStore,
    task: ScanTask,
    fields: IndexedSeq[LanceField],
    batchRows: Int,
    allocator: BufferAllocator,
    metadata: IndexedSeq[MetadataColumn] = IndexedSeq.empty) extends Iterator[VectorSchemaRoot] with AutoCloseable {

  require(batchRows > 0, "batchRows must be positive")

  private val openFiles = mutable.LinkedHashMap.empty[String, DataFileReader]
  private var position = task.rowStart

  /** One source per projected field: a scanner, or None for a field stored in no file. */
  private val sources: IndexedSeq[Option[FieldScanner]] =
    try fields.map(openField)
    catch { case t: Throwable => close(); throw t }

  private def openField(field: LanceField): Option[FieldScanner] = {
    // 2.1+ files list leaf ids only; a top-level primitive is its own leaf.
    val ids = field.preOrder.map(_.id).toSet
    task.files.find(f => ids.exists(f.holds)).map { f =>
      val reader = openFiles.getOrElseUpdate(f.path, DataFileReader.open(store, f.path, Some(f.sizeBytes), f.version))
      if (reader.numRows != task.physicalRows)
        throw Errors.corrupt(f.path, s"the file holds ${reader.numRows} rows but fragment ${task.fragmentId} has ${task.physicalRows}")
      val scanner = reader.scan(field, f.columnOf)
      if (task.rowStart > 0) scanner.skip(task.rowStart)
      scanner
    }
  }

  /** Offsets of deleted rows, or null when the fragment has none. */
  private val deleted: org.roaringbitmap.RoaringBitmap =
    task.deletion.map(d => DeletionVector.read(store, d.path, d.fileType, task.fragmentId, task.physicalRows)).orNull

  /** The fragment's stable row ids, decoded when first asked for. */
  private lazy val rowIds: Array[Long] = MetadataColumns.rowIds(store, task)

  /** Rows dropped because they were deleted, so far. */
  private var deletedSkipped = 0L
  def rowsDeleted: Long = deletedSkipped

  /** Bytes read from storage so far. */
  def bytesRead: Long = openFiles.valuesIterator.map(_.bytesRead).sum

  /** Live rows of `[from, until)`, or null when none of them is deleted. */
  private def liveRows(from: Long, until: Long): Array[Long] =
    if (deleted == null || deleted.rangeCardinality(from, until) == 0) null
    else (from until until).filterNot(r => deleted.contains(r.toInt)).toArray

  /** Moves past ranges whose rows are all deleted. */
  private def skipDeleted(): Unit =
    while (position < task.rowEnd && deleted != null) {
      val end = math.min(position + batchRows, task.rowEnd)
      if (deleted.rangeCardinality(position, end) == end - position) {
        sources.foreach(_.foreach(_.skip(end - position)))
        deletedSkipped += end - position
        position = end
      } else return
    }

  override def hasNext: Boolean = { skipDeleted(); position < task.rowEnd }

  override def next(): VectorSchemaRoot = {
    if (!hasNext) throw new NoSuchElementException("no more batches")
    val end = math.min(position + batchRows, task.rowEnd)
    val live = liveRows(position, end)
    if (live == null) {
      val n = (end - position).toInt
      val from = position
      val root = read(_.next(n, allocator), n, Array.range(0, n).map(from + _))
      position = end
      root
    } else {
      // Read only the live rows; the scanners then step over the deleted tail.
      val root = read(_.take(live, allocator), live.length, live)
      val tail = end - (live.last + 1)
      if (tail > 0) sources.foreach(_.foreach(_.skip(tail)))
      deletedSkipped += (end - position) - live.length
      position = end
      root
    }
  }

  /**
   * One batch of the rows at physical `offsets`, each field read by `readField`, nulls for
   * fields no file stores, then the metadata columns.
   */
  private def read(readField: FieldScanner => FieldVector, n: Int, offsets: => Array[Long]): VectorSchemaRoot = {
    val vectors = new java.util.ArrayList[FieldVector](fields.length + metadata.length)
    try {
      fields.indices.foreach { i =>
        val v = sources(i).map(readField).getOrElse(NullColumns.vector(fields(i), n, allocator))
        vectors.add(v)
        if (v.getValueCount != n)
          throw Errors.corrupt(task.files.headOption.map(_.path).getOrElse(s"fragment ${task.fragmentId}"),
            s"field '${fields(i).name}' returned ${v.getValueCount} rows where $n were expected")
      }
      metadata.foreach(m => vectors.add(MetadataColumns.vector(m, task, offsets, rowIds, allocator)))
    } catch { case t: Throwable => vectors.forEach(_.close()); throw t }
    val root = new VectorSchemaRoot(vectors)
    root.setRowCount(n)
    root
  }

  /**
   * The rows at the given physical offsets of the fragment (ascending, within the task's
   * range, none before what was already read) as one batch; only the pages holding them
   * are decoded.
   */
  def take(offsets: Array[Long]): VectorSchemaRoot = {
    offsets.foreach { o =>
      if (o < position || o >= task.rowEnd)
        throw Errors.invalidArgument(s"row offset $o is outside [$position, ${task.rowEnd}) of fragment ${task.fragmentId}")
    }
    if (offsets.indices.exists(i => i > 0 && offsets(i) <= offsets(i - 1)))
      throw Errors.invalidArgument("row offsets to take must be strictly ascending")
    // Deleted rows are not returned.
    val live = if (deleted == null) offsets else offsets.filterNot(o => deleted.contains(o.toInt))
    val root = read(_.take(live, allocator), live.length, live)
    if (live.nonEmpty) position = live.last + 1
    root
  }

  override def close(): Unit = {
    openFiles.valuesIterator.foreach(_.close())
    openFiles.clear()
  }
}
