package io.sparklance.table

import java.io.{ByteArrayInputStream, DataInputStream, IOException}

import scala.jdk.CollectionConverters._

import org.apache.arrow.compression.CommonsCompressionFactory
import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.UInt4Vector
import org.apache.arrow.vector.ipc.ArrowFileReader
import org.apache.arrow.vector.types.pojo.ArrowType
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel
import org.roaringbitmap.RoaringBitmap

import io.sparklance.storage.ObjectStore
import io.sparklance.util.{Errors, LanceException}

// Spec: lance-format/lance rust/lance-table/src/io/deletion.rs and
// docs/src/format/table/index.md ("Deletion files"). The rows deleted from a fragment, as
// offsets within it: `.arrow` files are Arrow IPC *files* with one non-null uint32 column
// `row_id` in one batch (bodies zstd- or lz4-compressed, offsets unsorted); `.bin` files
// are 32-bit roaring bitmaps in the portable serialization.

object DeletionVector {

  /** The deleted offsets of fragment `fragmentId`, checked against its `physicalRows`. */
  def read(store: ObjectStore, path: String, fileType: DeletionFileType, fragmentId: Long, physicalRows: Long): RoaringBitmap = {
    val bytes = store.readAll(path)
    val bitmap = fileType match {
      case DeletionFileType.ArrowArray => fromArrow(path, bytes)
      case DeletionFileType.Bitmap => fromRoaring(path, bytes)
    }
    if (!bitmap.isEmpty && (bitmap.last() & 0xffffffffL) >= physicalRows)
      throw Errors.corrupt(path, s"deletes row ${bitmap.last() & 0xffffffffL} of fragment $fragmentId, which has $physicalRows rows")
    bitmap
  }

  private def fromRoaring(path: String, bytes: Array[Byte]): RoaringBitmap = {
    val b = new RoaringBitmap()
    try b.deserialize(new DataInputStream(new ByteArrayInputStream(bytes)))
    catch {
      case e @ (_: IOException | _: RuntimeException) =>
        throw Errors.corrupt(path, 0, s"not a roaring bitmap (${e.getMessage})", e)
    }
    b
  }

  private def fromArrow(path: String, bytes: Array[Byte]): RoaringBitmap = {
    val allocator = new RootAllocator(math.max(1L << 20, bytes.length.toLong * 64))
    try {
      val reader = new ArrowFileReader(new ByteArrayReadableSeekableByteChannel(bytes), allocator, CommonsCompressionFactory.INSTANCE)
      try {
        val schema = reader.getVectorSchemaRoot.getSchema
        val fields = schema.getFields.asScala
        if (fields.length != 1 || !fields.head.getType.isInstanceOf[ArrowType.Int])
          throw Errors.corrupt(path, s"a deletion file must hold one integer column, found $schema")
        val bitmap = new RoaringBitmap()
        reader.getRecordBlocks.asScala.foreach { block =>
          reader.loadRecordBatch(block)
          reader.getVectorSchemaRoot.getVector(0) match {
            case v: UInt4Vector =>
              var i = 0
              while (i < v.getValueCount) {
                if (v.isNull(i)) throw Errors.corrupt(path, s"deleted row offset $i is null")
                bitmap.add(v.get(i))
                i += 1
              }
            case other => throw Errors.corrupt(path, s"deleted row offsets are ${other.getField.getType}, expected uint32")
          }
        }
        bitmap
      } finally reader.close()
    } catch {
      case e: LanceException => throw e
      case e @ (_: IOException | _: RuntimeException) =>
        throw Errors.corrupt(path, 0, s"not a readable Arrow IPC deletion file (${e.getMessage})", e)
    } finally allocator.close()
  }
}
