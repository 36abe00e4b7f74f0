package io.sparklance.table

import scala.collection.mutable

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{FieldVector, VectorSchemaRoot}

import io.sparklance.format.{DataFileReader, FieldScanner, LanceField}
import io.sparklance.storage.ObjectStore
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/table/index.md (fragments, data files). A
// fragment's columns may be spread over several data files (columns added later); a
// field stored in none of them reads as nulls.

/**
 * Reads the projected top-level `fields` of one scan task in batches of at most
 * `batchRows` rows. Each batch is a new [[VectorSchemaRoot]] owned by the caller. With a
 * `predicate`, row ranges that the page statistics of legacy (0.1) data files rule out are
 * skipped; the engine still filters the rows returned. Blob columns read as descriptors, or
 * as their bytes under [[BlobMode.Bytes]].
 */
final class FragmentScanner(
    store: ObjectStore,
    task: ScanTask,
    fields: IndexedSeq[LanceField],
    batchRows: Int,
    allocator: BufferAllocator,
    metadata: IndexedSeq[MetadataColumn] = IndexedSeq.empty,
    predicate: Option[expr.Expr] = None,
    blobs: BlobMode = BlobMode.Descriptors) extends Iterator[VectorSchemaRoot] with AutoCloseable {

  require(batchRows > 0, "batchRows must be positive")
  // Checked before anything is opened, so that a bad task leaves nothing to close.
  task.selection.foreach { s =>
    if (s.isEmpty || (s.first() & 0xffffffffL) < task.rowStart || (s.last() & 0xffffffffL) >= task.rowEnd)
      throw Errors.invalidArgument(s"the selected rows of fragment ${task.fragmentId} are not inside [${task.rowStart}, ${task.rowEnd})")
  }

  private val openFiles = mutable.LinkedHashMap.empty[String, DataFileReader]
  private var position = task.rowStart

  /** One source per projected field: a scanner, or None for a field stored in no file. */
  private val sources = mutable.ArrayBuffer.empty[Option[FieldScanner]]
  try fields.foreach(f => sources += openField(f))
  catch { case t: Throwable => close(); throw t }

  private def openField(field: LanceField): Option[FieldScanner] = {
    // 2.1+ files list leaf ids only; a top-level primitive is its own leaf.
    val ids = field.preOrder.map(_.id).toSet
    task.files.find(f => ids.exists(f.holds)).map { f =>
      val reader = openFiles.getOrElseUpdate(f.path, DataFileReader.open(store, f.path, Some(f.sizeBytes), f.version, sparse = task.selection.isDefined))
      if (reader.numRows != task.physicalRows)
        throw Errors.corrupt(f.path, s"the file holds ${reader.numRows} rows but fragment ${task.fragmentId} has ${task.physicalRows}")
      val descriptors = reader.scan(field, f.columnOf)
      val scanner = blobs match {
        case bytes: BlobMode.Bytes if field.blobVersion.isDefined => BlobFetch.bytes(descriptors, store, f.path, bytes)
        case _ => descriptors
      }
      if (task.rowStart > 0) scanner.skip(task.rowStart)
      scanner
    }
  }

  /** Offsets of deleted rows, or null when the fragment has none. A damaged file closes what is open. */
  private val deleted: org.roaringbitmap.RoaringBitmap =
    try task.deletion.map(d => DeletionVector.read(store, d.path, d.fileType, task.fragmentId, task.physicalRows)).orNull
    catch { case t: Throwable => close(); throw t }

  /** Ranges no row of which can match the predicate, sorted and disjoint, within the task. */
  private val pruned: IndexedSeq[(Long, Long)] = try predicate.fold(IndexedSeq.empty[(Long, Long)]) { p =>
    val ranges = openFiles.valuesIterator.collect { case r: io.sparklance.format.legacy.LegacyFileReader => r }
      .flatMap(r => PageStatsPruning.skippable(r, fields, p)).toIndexedSeq
      .map { case (a, b) => (math.max(a, task.rowStart), math.min(b, task.rowEnd)) }.filter { case (a, b) => b > a }.sorted
    ranges.foldLeft(IndexedSeq.empty[(Long, Long)]) { (acc, r) =>
      if (acc.nonEmpty && r._1 <= acc.last._2) acc.init :+ ((acc.last._1, math.max(acc.last._2, r._2))) else acc :+ r
    }
  } catch { case t: Throwable => close(); throw t }
  private var nextPruned = 0

  /** Rows skipped because page statistics ruled them out, so far. */
  private var prunedSkipped = 0L
  def rowsPruned: Long = prunedSkipped

  /** The fragment's stable row ids, decoded when first asked for. */
  private lazy val rowIds: Array[Long] = MetadataColumns.rowIds(store, task)

  /** Rows dropped because they were deleted, so far. */
  private var deletedSkipped = 0L
  def rowsDeleted: Long = deletedSkipped

  /**
   * The live offsets of the task's selection not yet read, or null when the task reads a
   * whole row range. Deleted offsets are dropped (and counted) up front.
   */
  private val selected: org.roaringbitmap.IntIterator = task.selection.map { s =>
    val live = if (deleted == null) s else org.roaringbitmap.RoaringBitmap.andNot(s, deleted)
    deletedSkipped += s.getLongCardinality - live.getLongCardinality
    live.getIntIterator
  }.orNull

  /** Bytes read from storage so far. */
  def bytesRead: Long = openFiles.valuesIterator.map(_.bytesRead).sum

  /** The positions of the live rows of `[from, until)` counted from `from`, or null when none of them is deleted. */
  private def liveRows(from: Long, until: Long): Array[Int] =
    if (deleted == null || deleted.rangeCardinality(from, until) == 0) null
    else {
      val live = new Array[Int]((until - from - deleted.rangeCardinality(from, until)).toInt)
      val gone = deleted.getIntIterator
      gone.advanceIfNeeded(from.toInt)
      var (r, k) = (from, 0)
      while (r < until) {
        val nextDeleted = if (gone.hasNext) math.min(gone.peekNext() & 0xffffffffL, until) else until
        while (r < nextDeleted) { live(k) = (r - from).toInt; k += 1; r += 1 }
        if (r < until) { gone.next(); r += 1 }
      }
      live
    }

  /** Where the next batch must stop: its size, the task's end or the next pruned range. */
  private def batchEnd: Long = {
    val end = math.min(position + batchRows, task.rowEnd)
    if (nextPruned < pruned.length) math.min(end, pruned(nextPruned)._1) else end
  }

  private def skipTo(end: Long): Unit = {
    sources.foreach(_.foreach(_.skip(end - position)))
    position = end
  }

  /** Moves past ranges ruled out by page statistics and ranges whose rows are all deleted. */
  private def skipUnneeded(): Unit = {
    var moved = true
    while (moved && position < task.rowEnd) {
      moved = false
      while (nextPruned < pruned.length && pruned(nextPruned)._2 <= position) nextPruned += 1
      if (nextPruned < pruned.length && pruned(nextPruned)._1 <= position) {
        prunedSkipped += pruned(nextPruned)._2 - position
        skipTo(pruned(nextPruned)._2)
        moved = true
      } else if (deleted != null) {
        val end = batchEnd
        if (deleted.rangeCardinality(position, end) == end - position) {
          deletedSkipped += end - position
          skipTo(end)
          moved = true
        }
      }
    }
  }

  override def hasNext: Boolean =
    if (selected != null) selected.hasNext else { skipUnneeded(); position < task.rowEnd }

  override def next(): VectorSchemaRoot = {
    if (!hasNext) throw new NoSuchElementException("no more batches")
    if (selected != null) return nextSelected()
    val end = batchEnd
    val live = liveRows(position, end)
    val n = (end - position).toInt
    val from = position
    val root = read(_.next(n, allocator), n, Array.range(0, n).map(from + _))
    position = end
    if (live == null) root
    else {
      // Decoded whole, then the live rows copied out (BatchSelection says why).
      deletedSkipped += n - live.length
      BatchSelection.select(root, live, allocator)
    }
  }

  /** The next (up to) `batchRows` selected rows; only the pages and chunks holding them are decoded. */
  private def nextSelected(): VectorSchemaRoot = {
    val batch = Array.newBuilder[Long]
    var n = 0
    while (n < batchRows && selected.hasNext) { batch += selected.next() & 0xffffffffL; n += 1 }
    val offsets = batch.result()
    val root = read(_.take(offsets, allocator), offsets.length, offsets)
    position = offsets.last + 1
    root
  }

  /**
   * One batch of the rows at physical `offsets`, each field read by `readField`, nulls for
   * fields no file stores, then the metadata columns.
   */
  private def read(readField: FieldScanner => FieldVector, n: Int, offsets: => Array[Long]): VectorSchemaRoot = {
    val vectors = new java.util.ArrayList[FieldVector](fields.length + metadata.length)
    try {
      fields.indices.foreach { i =>
        val v = sources(i).map(readField).getOrElse(NullColumns.vector(fields(i), n, allocator, blobs))
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
    sources.foreach(_.foreach { case c: AutoCloseable => c.close(); case _ => })
    sources.clear()
    openFiles.valuesIterator.foreach(_.close())
    openFiles.clear()
  }
}
