package io.sparklance.table

import java.time.Instant

import io.sparklance.format.{FileVersion, LanceSchema}
import io.sparklance.util.ScalaCompat._

// Spec: lance-format/lance protos/table.proto (Manifest, DataFragment, DataFile,
// DeletionFile, BasePath) and docs/src/format/table/index.md. Plain Scala views of one
// version of a table; table.proto.ManifestCodec builds them from the protobuf.

/**
 * One data file of a fragment: a vertical slice holding the columns of `fields`.
 * `columnIndices(i)` is the column in the file that holds field `fields(i)` (-1: none).
 * `baseId` uses protobuf presence: `Some(0)` is a real base path, `None` the dataset itself.
 */
final case class DataFile(
    path: String,
    fields: IndexedSeq[Int],
    columnIndices: IndexedSeq[Int],
    majorVersion: Int,
    minorVersion: Int,
    fileSizeBytes: Long,
    baseId: Option[Int])

sealed trait DeletionFileType { def extension: String }
object DeletionFileType {
  /** An Arrow IPC file with one `row_id: uint32` column. */
  case object ArrowArray extends DeletionFileType { val extension = "arrow" }
  /** A 32-bit roaring bitmap in the portable serialization. */
  case object Bitmap extends DeletionFileType { val extension = "bin" }
}

final case class DeletionFile(
    fileType: DeletionFileType,
    readVersion: Long,
    id: Long,
    numDeletedRows: Long,
    baseId: Option[Int]) {
  /** File name under `_deletions/`: `{fragment_id}-{read_version}-{id}.{arrow|bin}`. */
  def fileName(fragmentId: Long): String =
    s"$fragmentId-$readVersion-${java.lang.Long.toUnsignedString(id)}.${fileType.extension}"
}

/** A slice of the bytes of another file holding a serialized message (external row ids). */
final case class ExternalFile(path: String, offset: Long, size: Long)

/** Where a fragment's stable row ids (or row versions) are stored: inline bytes or a slice of another file. */
sealed trait RowIdSource
object RowIdSource {
  final case class Inline(bytes: Array[Byte]) extends RowIdSource
  final case class External(file: ExternalFile) extends RowIdSource
}

/**
 * A horizontal slice of the table: the same `physicalRows` rows across its data files. On
 * tables with stable row ids, `rowIds` holds a serialized RowIdSequence and the two version
 * sequences serialized RowDatasetVersionSequences (the version that created and that last
 * updated each row, protos/lance/rowids.proto).
 */
final case class Fragment(
    id: Long,
    files: IndexedSeq[DataFile],
    deletionFile: Option[DeletionFile],
    physicalRows: Long,
    rowIds: Option[RowIdSource],
    createdAtVersions: Option[RowIdSource] = None,
    lastUpdatedAtVersions: Option[RowIdSource] = None) {

  /**
   * Rows left after deletions; exact when the deletion file records its count and the
   * fragment its rows (`physicalRows` 0 is unknown: then 0 here, never negative).
   */
  def liveRows: Long = math.max(physicalRows - deletionFile.map(_.numDeletedRows).getOrElse(0L), 0L)
}

/** An extra storage location (multi-base layout); `isDatasetRoot` means files sit under `data/`. */
final case class BasePath(id: Int, name: Option[String], isDatasetRoot: Boolean, path: String)

final case class WriterVersion(library: String, version: String, prerelease: Option[String])

/**
 * One index of a version (from the manifest's index section): which fields it covers, the
 * fragments it was built over (None when unknown), its kind (the last part of the
 * details' type URL, e.g. `ZoneMapIndexDetails`) and the sizes of its files by name, when
 * the writer recorded them (pylance 14 does). `details` is the value of the details message
 * (the encoded message of that type; empty for the many empty ones), `indexVersion` the
 * index's format version and `createdAt` its creation time in ms since the epoch, when recorded.
 */
final case class IndexMetadata(
    uuid: String,
    name: String,
    fields: IndexedSeq[Int],
    datasetVersion: Long,
    fragments: Option[org.roaringbitmap.RoaringBitmap],
    kind: String,
    baseId: Option[Int],
    fileSizes: Map[String, Long] = Map.empty,
    details: ArraySeq[Byte] = ArraySeq.empty,
    indexVersion: Option[Int] = None,
    createdAt: Option[Long] = None)

/**
 * One version of a table. `message` keeps the parsed protobuf of the manifest file (manifest
 * and index section) so that a commit carries forward every field, those this view does not
 * model and those added by newer writers included (table.proto.ManifestCodec builds the next
 * manifest from it).
 */
final case class Manifest(
    version: Long,
    schema: LanceSchema,
    fragments: IndexedSeq[Fragment],
    readerFeatureFlags: Long,
    writerFeatureFlags: Long,
    maxFragmentId: Option[Long],
    dataFormat: Option[(String, String)],
    writerVersion: Option[WriterVersion],
    nextRowId: Long,
    config: Map[String, String],
    tableMetadata: Map[String, String],
    basePaths: IndexedSeq[BasePath],
    branch: Option[String],
    timestamp: Option[Instant],
    transactionFile: Option[String],
    indexSectionOffset: Option[Long],
    transactionSectionOffset: Option[Long],
    message: io.sparklance.table.proto.ManifestMessage,
    indices: IndexedSeq[IndexMetadata] = IndexedSeq.empty) {

  /** The data file format version of the table, from `data_format` or, if absent, its files. */
  def fileVersion(where: String): Option[FileVersion] =
    dataFormat.map { case (_, v) => FileVersion.fromName(v, where) }
      .orElse(fragments.iterator.flatMap(_.files).toSeq.headOption.map(f => FileVersion.fromDataFile(where, f.majorVersion, f.minorVersion)))

  def basePath(id: Int): Option[BasePath] = basePaths.find(_.id == id)

  /** Whether rows keep stable row ids (reader feature flag 2). */
  def stableRowIds: Boolean = (readerFeatureFlags & FeatureFlags.StableRowIds) != 0

  def totalPhysicalRows: Long = fragments.iterator.map(_.physicalRows).sum
}
