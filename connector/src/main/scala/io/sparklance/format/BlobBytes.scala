package io.sparklance.format

import io.sparklance.storage.{ObjectStore, Paths}
import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance/src/dataset/blob.rs and
// rust/lance-core/src/datatypes.rs (blob descriptors). Blob columns read as descriptors;
// this fetches the bytes one descriptor points at, only when asked for.
//   v1 (file format 2.1): (position, size) in the data file itself.
//   v2 (2.2): kind 0 inline in the data file; kind 1 packed into a sidecar file at
//   (position, size); kind 2 a dedicated sidecar file, whole; kind 3 external: blob_uri at
//   (position, size), or the whole file when both are 0. Sidecar files sit in a folder
//   named after the data file, `{data file without .lance}/{blob_id}.blob`, the id written
//   as 32 binary digits, least significant first (as pylance 14 names them).

object BlobBytes {
  val Inline = 0
  val Packed = 1
  val Dedicated = 2
  val External = 3

  /** The bytes of a v1 descriptor of a value in `dataFile`. */
  def v1(store: ObjectStore, dataFile: String, position: Long, size: Long): Array[Byte] =
    range(store, dataFile, position, size)

  /** The bytes of a v2 descriptor of a value in `dataFile`. */
  def v2(store: ObjectStore, dataFile: String, kind: Int, position: Long, size: Long, blobId: Long, uri: String): Array[Byte] =
    kind match {
      case Inline => range(store, dataFile, position, size)
      case Packed => range(store, sidecar(dataFile, blobId), position, size)
      case Dedicated => whole(store, sidecar(dataFile, blobId))
      case External =>
        if (uri == null || uri.isEmpty) throw Errors.corrupt(dataFile, s"an external blob descriptor has no URI")
        if (position == 0 && size == 0) whole(store, uri) else range(store, uri, position, size)
      case other => throw Errors.unsupported(s"blob storage kind $other", dataFile)
    }

  /** The sidecar file of blob `blobId` of `dataFile`. */
  def sidecar(dataFile: String, blobId: Long): String = {
    if (blobId < 0 || blobId > 0xffffffffL) throw Errors.corrupt(dataFile, s"blob id $blobId is out of range")
    val bits = (0 until 32).map(i => if (((blobId >>> i) & 1) == 1) '1' else '0').mkString
    val stem = if (dataFile.endsWith(".lance")) dataFile.dropRight(".lance".length) else dataFile
    Paths.join(stem, s"$bits.blob")
  }

  private def whole(store: ObjectStore, path: String): Array[Byte] = store.readAll(path)

  private def range(store: ObjectStore, path: String, position: Long, size: Long): Array[Byte] = {
    if (size == 0) return Array.emptyByteArray
    if (size < 0 || size > Int.MaxValue - 8) throw Errors.unsupported(s"a blob of $size bytes", path)
    val r = store.open(path)
    try {
      if (position < 0 || position > r.size - size)
        throw Errors.corrupt(path, position, s"a blob of $size bytes would end past the ${r.size}-byte file")
      val b = r.read(position, size.toInt)
      val out = new Array[Byte](b.remaining())
      b.get(out)
      out
    } finally r.close()
  }
}
