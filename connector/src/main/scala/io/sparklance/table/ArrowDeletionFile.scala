package io.sparklance.table

import java.io.{ByteArrayInputStream, IOException}
import java.nio.{ByteBuffer, ByteOrder}

import scala.jdk.CollectionConverters._

import net.jpountz.lz4.LZ4FrameInputStream
import org.apache.arrow.flatbuf.{Block, BodyCompression, CompressionType, Footer, Message, MessageHeader, RecordBatch}
import org.apache.arrow.vector.types.pojo.{ArrowType, Schema}
import org.roaringbitmap.RoaringBitmap

import io.sparklance.format.encoding.GeneralCompression
import io.sparklance.util.{Bytes, Errors, LanceException}

// Spec: Arrow columnar format, "IPC File Format" and "Compression" (apache/arrow
// docs/source/format/Columnar.rst, format/File.fbs, Message.fbs); lance-format/lance
// rust/lance-table/src/io/deletion.rs writes these files: one record batch of one non-null
// uint32 column `row_id`, its buffers zstd- or lz4-frame-compressed.
//
// Parsed on the heap from the flatbuffers, rather than with Arrow's IpcFileReader: Arrow's
// reader allocates a batch's body before it has checked the batch, and a damaged file then
// leaves buffers behind in the allocator on its error paths (closing it reports "Memory was
// leaked" instead of the damage). Here nothing is allocated off the heap, every offset and
// length is checked against the file before use, and the row count is bounded by the
// fragment's rows before anything is decompressed.

