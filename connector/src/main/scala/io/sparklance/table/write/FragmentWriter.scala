package io.sparklance.table.write

import java.security.SecureRandom

import scala.collection.mutable.ArrayBuffer

import org.apache.arrow.vector.VectorSchemaRoot

import io.sparklance.format.{FileVersion, LanceSchema}
import io.sparklance.format.write.{FileWriterOptions, LanceFileWriter}
import io.sparklance.storage.{FileSink, ObjectStore, Paths}
import io.sparklance.table.{DataFile, Fragment}
import io.sparklance.util.Errors

// Spec: rust/lance/src/dataset/write.rs (write_fragments_internal, WriteParams defaults) and
// rust/lance/src/dataset/fragment/write.rs (generate_random_filename). A write turns a stream
// of batches into new data files under `<root>/data/`, one file per fragment, rolling to the
// next file when the current one holds `max_rows_per_file` rows (Rust breaks the stream at that
// row count, so a file never holds more) or, after a batch, when its bytes on storage reach
// `max_bytes_per_file` (Rust's `tell()`: what the file writer has flushed, so a file can pass
// the limit by at most one batch's pages plus its metadata). Fragment ids are assigned at
// commit; here every fragment has id 0, as Rust's FragmentCreateBuilder leaves them.

/**
 * How a write splits its rows into data files.
 *
 * @param file            the file format version and page budget of each data file
 * @param maxRowsPerFile  rows per data file (Lance's `max_rows_per_file`, 1,048,576)
 * @param maxBytesPerFile bytes after which a data file is finished (Lance's `max_bytes_per_file`, 90 GiB)
 */
final case class FragmentWriterOptions(
    file: FileWriterOptions = FileWriterOptions(),
    maxRowsPerFile: Long = FragmentWriterOptions.DefaultMaxRowsPerFile,
    maxBytesPerFile: Long = FragmentWriterOptions.DefaultMaxBytesPerFile,
    targets: IndexedSeq[FileTarget] = IndexedSeq.empty) {
  // A Lance fragment counts its rows in a u32 (rust/lance-table/src/format/fragment.rs
  // physical_rows, row addresses `fragment << 32 | offset`).
  if (maxRowsPerFile < 1 || maxRowsPerFile > 0xffffffffL)
    throw Errors.invalidOption("maxRowsPerFile", maxRowsPerFile.toString, "a row count from 1 to 4294967295")
  if (maxBytesPerFile < 1)
    throw Errors.invalidOption("maxBytesPerFile", maxBytesPerFile.toString, "a positive number of bytes")
}

/**
 * Where new data files go in a multi-base table (layout.md, base paths): the folder and the
 * `base_id` the DataFile records (None: the table's own `data/`). Files go to the targets in
 * turn, one file each, as Lance's `target_bases` round-robin does.
 */
final case class FileTarget(baseId: Option[Int], dir: String)

object FragmentWriterOptions {
  val DefaultMaxRowsPerFile: Long = 1024L * 1024
  val DefaultMaxBytesPerFile: Long = 90L * 1024 * 1024 * 1024
}

/**
 * Writes batches of `schema` (field ids assigned) into new data files under `<root>/data/`,
 * rolling to a new file (= a new fragment) at either limit of `options`. Not thread-safe: one
 * writer per task. After a failure call [[abort]]; fragments returned by [[finish]] that are
 * never committed are removed with [[FragmentWriter.discard]].
 */
