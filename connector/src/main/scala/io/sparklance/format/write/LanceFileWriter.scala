package io.sparklance.format.write

import scala.jdk.CollectionConverters._

import org.apache.arrow.vector.VectorSchemaRoot
import org.apache.arrow.vector.types.pojo.Schema

import io.sparklance.format._
import io.sparklance.format.proto.FileMetadataCodec
import io.sparklance.util.Errors
import io.sparklance.storage.FileSink

// Spec: rust/lance-file/src/writer.rs (FileWriter: write_page, write_global_buffers, finish)
// and lance-format-facts §13.1. A data file is written front to back:
//   page buffers, each padded with 'H' (0x48) to a multiple of 64 bytes, as pages fill up;
//   at the end: the remaining pages, global buffer 0 (the FileDescriptor: schema and row count),
//   every column's metadata back to back, the column metadata offset table, the global buffer
//   offset table and the 40-byte footer.
// Nothing is ever rewritten, so the sink may be a stream (an S3 multipart upload).

/** What a finished data file holds, as a manifest's DataFile records it. */
final case class WrittenFile(numRows: Long, size: Long, version: FileVersion, fieldIds: IndexedSeq[Int], columnIndices: IndexedSeq[Int])

/**
 * Writes Arrow batches of `schema` (a Lance schema, field ids assigned) into one Lance data file.
 * Call `write` for each batch, then `finish`; after a failure, `abort` and discard the file.
 */
final class LanceFileWriter(sink: FileSink, val schema: LanceSchema, val options: FileWriterOptions = FileWriterOptions()) {
  private val where = "the file writer"
  private val outOfLine = new SinkOutOfLine(sink)
  private val arrowSchema: Schema = schema.toArrowForWrite(where)
  private val encoders: IndexedSeq[FieldEncoder] = {
    var column = 0
    schema.fields.zip(arrowSchema.getFields.asScala).map { case (f, a) =>
      val e = FieldEncoders.create(f, a, column, options, outOfLine)
      column += e.numColumns
      e
    }
  }
  private val numColumns = encoders.map(_.numColumns).sum
  private val pages = Array.fill(numColumns)(IndexedSeq.newBuilder[PageInfo])
  private var rows = 0L
  private var finished = false
  // (position, size) of the global buffers after the descriptor (buffer 0), in index order.
  private val extraBuffers = IndexedSeq.newBuilder[(Long, Long)]
  private var numExtraBuffers = 0

  def rowsWritten: Long = rows

  /** Appends the rows of `batch`, whose schema must be the writer's (names, types, nullability). */
  def write(batch: VectorSchemaRoot): Unit = write(batch, 0, batch.getRowCount)

  /**
   * Appends rows `[from, from + count)` of `batch`: a table writer rolling to a new file part
   * way through a batch gives each file its share without copying the batch.
   */
  def write(batch: VectorSchemaRoot, from: Int, count: Int): Unit = {
    if (finished) throw new IllegalStateException("the file writer has finished")
    if (from < 0 || count < 0 || from > batch.getRowCount - count)
      throw new IllegalArgumentException(s"rows [$from, +$count) outside a batch of ${batch.getRowCount}")
    BatchCheck.check(arrowSchema, batch, where)
    if (count == 0) return
    var i = 0
    while (i < encoders.length) { encoders(i).check(batch.getVector(i), from, count); i += 1 }
    i = 0
    while (i < encoders.length) {
      encoders(i).append(batch.getVector(i), from, count, writePage)
      i += 1
    }
    rows += count
  }

  private def writePage(p: EncodedPage): Unit = {
    val offsets = p.buffers.map { b =>
      val at = sink.position
      writePadded(b)
      at
    }
    pages(p.column) += PageInfo(offsets, p.buffers.map(_.length.toLong), p.numRows, p.firstRow, p.encoding)
  }

  private def writePadded(b: Array[Byte]): Unit = {
    sink.write(b)
    LanceFileWriter.pad(sink)
  }

  /**
   * Writes `bytes` as the next global buffer and returns its index (1 for the first: buffer 0
   * is the descriptor). Indices use them for what is not a column, e.g. a zone map's bitmap of
   * null rows, and name the index in the schema metadata (rust/lance-file/src/writer.rs
   * add_global_buffer). Written where the data region is, padded like page buffers.
   */
  def addGlobalBuffer(bytes: Array[Byte]): Int = {
    if (finished) throw new IllegalStateException("the file writer has finished")
    extraBuffers += (sink.position -> bytes.length.toLong)
    writePadded(bytes)
    numExtraBuffers += 1
    numExtraBuffers
  }

  /**
   * Writes what is buffered and the file's metadata, and closes the sink. `extraMetadata` joins
   * the schema's metadata in the file (entries naming global buffers added meanwhile).
   */
  def finish(extraMetadata: Map[String, String] = Map.empty): WrittenFile = {
    if (finished) throw new IllegalStateException("the file writer has finished")
    finished = true
    encoders.foreach(_.finish(writePage))
    val descriptorAt = sink.position
    val descriptor = FileMetadataCodec.buildDescriptor(FileDescriptor(schema.flatFields, rows, schema.metadata ++ extraMetadata))
    sink.write(descriptor)
    val columnMetaStart = sink.position
    val columnEncodings = encoders.flatMap(_.columnEncodings)
    val columnMeta = (0 until numColumns).map { c =>
      val at = sink.position
      val bytes = FileMetadataCodec.buildColumn(ColumnInfo(c, pages(c).result(), Some(columnEncodings(c))))
      sink.write(bytes)
      (at, bytes.length.toLong)
    }
    val cmoStart = sink.position
    val numGlobal = 1 + numExtraBuffers
    val tables = java.nio.ByteBuffer.allocate(16 * numColumns + 16 * numGlobal + FileFooter.Size).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    columnMeta.foreach { case (at, len) => tables.putLong(at).putLong(len) }
    val gboStart = cmoStart + 16L * numColumns
    tables.putLong(descriptorAt).putLong(descriptor.length.toLong)
    extraBuffers.result().foreach { case (at, len) => tables.putLong(at).putLong(len) }
    val (major, minor) = LanceFileWriter.footerVersion(options.version)
    tables.putLong(columnMetaStart).putLong(cmoStart).putLong(gboStart).putInt(numGlobal).putInt(numColumns)
      .putShort(major.toShort).putShort(minor.toShort).put(FileFooter.Magic)
    sink.write(tables.array())
    val size = sink.position
    sink.close()
    val leafIds = FieldEncoders.columnFieldIds(schema, options.version)
    WrittenFile(rows, size, options.version, leafIds, leafIds.indices)
  }

  /** Gives the file up after a failure: the sink is aborted, so no partial file becomes visible. */
  def abort(): Unit = if (!finished) { finished = true; sink.abort() }
}

object LanceFileWriter {
  private val Padding: Array[Byte] = Array.fill(64)(0x48.toByte)

  /** Pads the data region to the next 64-byte boundary with 'H', as every buffer is. */
  private[write] def pad(sink: FileSink): Unit = {
    val pad = ((64 - (sink.position & 63)) & 63).toInt
    if (pad > 0) sink.write(Padding, 0, pad)
  }

  /** The footer's (major, minor): 2.0 files say 0.3 (lance-format-facts §13.1). */
  def footerVersion(v: FileVersion): (Int, Int) = v match {
    case FileVersion.V2_0 => (0, 3)
    case FileVersion.V2_1 => (2, 1)
    case FileVersion.V2_2 => (2, 2)
    case FileVersion.Legacy => throw Errors.unsupported("writing legacy (0.1) data files", "the file writer")
  }
}
