package io.sparklance.table.maintenance

import scala.collection.mutable.ArrayBuffer

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.VectorSchemaRoot

import io.sparklance.format.LanceSchema
import io.sparklance.format.write.FileWriterOptions
import io.sparklance.storage.ObjectStore
import io.sparklance.table.{DeletionVector, Fragment, FragmentScanner, RowIdSource, ScanTask}
import io.sparklance.table.commit.RowVersionStamps
import io.sparklance.table.proto.{RowIdCodec, RowVersionCodec}
import io.sparklance.table.write.{FragmentWriter, FragmentWriterOptions}
import io.sparklance.util.{Errors, Lookahead}

// Spec: lance-format/lance rust/lance/src/dataset/optimize.rs (rewrite_files,
// recalc_versions_for_rewritten_fragments, rechunk of row id sequences) and the notes on what
// pylance 14 writes after compaction (stable row ids: the rows keep their ids and versions).

/**
 * Rewrites the live rows of one [[CompactionTask]] into new fragments of about the target's
 * rows ([[fileRows]]), with every column of the current schema in schema order
 * (columns of dropped fields are left behind, schema-only columns become real ones, as pylance's
 * compaction does). Runs where the data is: a Spark task on an executor, or the driver.
 */
object FragmentRewriter {

  /**
   * The new fragments (id 0: assigned at commit) for `task`, whose fragments are read through
   * `scans` (one per fragment with rows, from [[io.sparklance.table.ScanPlanner]]). On a table
   * with `stableRowIds` each new fragment carries the row ids of the rows it holds and their
   * created-at and last-updated-at versions, which a rewrite does not change. On failure every
   * file written is removed.
   */
  def rewrite(store: ObjectStore, root: String, schema: LanceSchema, file: FileWriterOptions, targetRows: Long, batchRows: Int,
      task: CompactionTask, scans: IndexedSeq[ScanTask], stableRowIds: Boolean, allocator: BufferAllocator): IndexedSeq[Fragment] = {
    val sizes = fileRows(task.liveRows, targetRows)
    val done = ArrayBuffer.empty[Fragment]
    var writer: FragmentWriter = null
    var room = 0L
    // Each fragment's file footers and deletion file, and the rows of fragments of one batch, are
    // read on a few threads ahead of this one: a group of many small fragments spends most of its
    // time there, one fragment after the other.
    val opened = new Lookahead[ScanTask, Batches](scans, threads = 4, ahead = 16, "lance-compaction-open")(
      scan => Batches.of(new FragmentScanner(store, scan, schema.fields, batchRows, allocator), eager = scan.numRows <= batchRows),
      _.close())
    try {
      opened.foreach { batches =>
        try batches.foreach { batch =>
          try {
            var from = 0
            while (from < batch.getRowCount) {
              if (writer == null) {
                if (done.length == sizes.length)
                  throw Errors.corrupt(root, s"fragments ${task.fragments.map(_.id).mkString(", ")} hold more live rows than the manifest counts (${task.liveRows})")
                writer = new FragmentWriter(store, root, schema, FragmentWriterOptions(file, maxRowsPerFile = sizes(done.length)))
                room = sizes(done.length)
              }
              val n = math.min(room, (batch.getRowCount - from).toLong).toInt
              writer.write(batch, from, n)
              from += n
              room -= n
              if (room == 0) { done ++= writer.finish(); writer = null }
            }
          } finally batch.close()
        }
        finally batches.close()
      }
      if (writer != null) { done ++= writer.finish(); writer = null }
      if (done.map(_.physicalRows).sum != task.liveRows)
        throw Errors.corrupt(root, s"fragments ${task.fragments.map(_.id).mkString(", ")} hold ${done.map(_.physicalRows).sum} live rows " +
          s"but the manifest counts ${task.liveRows}")
      if (stableRowIds) withRowIds(store, task, scans, done.toIndexedSeq) else done.toIndexedSeq
    } catch {
      case t: Throwable =>
        opened.close()
        if (writer != null) writer.abort()
        FragmentWriter.discard(store, root, done.toSeq)
        throw t
    }
  }

  /**
   * The rows of each new fragment of a group of `rows` live rows: as many fragments as the
   * target fits whole in the group (at least one), the rows shared evenly, the first ones taking
   * one more when they do not divide, as pylance 14's compact_files writes them (checked: 836
   * rows at target 400 make 418 + 418, 2,103 at 1,000 make 1,052 + 1,051, 1,400 at 1,000 one).
   */
  def fileRows(rows: Long, target: Long): IndexedSeq[Long] = {
    val n = math.max(1L, rows / target)
    (0L until n).map(i => rows / n + (if (i < rows % n) 1 else 0)).filter(_ > 0)
  }

