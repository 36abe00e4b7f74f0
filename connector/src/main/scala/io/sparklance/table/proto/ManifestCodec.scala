package io.sparklance.table.proto

import java.time.Instant

import scala.jdk.CollectionConverters._

import com.google.protobuf.InvalidProtocolBufferException

import io.sparklance.format.proto.FileMetadataCodec
import io.sparklance.storage.Paths
import io.sparklance.table._
import io.sparklance.util.{Bytes, Errors}

// Spec: protos/lance/table.proto (Manifest, DataFragment, DataFile, DeletionFile,
// BasePath). The only place that turns those generated classes into table.Manifest.

object ManifestCodec {

  def parseManifest(bytes: Bytes): Manifest = {
    val m =
      try TableProtos.Manifest.parseFrom(bytes.toArray)
      catch { case e: InvalidProtocolBufferException => throw Errors.corruptProto(bytes.path, bytes.fileOffset, "Manifest", e) }
    val where = bytes.path
    Manifest(
      version = m.getVersion,
      schema = FileMetadataCodec.schema(m.getFieldsList.asScala.toSeq, m.getSchemaMetadataMap, where),
      fragments = m.getFragmentsList.asScala.map(fragment(_, where)).toIndexedSeq,
      readerFeatureFlags = m.getReaderFeatureFlags,
      writerFeatureFlags = m.getWriterFeatureFlags,
      maxFragmentId = if (m.hasMaxFragmentId) Some(m.getMaxFragmentId.toLong & 0xffffffffL) else None,
      dataFormat = if (m.hasDataFormat) Some((m.getDataFormat.getFileFormat, m.getDataFormat.getVersion)) else None,
      writerVersion =
        if (m.hasWriterVersion) {
          val w = m.getWriterVersion
          Some(WriterVersion(w.getLibrary, w.getVersion, if (w.hasPrerelease) Some(w.getPrerelease) else None))
        } else None,
      nextRowId = m.getNextRowId,
      config = m.getConfigMap.asScala.toMap,
      tableMetadata = m.getTableMetadataMap.asScala.toMap,
      basePaths = m.getBasePathsList.asScala.map { b =>
        BasePath(b.getId, if (b.hasName) Some(b.getName) else None, b.getIsDatasetRoot, b.getPath)
      }.toIndexedSeq,
      branch = if (m.hasBranch) Some(m.getBranch) else None,
      timestamp = if (m.hasTimestamp) Some(Instant.ofEpochSecond(m.getTimestamp.getSeconds, m.getTimestamp.getNanos)) else None,
      transactionFile = Option(m.getTransactionFile).filter(_.nonEmpty),
      indexSectionOffset = if (m.hasIndexSection) Some(m.getIndexSection) else None,
      // pylance 14 writes the inline transaction's offset in field 23; older writers used 21.
      transactionSectionOffset =
        if (m.hasTransactionSection) Some(m.getTransactionSection)
        else if (m.hasTransactionSectionV1) Some(m.getTransactionSectionV1)
        else None)
  }

  def parseIndexSection(bytes: Bytes): IndexedSeq[IndexMetadata] = {
    val section =
      try TableProtos.IndexSection.parseFrom(bytes.toArray)
      catch { case e: InvalidProtocolBufferException => throw Errors.corruptProto(bytes.path, bytes.fileOffset, "IndexSection", e) }
    section.getIndicesList.asScala.map { i =>
      val uuidBytes = i.getUuid.getUuid.toByteArray
      val uuid =
        if (uuidBytes.length != 16) throw Errors.corrupt(bytes.path, s"index '${i.getName}' has a ${uuidBytes.length}-byte UUID")
        else {
          val bb = java.nio.ByteBuffer.wrap(uuidBytes)
          new java.util.UUID(bb.getLong, bb.getLong).toString
        }
      val bitmap = i.getFragmentBitmap.toByteArray
      val fragments =
        if (bitmap.isEmpty) None
        else {
          val b = new org.roaringbitmap.RoaringBitmap()
          try b.deserialize(java.nio.ByteBuffer.wrap(bitmap))
          catch { case e: Exception => throw Errors.corrupt(bytes.path, 0, s"index '${i.getName}' has a damaged fragment bitmap", e) }
          Some(b)
        }
      // A size is only a hint for opening the file; sizes that cannot be right are dropped.
      val sizes = i.getFilesList.asScala.iterator.filter(_.getSizeBytes > 0).map(f => f.getPath -> f.getSizeBytes).toMap
      IndexMetadata(uuid, i.getName, i.getFieldsList.asScala.map(_.intValue).toIndexedSeq, i.getDatasetVersion, fragments,
        i.getIndexDetails.getTypeUrl.split('.').last, if (i.hasBaseId) Some(i.getBaseId) else None, sizes,
        scala.collection.immutable.ArraySeq.unsafeWrapArray(i.getIndexDetails.getValue.toByteArray))
    }.toIndexedSeq
  }

