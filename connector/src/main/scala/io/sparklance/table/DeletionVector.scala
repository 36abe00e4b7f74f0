package io.sparklance.table

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInputStream, DataOutputStream, IOException}

import org.roaringbitmap.RoaringBitmap

import io.sparklance.storage.ObjectStore
import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance-table/src/io/deletion.rs and
// docs/src/format/table/index.md ("Deletion files"). The rows deleted from a fragment, as
// offsets within it: `.arrow` files are Arrow IPC *files* with one non-null uint32 column
// `row_id` in one batch (bodies zstd- or lz4-compressed, offsets unsorted; see
// ArrowDeletionFile); `.bin` files are 32-bit roaring bitmaps in the portable serialization.
// Both are read on the heap: a damaged file fails with our error and leaves nothing behind.

object DeletionVector {

  /** The deleted offsets of fragment `fragmentId`, checked against its `physicalRows`. */
  def read(store: ObjectStore, path: String, fileType: DeletionFileType, fragmentId: Long, physicalRows: Long): RoaringBitmap = {
    val bytes = store.readAll(path)
    val bitmap = fileType match {
      case DeletionFileType.ArrowArray => ArrowDeletionFile.read(path, bytes, physicalRows)
      case DeletionFileType.Bitmap => fromBytes(path, bytes)
    }
    if (!bitmap.isEmpty && (bitmap.last() & 0xffffffffL) >= physicalRows)
      throw Errors.corrupt(path, s"deletes row ${bitmap.last() & 0xffffffffL} of fragment $fragmentId, which has $physicalRows rows")
    bitmap
  }

  /** `b` in the portable serialization of a 32-bit roaring bitmap: a `.bin` deletion file's bytes. */
  def toBytes(b: RoaringBitmap): Array[Byte] = {
    b.runOptimize()
    val out = new ByteArrayOutputStream(b.serializedSizeInBytes())
    val data = new DataOutputStream(out)
    b.serialize(data)
    data.flush()
    out.toByteArray
  }

  /** The bitmap `bytes` (from [[toBytes]] or a `.bin` file at `path`) hold; other bytes are corrupt. */
  def fromBytes(path: String, bytes: Array[Byte]): RoaringBitmap = {
    val b = new RoaringBitmap()
    try b.deserialize(new DataInputStream(new ByteArrayInputStream(bytes)))
    catch {
      case e @ (_: IOException | _: RuntimeException) =>
        throw Errors.corrupt(path, 0, s"not a roaring bitmap (${e.getMessage})", e)
    }
    b
  }
}
