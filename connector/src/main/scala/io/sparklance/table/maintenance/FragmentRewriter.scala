package io.sparklance.table.maintenance

import scala.collection.mutable.ArrayBuffer

import org.apache.arrow.memory.BufferAllocator

import io.sparklance.format.LanceSchema
import io.sparklance.storage.ObjectStore
import io.sparklance.table.{DeletionVector, Fragment, FragmentScanner, RowIdSource, ScanTask}
import io.sparklance.table.commit.RowVersionStamps
import io.sparklance.table.proto.{RowIdCodec, RowVersionCodec}
import io.sparklance.table.write.{FragmentWriter, FragmentWriterOptions}
import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance/src/dataset/optimize.rs (rewrite_files,
// recalc_versions_for_rewritten_fragments, rechunk of row id sequences) and the notes on what
// pylance 14 writes after compaction (stable row ids: the rows keep their ids and versions).

/**
 * Rewrites the live rows of one [[CompactionTask]] into new fragments of at most
 * `options.targetRowsPerFragment` rows, with every column of the current schema in schema order
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
  def rewrite(store: ObjectStore, root: String, schema: LanceSchema, files: FragmentWriterOptions, batchRows: Int,
      task: CompactionTask, scans: IndexedSeq[ScanTask], stableRowIds: Boolean, allocator: BufferAllocator): IndexedSeq[Fragment] = {
    if (schema.fields.exists(_.preOrder.exists(_.blobVersion.isDefined)))
      throw Errors.unsupported("compacting a table with blob columns", root)
    val writer = new FragmentWriter(store, root, schema, files)
    val written = try {
      scans.foreach { scan =>
        val scanner = new FragmentScanner(store, scan, schema.fields, batchRows, allocator)
        try scanner.foreach { batch => try writer.write(batch) finally batch.close() }
        finally scanner.close()
      }
      writer.finish()
    } catch { case t: Throwable => writer.abort(); throw t }
    if (written.map(_.physicalRows).sum != task.liveRows) {
      FragmentWriter.discard(store, root, written)
      throw Errors.corrupt(root, s"fragments ${task.fragments.map(_.id).mkString(", ")} hold ${written.map(_.physicalRows).sum} live rows " +
        s"but the manifest counts ${task.liveRows}")
    }
    if (!stableRowIds) written
    else try withRowIds(store, task, scans, written)
    catch { case t: Throwable => FragmentWriter.discard(store, root, written); throw t }
  }

  /** `written` with the ids and versions of the live rows of `task`'s fragments, in order. */
  private def withRowIds(store: ObjectStore, task: CompactionTask, scans: IndexedSeq[ScanTask],
      written: IndexedSeq[Fragment]): IndexedSeq[Fragment] = {
    val ids = ArrayBuffer.empty[Long]
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
      var i = 0
      while (i < rowIds.length) {
        if (!deleted.exists(_.contains(i))) {
          ids += rowIds(i)
          // A fragment that records no versions: its rows date from the table's first version, as Rust assumes.
          created += createdAt.flatMap(_.at(i.toLong)).getOrElse(RowVersionStamps.UnknownCreatedAt)
          updated += updatedAt.flatMap(_.at(i.toLong)).getOrElse(RowVersionStamps.UnknownCreatedAt)
        }
        i += 1
      }
    }
    var at = 0
    written.map { f =>
      val n = f.physicalRows.toInt
      val slice = (a: ArrayBuffer[Long]) => a.slice(at, at + n).toArray
      val out = f.copy(rowIds = Some(RowIdSource.Inline(RowIdCodec.encodeIds(slice(ids)))),
        createdAtVersions = Some(RowIdSource.Inline(RowVersionCodec.encode(slice(created)))),
        lastUpdatedAtVersions = Some(RowIdSource.Inline(RowVersionCodec.encode(slice(updated)))))
      at += n
      out
    }
  }
}