  /**
   * A path a manifest names relative to a folder of the table must stay inside it. Lance
   * joins such a path as one name (object_store's Path::child escapes '/' and '..'), so
   * one that climbs out (`../../elsewhere/x.lance`) or is absolute names no file pylance
   * would read; followed here, it would read rows, or any file, from outside the table.
   */
  private def checkRelative(path: String, what: String, where: String): Unit =
    if (!Paths.staysInside(path))
      throw Errors.corrupt(where, s"$what path '$path' is not a plain relative path inside the table " +
        "(empty, absolute, or with '..', '.', '\\' or ':' segments)")

  /**
   * Every field of a 2.x data file needs a column index (rust/lance-table/src/format/fragment.rs,
   * DataFile::validate); one missing would read as nulls instead of the stored values.
   * Legacy files (format 0.1: major 0, minor below 3) key their pages by field id instead.
   */
  private def checkColumns(d: DataFile, fragmentId: Long, where: String): Unit = {
    val legacy = d.majorVersion == 0 && d.minorVersion < 3
    if (!legacy && d.columnIndices.length < d.fields.length)
      throw Errors.corrupt(where, s"fragment $fragmentId: data file ${d.path} lists ${d.fields.length} fields but only " +
        s"${d.columnIndices.length} column indices; field ${d.fields(d.columnIndices.length)} has no column")
  }

  private def fragment(f: TableProtos.DataFragment, where: String): Fragment = {
    if (f.getOverlaysCount > 0)
      throw Errors.unsupported(s"overlay files (fragment ${f.getId})", where)
    Fragment(
      id = f.getId,
      files = f.getFilesList.asScala.map { d =>
        checkRelative(d.getPath, s"fragment ${f.getId}: data file", where)
        val file = DataFile(d.getPath, d.getFieldsList.asScala.map(_.intValue).toIndexedSeq,
          d.getColumnIndicesList.asScala.map(_.intValue).toIndexedSeq,
          d.getFileMajorVersion, d.getFileMinorVersion, d.getFileSizeBytes,
          if (d.hasBaseId) Some(d.getBaseId) else None)
        checkColumns(file, f.getId, where)
        file
      }.toIndexedSeq,
      deletionFile =
        if (f.hasDeletionFile) {
          val d = f.getDeletionFile
          val kind = d.getFileType match {
            case TableProtos.DeletionFile.DeletionFileType.ARROW_ARRAY => DeletionFileType.ArrowArray
            case TableProtos.DeletionFile.DeletionFileType.BITMAP => DeletionFileType.Bitmap
            case other => throw Errors.unsupported(s"deletion file type $other", where)
          }
          Some(DeletionFile(kind, d.getReadVersion, d.getId, d.getNumDeletedRows, if (d.hasBaseId) Some(d.getBaseId) else None))
        } else None,
      physicalRows = f.getPhysicalRows,
      rowIds = f.getRowIdSequenceCase match {
        case TableProtos.DataFragment.RowIdSequenceCase.INLINE_ROW_IDS => Some(RowIdSource.Inline(f.getInlineRowIds.toByteArray))
        case TableProtos.DataFragment.RowIdSequenceCase.EXTERNAL_ROW_IDS =>
          val e = f.getExternalRowIds
          checkRelative(e.getPath, s"fragment ${f.getId}: row id file", where)
          Some(RowIdSource.External(ExternalFile(e.getPath, e.getOffset, e.getSize)))
        case _ => None
      })
  }
}