final class FragmentWriter(store: ObjectStore, root: String, schema: LanceSchema, options: FragmentWriterOptions,
    zoneMaps: Option[ZoneMapBuilder] = None, firstTarget: Int = 0) {
  private val targets = if (options.targets.isEmpty) IndexedSeq(FileTarget(None, Paths.join(root, FragmentWriter.DataDir))) else options.targets
  private var nextTarget = java.lang.Math.floorMod(firstTarget, targets.length)
  private val where = s"the data files written under ${Paths.join(root, FragmentWriter.DataDir)}"
  private val (major, minor) = FileVersion.dataFileVersion(options.file.version)

  private final class OpenFile(val name: String, val sink: FileSink, val writer: LanceFileWriter, val target: FileTarget)

  private var current: OpenFile = _
  private val done = ArrayBuffer.empty[Fragment]
  private var rows = 0L
  private var closedBytes = 0L
  private var state: String = "open"

  def rowsWritten: Long = rows
  /** Bytes of the finished files plus what the open file has written so far. */
  def bytesWritten: Long = closedBytes + (if (current == null) 0L else current.sink.position)
  def filesWritten: Int = done.length

  /** The zone maps of the fragments [[finish]] returned, one per fragment in the same order (empty without a builder). */
  def zoneMapsWritten: IndexedSeq[FragmentZoneMaps] = zoneMaps.fold(IndexedSeq.empty[FragmentZoneMaps])(_.fragments())

  /**
   * Appends the rows of `batch`, whose schema is `schema.toArrowForWrite`. A failure aborts the
   * writer first (as Rust's write loop cleans up before it returns the error).
   */
  def write(batch: VectorSchemaRoot): Unit = write(batch, 0, batch.getRowCount)

  /** Appends rows `[start, start + length)` of `batch` (as [[write]]). */
  def write(batch: VectorSchemaRoot, start: Int, length: Int): Unit = {
    requireOpen()
    if (start < 0 || length < 0 || start > batch.getRowCount - length)
      throw new IllegalArgumentException(s"rows [$start, +$length) outside a batch of ${batch.getRowCount}")
    val n = start + length
    var from = start
    try while (from < n) {
      if (current == null) current = open()
      val room = options.maxRowsPerFile - current.writer.rowsWritten
      val count = math.min(room, (n - from).toLong).toInt
      current.writer.write(batch, from, count)
      zoneMaps.foreach(_.observe(batch, from, count, current.writer.rowsWritten - count))
      from += count
      rows += count
      if (current.writer.rowsWritten >= options.maxRowsPerFile || current.sink.position >= options.maxBytesPerFile) close()
    } catch { case t: Throwable => abortQuietly(t); throw t }
  }

  /** Finishes the open file; returns one fragment per data file written, in write order. */
  def finish(): IndexedSeq[Fragment] = {
    requireOpen()
    try if (current != null) close() catch { case t: Throwable => abortQuietly(t); throw t }
    state = "finished"
    done.toIndexedSeq
  }

  /**
   * Removes every file this writer started or finished (best effort, never throws: a file
   * that cannot be deleted is unreferenced and left to Lance's cleanup). The writer is
   * unusable afterwards.
   */
  def abort(): Unit = if (state != "aborted") {
    state = "aborted"
    if (current != null) {
      val c = current
      current = null
      // An upload given up on an interrupted thread may stay pending on S3 (see discard).
      FragmentWriter.uninterrupted { c.writer.abort(); c.sink.abort() }
    }
    FragmentWriter.discard(store, root, done.toSeq, options.targets)
    done.clear()
  }

  private def requireOpen(): Unit =
    if (state != "open") throw new IllegalStateException(s"the fragment writer is $state")

  private def abortQuietly(cause: Throwable): Unit =
    try abort() catch { case t: Throwable => cause.addSuppressed(t) }

  private def open(): OpenFile = {
    val name = FragmentWriter.newFileName()
    val target = targets(nextTarget)
    nextTarget = (nextTarget + 1) % targets.length
    val sink = store.create(Paths.join(target.dir, name))
    try new OpenFile(name, sink, new LanceFileWriter(sink, schema, options.file), target)
    catch { case t: Throwable => sink.abort(); throw t }
  }

  private def close(): Unit = {
    val c = current
    // The fragment's zones are also embedded in its file as pylance 14 embeds them ("seeds"),
    // so that pylance's own optimize_indices can extend an index from them.
    val written = c.writer.finish(zoneMaps.fold(Map.empty[String, String]) { z =>
      z.seeds(z.finishFragment()).map(s => s.metadataKey -> s.metadataValue(c.writer.addGlobalBuffer(s.bytes))).toMap
    })
    current = null
    closedBytes += written.size
    val file = DataFile(c.name, written.fieldIds, written.columnIndices, major, minor, written.size, c.target.baseId)
    done += Fragment(0L, IndexedSeq(file), None, written.numRows, None)
  }
}

object FragmentWriter {
  val DataDir = "data"

  private val random = new SecureRandom()

  /** `<root>/data/<name>`: where a data file of the table's own folder lives. */
  def path(root: String, name: String): String = Paths.join(root, DataDir, name)

  /**
   * A new data file name as Lance 0.x/pylance 14 makes them: a random UUID (v4) whose first 3
   * bytes are written as 24 binary digits and the other 13 as 26 hex digits, then `.lance`.
   * The binary prefix spreads files over S3's key partitions quickly
   * (rust/lance/src/dataset/fragment/write.rs generate_random_filename).
   */
  def newFileName(): String = {
    val bytes = new Array[Byte](16)
    random.nextBytes(bytes)
    bytes(6) = ((bytes(6) & 0x0f) | 0x40).toByte // version 4
    bytes(8) = ((bytes(8) & 0x3f) | 0x80).toByte // IETF variant
    val out = new java.lang.StringBuilder(56)
    var i = 0
    while (i < 3) {
      var bit = 7
      while (bit >= 0) { out.append(if (((bytes(i) >> bit) & 1) == 1) '1' else '0'); bit -= 1 }
      i += 1
    }
    while (i < 16) {
      out.append(Character.forDigit((bytes(i) >> 4) & 0xf, 16)).append(Character.forDigit(bytes(i) & 0xf, 16))
      i += 1
    }
    out.append(".lance").toString
  }

  /**
   * Deletes the data files of fragments that were written but will not be committed (best
   * effort, never throws: what cannot be deleted is unreferenced, and Lance's cleanup removes
   * unreferenced files). Only files in the table's own `data/` folder, or in one of `targets` (the bases this write wrote to), are touched.
   *
   * A writer is often given up because its thread was interrupted (Spark kills a task attempt,
   * such as the copy that lost to a speculative one, by interrupting it, then aborts its writer
   * in that thread), and a store may refuse every call on an interrupted thread (S3A: the AWS
   * SDK's AbortedException "Thread was interrupted", seen against SeaweedFS). So the deletes
   * run with the interrupt cleared.
   */
  def discard(store: ObjectStore, root: String, fragments: Seq[Fragment], targets: Seq[FileTarget] = Nil): Unit = uninterrupted {
    val dirs = targets.collect { case FileTarget(Some(id), dir) => id -> dir }.toMap
    fragments.iterator.flatMap(_.files).filter(f => Paths.staysInside(f.path)).foreach { f =>
      val where = f.baseId.fold(Option(path(root, f.path)))(id => dirs.get(id).map(Paths.join(_, f.path)))
      where.foreach(p => try store.delete(p) catch { case _: Exception => () })
    }
  }

  /** Runs `cleanup` with the thread's interrupt cleared, and sets it again afterwards. */
  private def uninterrupted(cleanup: => Unit): Unit = {
    val interrupted = Thread.interrupted()
    try cleanup finally if (interrupted) Thread.currentThread().interrupt()
  }
}
