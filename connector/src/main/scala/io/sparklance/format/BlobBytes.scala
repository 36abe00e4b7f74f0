package io.sparklance.format

import io.sparklance.storage.Paths
import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance/src/dataset/blob.rs and
// rust/lance-core/src/datatypes.rs (blob descriptors). Blob columns read as descriptors;
// this says where the bytes one descriptor points at are, so that a reader can fetch them.
//   v1 (file format 2.1): (position, size) in the data file itself.
//   v2 (2.2): kind 0 inline in the data file; kind 1 packed into a sidecar file at
//   (position, size); kind 2 a dedicated sidecar file, whole; kind 3 external: blob_uri at
//   (position, size), or the whole file when both are 0. Sidecar files sit in a folder
//   named after the data file, `{data file without .lance}/{blob_id}.blob`, the id written
//   as 32 binary digits, least significant first (as pylance 14 names them).

/** A blob's bytes: `size` bytes at `position` of `path`, or the whole file when `whole`. */
final case class BlobLocation(path: String, position: Long, size: Long, whole: Boolean)

object BlobBytes {
  val Inline = 0
  val Packed = 1
  val Dedicated = 2
  val External = 3

  /** Where the bytes of a v1 descriptor of a value in `dataFile` are. */
  def v1(dataFile: String, position: Long, size: Long): BlobLocation = range(dataFile, position, size)

  /** Where the bytes of a v2 descriptor of a value in `dataFile` are. */
  def v2(dataFile: String, kind: Int, position: Long, size: Long, blobId: Long, uri: String): BlobLocation =
    kind match {
      case Inline => range(dataFile, position, size)
      case Packed => range(sidecar(dataFile, blobId), position, size)
      case Dedicated => BlobLocation(sidecar(dataFile, blobId), 0, 0, whole = true)
      case External =>
        if (uri == null || uri.isEmpty) throw Errors.corrupt(dataFile, s"an external blob descriptor has no URI")
        if (position == 0 && size == 0) BlobLocation(uri, 0, 0, whole = true) else range(uri, position, size)
      case other => throw Errors.unsupported(s"blob storage kind $other", dataFile)
    }

  /** The sidecar file of blob `blobId` of `dataFile`. */
  def sidecar(dataFile: String, blobId: Long): String = {
    if (blobId < 0 || blobId > 0xffffffffL) throw Errors.corrupt(dataFile, s"blob id $blobId is out of range")
    val bits = (0 until 32).map(i => if (((blobId >>> i) & 1) == 1) '1' else '0').mkString
    val stem = if (dataFile.endsWith(".lance")) dataFile.dropRight(".lance".length) else dataFile
    Paths.join(stem, s"$bits.blob")
  }

  /** A range as a descriptor states it; the caller checks it against the file's size. */
  private def range(path: String, position: Long, size: Long): BlobLocation = {
    if (position < 0 || size < 0) throw Errors.corrupt(path, position, s"a blob of $size bytes at a negative position or size")
    BlobLocation(path, position, size, whole = false)
  }
}