  /**
   * `written` with the ids and versions of the live rows of `task`'s fragments, in order: the
   * ids of each old fragment's live rows stay one segment of the new sequence (split where a new
   * fragment starts), as Rust rechunks the old sequences (optimize.rs, rechunk_sequences).
   */
  private def withRowIds(store: ObjectStore, task: CompactionTask, scans: IndexedSeq[ScanTask],
      written: IndexedSeq[Fragment]): IndexedSeq[Fragment] = {
    val runs = ArrayBuffer.empty[Array[Long]]
    val created = ArrayBuffer.empty[Long]
    val updated = ArrayBuffer.empty[Long]
    task.fragments.foreach { f =>
      val where = s"fragment ${f.id}"
      val rowIds = f.rowIds match {
        case Some(RowIdSource.Inline(bytes)) => RowIdCodec.decode(bytes, f.physicalRows, s"$where: row ids")
        case Some(RowIdSource.External(_)) => throw Errors.unsupported("compacting fragments whose row ids are in an external file", where)
        case None => throw Errors.corrupt(where, "a table with stable row ids has a fragment without row ids")
      }
      def versions(source: Option[RowIdSource], what: String) = source.collect {
        case RowIdSource.Inline(bytes) => RowVersionCodec.decode(bytes, f.physicalRows, s"$where: $what")
      }
      val createdAt = versions(f.createdAtVersions, "created-at versions")
      val updatedAt = versions(f.lastUpdatedAtVersions, "last-updated-at versions")
      val deleted = scans.find(_.fragmentId == f.id).flatMap(_.deletion)
        .map(d => DeletionVector.read(store, d.path, d.fileType, f.id, f.physicalRows))
      val live = Array.newBuilder[Long]
      var i = 0
      while (i < rowIds.length) {
        if (!deleted.exists(_.contains(i))) {
          live += rowIds(i)
          // A fragment that records no versions: its rows date from the table's first version, as Rust assumes.
          created += createdAt.flatMap(_.at(i.toLong)).getOrElse(RowVersionStamps.UnknownCreatedAt)
          updated += updatedAt.flatMap(_.at(i.toLong)).getOrElse(RowVersionStamps.UnknownCreatedAt)
        }
        i += 1
      }
      runs += live.result()
    }
    var run = 0
    var inRun = 0
    var at = 0
    written.map { f =>
      val n = f.physicalRows.toInt
      val mine = ArrayBuffer.empty[Array[Long]]
      var need = n
      while (need > 0) {
        val take = math.min(need, runs(run).length - inRun)
        mine += runs(run).slice(inRun, inRun + take)
        need -= take
        inRun += take
        if (inRun == runs(run).length) { run += 1; inRun = 0 }
        while (need > 0 && run < runs.length && runs(run).isEmpty) run += 1
      }
      val slice = (a: ArrayBuffer[Long]) => a.slice(at, at + n).toArray
      val out = f.copy(rowIds = Some(RowIdSource.Inline(RowIdCodec.encodeRuns(mine.toSeq))),
        createdAtVersions = Some(RowIdSource.Inline(RowVersionCodec.encode(slice(created)))),
        lastUpdatedAtVersions = Some(RowIdSource.Inline(RowVersionCodec.encode(slice(updated)))))
      at += n
      out
    }
  }

  /** A fragment's batches, read as they are consumed or already read; closing releases those not consumed. */
  private type Batches = Iterator[VectorSchemaRoot] with AutoCloseable

  private object Batches {
    /**
     * The batches of `scanner`; when `eager`, all of them read now (and the scanner closed), so
     * that a fragment of one batch is decoded on the thread that opened it, not by the consumer.
     */
    def of(scanner: FragmentScanner, eager: Boolean): Batches =
      if (!eager) scanner
      else {
        val read = scala.collection.mutable.Queue.empty[VectorSchemaRoot]
        try scanner.foreach(read += _)
        catch { case t: Throwable => read.foreach(_.close()); throw t }
        finally scanner.close()
        new Iterator[VectorSchemaRoot] with AutoCloseable {
          override def hasNext: Boolean = read.nonEmpty
          override def next(): VectorSchemaRoot = read.dequeue()
          override def close(): Unit = { read.foreach(_.close()); read.clear() }
        }
      }
  }
}