private[table] object ArrowDeletionFile {
  private val Magic = "ARROW1".getBytes("US-ASCII")

  /** The deleted offsets listed by the Arrow IPC file `bytes` of a fragment of `physicalRows` rows. */
  def read(path: String, bytes: Array[Byte], physicalRows: Long): RoaringBitmap = {
    val file = Bytes.wrap(path, 0, bytes)
    def corrupt(at: Long, what: String) = Errors.corrupt(path, at, s"$what (an Arrow IPC deletion file)")
    try {
      val n = bytes.length.toLong
      if (n < 18 || !startsWith(bytes, 0) || !startsWith(bytes, n - 6))
        throw corrupt(0, "the 'ARROW1' magic is missing at the start or end")
      val footerLen = file.i32(n - 10).toLong
      if (footerLen <= 0 || footerLen > n - 18) throw corrupt(n - 10, s"footer length $footerLen does not fit the $n-byte file")
      val footer = Footer.getRootAsFooter(file.slice(n - 10 - footerLen, footerLen, "footer").byteBuffer)
      val schema = Option(footer.schema()).map(Schema.convertSchema).getOrElse(throw corrupt(n - 10 - footerLen, "the footer has no schema"))
      val fields = schema.getFields.asScala
      if (fields.length != 1) throw corrupt(n - 10 - footerLen, s"a deletion file holds one column, found $schema")
      fields.head.getType match {
        case i: ArrowType.Int if i.getBitWidth == 32 && !i.getIsSigned =>
        case other => throw corrupt(n - 10 - footerLen, s"deleted row offsets are $other, expected uint32")
      }
      if (footer.dictionariesLength() != 0) throw corrupt(n - 10 - footerLen, "a deletion file has no dictionaries")
      val bitmap = new RoaringBitmap()
      var listed = 0L
      (0 until footer.recordBatchesLength()).foreach { b =>
        val block = footer.recordBatches(new Block(), b)
        listed += batch(file, block, physicalRows - listed, bitmap, corrupt)
      }
      bitmap
    } catch {
      case e: LanceException => throw e
      // The flatbuffer accessors check their reads against the buffer and throw runtime
      // exceptions of many kinds (index, buffer underflow, negative array size, class cast);
      // offsets that loop make the schema conversion recurse without end.
      case e @ (_: RuntimeException | _: StackOverflowError) =>
        throw Errors.corrupt(path, 0, s"not a readable Arrow IPC deletion file (${e.getClass.getSimpleName}: ${e.getMessage})", e)
    }
  }

  private def startsWith(bytes: Array[Byte], at: Long): Boolean =
    Magic.indices.forall(i => bytes(at.toInt + i) == Magic(i))

  /** Adds the offsets of one record batch to `bitmap`; returns how many it lists (at most `maxRows`). */
  private def batch(file: Bytes, block: Block, maxRows: Long, bitmap: RoaringBitmap, corrupt: (Long, String) => LanceException): Long = {
    val (offset, metaLen, bodyLen) = (block.offset(), block.metaDataLength().toLong, block.bodyLength())
    if (offset < 8 || metaLen < 8 || bodyLen < 0 || offset > file.length - metaLen || offset + metaLen > file.length - bodyLen)
      throw corrupt(offset, s"record batch block [$offset, +$metaLen, +$bodyLen) lies outside the ${file.length}-byte file")
    // A message is [0xFFFFFFFF][i32 length][flatbuffer] (or, from old writers, [i32 length][flatbuffer]).
    val prefix = if (file.i32(offset) == -1) 8 else 4
    val msgLen = file.i32(offset + prefix - 4).toLong
    if (msgLen <= 0 || msgLen > metaLen - prefix) throw corrupt(offset, s"message length $msgLen does not fit its $metaLen-byte block")
    val message = Message.getRootAsMessage(file.slice(offset + prefix, msgLen, "record batch message").byteBuffer)
    if (message.headerType() != MessageHeader.RecordBatch) throw corrupt(offset, s"message type ${message.headerType()} is not a record batch")
    val rb = message.header(new RecordBatch()).asInstanceOf[RecordBatch]
    val rows = rb.length()
    if (rows < 0 || rows > maxRows) throw corrupt(offset, s"a record batch of $rows deleted rows, more than the fragment's remaining $maxRows")
    if (rb.nodesLength() != 1 || rb.buffersLength() != 2) throw corrupt(offset, s"${rb.nodesLength()} field nodes and ${rb.buffersLength()} buffers, expected 1 and 2")
    val node = rb.nodes(0)
    if (node.length() != rows) throw corrupt(offset, s"the column has ${node.length()} rows in a batch of $rows")
    if (node.nullCount() != 0) throw corrupt(offset, s"${node.nullCount()} deleted row offsets are null")
    val body = file.slice(offset + metaLen, bodyLen, "record batch body")
    val valuesBuf = rb.buffers(1)
    val raw = body.slice(valuesBuf.offset(), valuesBuf.length(), "row_id values buffer")
    val values = Option(rb.compression()).fold(raw)(c => decompress(raw, c, 4 * rows, corrupt))
    values.check(0, 4 * rows, "row_id values")
    var i = 0
    while (i < rows) { bitmap.add(values.i32(4L * i)); i += 1 }
    rows
  }

  /**
   * A compressed buffer: `[i64 uncompressed length][frame]`, or the raw bytes after a length
   * of -1. `needed` bytes are all the column uses; Arrow pads buffers to 64 bytes at most.
   */
  private def decompress(buf: Bytes, c: BodyCompression, needed: Long, corrupt: (Long, String) => LanceException): Bytes = {
    if (buf.length == 0) return buf
    val declared = buf.i64(0)
    val frame = buf.from(8, "compressed buffer")
    if (declared == -1) return frame
    val limit = needed + 64
    if (declared < 0 || declared > limit) throw corrupt(buf.fileOffset, s"a buffer declares $declared uncompressed bytes; its column needs $needed")
    val out = c.codec() match {
      case CompressionType.ZSTD => GeneralCompression.decompressZstd(frame, declared)
      case CompressionType.LZ4_FRAME => lz4Frame(frame, declared.toInt)
      case other => throw corrupt(buf.fileOffset, s"unknown compression codec $other")
    }
    if (out.length != declared) throw corrupt(buf.fileOffset, s"a buffer decodes to ${out.length} bytes but declares $declared")
    Bytes.wrap(buf.path, buf.fileOffset, out)
  }

  private def lz4Frame(frame: Bytes, max: Int): Array[Byte] = {
    val in = new LZ4FrameInputStream(new ByteArrayInputStream(frame.toArray))
    try {
      val out = new Array[Byte](max)
      var n = 0
      var r = 0
      while (n < max && { r = in.read(out, n, max - n); r > 0 }) n += r
      if (n == max && in.read() >= 0) throw Errors.corrupt(frame.path, frame.fileOffset, s"an lz4 frame decodes to more than $max bytes")
      java.util.Arrays.copyOf(out, n)
    } catch {
      case e: IOException => throw Errors.corrupt(frame.path, frame.fileOffset, s"an lz4 frame does not decode (${e.getMessage})", e)
      case e: RuntimeException if !e.isInstanceOf[LanceException] =>
        throw Errors.corrupt(frame.path, frame.fileOffset, s"an lz4 frame does not decode (${e.getMessage})", e)
    } finally in.close()
  }
}
