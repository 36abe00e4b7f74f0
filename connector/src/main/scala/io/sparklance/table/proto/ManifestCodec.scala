package io.sparklance.table.proto

import java.time.Instant

import scala.jdk.CollectionConverters._

import com.google.protobuf.{ByteString, InvalidProtocolBufferException}

import io.sparklance.format.proto.FileMetadataCodec
import io.sparklance.storage.Paths
import io.sparklance.table._
import io.sparklance.util.ScalaCompat._
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
        else None,
      message = new ManifestMessage(m, None))
  }

  /** `manifest` with the index section parsed from `bytes` (its message kept as well). */
  def withIndexSection(manifest: Manifest, bytes: Bytes): Manifest = {
    val section =
      try TableProtos.IndexSection.parseFrom(bytes.toArray)
      catch { case e: InvalidProtocolBufferException => throw Errors.corruptProto(bytes.path, bytes.fileOffset, "IndexSection", e) }
    manifest.copy(
      indices = section.getIndicesList.asScala.map(indexMetadata(_, bytes.path)).toIndexedSeq,
      message = new ManifestMessage(manifest.message.manifest, Some(section)))
  }

  private[proto] def indexMetadata(i: TableProtos.IndexMetadata, where: String): IndexMetadata = {
    val uuid = uuidOf(i.getUuid, s"index '${i.getName}'", where)
    val bitmap = i.getFragmentBitmap.toByteArray
    val fragments =
      if (bitmap.isEmpty) None
      else {
        val b = new org.roaringbitmap.RoaringBitmap()
        try b.deserialize(java.nio.ByteBuffer.wrap(bitmap))
        catch { case e: Exception => throw Errors.corrupt(where, 0, s"index '${i.getName}' has a damaged fragment bitmap", e) }
        Some(b)
      }
    // A size is only a hint for opening the file; sizes that cannot be right are dropped.
    val sizes = i.getFilesList.asScala.iterator.filter(_.getSizeBytes > 0).map(f => f.getPath -> f.getSizeBytes).toMap
    IndexMetadata(uuid, i.getName, i.getFieldsList.asScala.map(_.intValue).toIndexedSeq, i.getDatasetVersion, fragments,
      i.getIndexDetails.getTypeUrl.split('.').last, if (i.hasBaseId) Some(i.getBaseId) else None, sizes,
      ArraySeq.unsafeWrapArray(i.getIndexDetails.getValue.toByteArray),
      if (i.hasIndexVersion) Some(i.getIndexVersion) else None, if (i.hasCreatedAt) Some(i.getCreatedAt) else None)
  }

  /**
   * The IndexMetadata message of `i`, as pylance writes a new index's: the details' type URL
   * is `/lance.table.<kind>` for the details messages of table.proto, `/lance.index.pb.<kind>`
   * for the others (lance-format-facts §12); files in name order.
   */
  private[proto] def buildIndex(i: IndexMetadata): TableProtos.IndexMetadata = {
    val b = TableProtos.IndexMetadata.newBuilder()
      .setUuid(uuidMessage(i.uuid))
      .addAllFields(i.fields.map(Int.box).asJava)
      .setName(i.name)
      .setDatasetVersion(i.datasetVersion)
    i.fragments.foreach(f => b.setFragmentBitmap(bitmapBytes(f)))
    b.setIndexDetails(detailsMessage(i.kind, i.details))
    i.indexVersion.foreach(b.setIndexVersion)
    i.createdAt.foreach(b.setCreatedAt)
    i.baseId.foreach(b.setBaseId)
    i.fileSizes.toSeq.sortBy(_._1).foreach { case (path, size) => b.addFiles(TableProtos.IndexFile.newBuilder().setPath(path).setSizeBytes(size)) }
    b.build()
  }

  /** An index id as the 16 bytes of a UUID message. */
  private[proto] def uuidMessage(uuid: String): TableProtos.UUID = {
    val id = java.util.UUID.fromString(uuid)
    val bytes = java.nio.ByteBuffer.allocate(16).putLong(id.getMostSignificantBits).putLong(id.getLeastSignificantBits).array()
    TableProtos.UUID.newBuilder().setUuid(ByteString.copyFrom(bytes)).build()
  }

  private[proto] def uuidOf(u: TableProtos.UUID, what: String, where: String): String = {
    val bytes = u.getUuid.toByteArray
    if (bytes.length != 16) throw Errors.corrupt(where, s"$what has a ${bytes.length}-byte UUID")
    val bb = java.nio.ByteBuffer.wrap(bytes)
    new java.util.UUID(bb.getLong, bb.getLong).toString
  }

  /** An index's details: its kind's type URL and the message's value. */
  private[proto] def detailsMessage(kind: String, details: Seq[Byte]): com.google.protobuf.Any = {
    val pkg = if (TableDetailsKinds(kind)) "lance.table" else "lance.index.pb"
    com.google.protobuf.Any.newBuilder().setTypeUrl(s"/$pkg.$kind").setValue(ByteString.copyFrom(details.toArray)).build()
  }

  private val TableDetailsKinds = Set("BTreeIndexDetails", "BitmapIndexDetails", "LabelListIndexDetails", "NGramIndexDetails",
    "ZoneMapIndexDetails", "InvertedIndexDetails", "VectorIndexDetails", "FragmentReuseIndexDetails", "MemWalIndexDetails")

  /**
   * `m` with the indices whose uuid is in `removed` taken out and `added` put at the end, as a
   * CreateIndex makes it (rust/lance/src/dataset/transaction.rs build_manifest): the kept
   * indices keep their messages as read, every field included.
   */
  def replaceIndices(m: Manifest, removed: Set[String], added: Seq[IndexMetadata]): Manifest = {
    val raw = m.message.indexSection.toSeq.flatMap(_.getIndicesList.asScala)
    if (raw.length != m.indices.length) throw new IllegalStateException(s"version ${m.version}: its index section was not read")
    val kept = raw.zip(m.indices).filterNot { case (_, i) => removed(i.uuid) }
    val section = TableProtos.IndexSection.newBuilder().addAllIndices((kept.map(_._1) ++ added.map(buildIndex)).asJava).build()
    m.copy(indices = kept.map(_._2).toIndexedSeq ++ added, message = new ManifestMessage(m.message.manifest, Some(section)))
  }

  /**
   * `m` with every index that lives in the dataset itself (no base id) moved to base `id`, as
   * a shallow clone names them; every other field of each index message is kept as read.
   */
  def withIndexBases(m: Manifest, id: Int): Manifest =
    if (m.indices.forall(_.baseId.isDefined)) m
    else {
      val raw = m.message.indexSection.toSeq.flatMap(_.getIndicesList.asScala)
      if (raw.length != m.indices.length) throw new IllegalStateException(s"version ${m.version}: its index section was not read")
      val messages = raw.map(r => if (r.hasBaseId) r else r.toBuilder.setBaseId(id).build())
      val section = TableProtos.IndexSection.newBuilder().addAllIndices(messages.asJava).build()
      m.copy(indices = m.indices.map(i => i.copy(baseId = i.baseId.orElse(Some(id)))), message = new ManifestMessage(m.message.manifest, Some(section)))
    }

  /**
   * `m` with the fragment bitmaps of `indices`, which are `m.indices` with some bitmaps
   * changed (an Update's rewritten columns, [[io.sparklance.table.commit.IndexCoverage]]): every
   * other field of each index message is kept as read.
   */
  def withCoverage(m: Manifest, indices: IndexedSeq[IndexMetadata]): Manifest =
    if (indices == m.indices) m
    else {
      val raw = m.message.indexSection.toSeq.flatMap(_.getIndicesList.asScala)
      if (raw.length != m.indices.length || indices.map(_.uuid) != m.indices.map(_.uuid))
        throw new IllegalStateException(s"version ${m.version}: the indices to re-cover are not the version's own")
      val messages = raw.zip(m.indices).zip(indices).map { case ((r, old), now) =>
        if (old.fragments == now.fragments) r
        else now.fragments.fold(r.toBuilder.clearFragmentBitmap())(f => r.toBuilder.setFragmentBitmap(bitmapBytes(f))).build()
      }
      val section = TableProtos.IndexSection.newBuilder().addAllIndices(messages.asJava).build()
      m.copy(indices = indices, message = new ManifestMessage(m.message.manifest, Some(section)))
    }

  /**
   * `m` without the fragment and schema messages it was read with, for a manifest whose content
   * is all new (an Overwrite's): [[encodeManifest]] builds a fragment over the message of the
   * same id, and a field over the message of the same id and type, which must not lend the new
   * ones the old ones' fields (a fragment's metadata or clustering id, a field's primary-key
   * flag or encoding, fields of newer writers). Rust builds an Overwrite's fragments and schema
   * from the transaction alone (rust/lance/src/dataset/transaction.rs, build_manifest).
   */
  def withoutContentMessages(m: Manifest): Manifest =
    m.copy(message = new ManifestMessage(m.message.manifest.toBuilder.clearFragments().clearFields().clearSchemaMetadata().build(),
      m.message.indexSection))

  private def bitmapBytes(b: org.roaringbitmap.RoaringBitmap): ByteString = {
    val out = java.nio.ByteBuffer.allocate(b.serializedSizeInBytes())
    b.serialize(out)
    ByteString.copyFrom(out.array())
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

  private[proto] def fragment(f: TableProtos.DataFragment, where: String): Fragment = {
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
        case TableProtos.DataFragment.RowIdSequenceCase.EXTERNAL_ROW_IDS => Some(external(f.getExternalRowIds, f.getId, "row id", where))
        case _ => None
      },
      createdAtVersions = f.getCreatedAtVersionSequenceCase match {
        case TableProtos.DataFragment.CreatedAtVersionSequenceCase.INLINE_CREATED_AT_VERSIONS =>
          Some(RowIdSource.Inline(f.getInlineCreatedAtVersions.toByteArray))
        case TableProtos.DataFragment.CreatedAtVersionSequenceCase.EXTERNAL_CREATED_AT_VERSIONS =>
          Some(external(f.getExternalCreatedAtVersions, f.getId, "created-at version", where))
        case _ => None
      },
      lastUpdatedAtVersions = f.getLastUpdatedAtVersionSequenceCase match {
        case TableProtos.DataFragment.LastUpdatedAtVersionSequenceCase.INLINE_LAST_UPDATED_AT_VERSIONS =>
          Some(RowIdSource.Inline(f.getInlineLastUpdatedAtVersions.toByteArray))
        case TableProtos.DataFragment.LastUpdatedAtVersionSequenceCase.EXTERNAL_LAST_UPDATED_AT_VERSIONS =>
          Some(external(f.getExternalLastUpdatedAtVersions, f.getId, "last-updated version", where))
        case _ => None
      })
  }

  private def external(e: TableProtos.ExternalFile, fragmentId: Long, what: String, where: String): RowIdSource = {
    checkRelative(e.getPath, s"fragment $fragmentId: $what file", where)
    RowIdSource.External(ExternalFile(e.getPath, e.getOffset, e.getSize))
  }

  // ---- build side (commits) ------------------------------------------------------------
  // Every message is built by overlaying the view on the message it was parsed from: the
  // fields the view models are set from it, the rest (fields the view does not model, fields
  // of newer writers kept by protobuf-java as unknown fields) stay as they were. A view that
  // was not changed therefore encodes to the very message it came from.

  /**
   * The Manifest message of `m`, built on `m.message`. Fields that describe one version and
   * that the view does not model (version_aux_data, tag, the deprecated transaction position
   * 21) are kept only when `m` is the version its message was parsed from, as Rust's
   * `Manifest::new_from_previous` resets them (rust/lance-table/src/format/manifest.rs).
   * `indexSectionAt` and `transactionAt` are the file positions of the index section and
   * the inline transaction (field 23, as pylance 14 writes it).
   */
  def encodeManifest(m: Manifest, indexSectionAt: Option[Long], transactionAt: Option[Long]): Array[Byte] = {
    val raw = m.message.manifest
    val b = raw.toBuilder
    if (m.version != raw.getVersion) b.setVersionAuxData(0).clearTag().clearTransactionSectionV1()
    b.setVersion(m.version)
    val rawSchema = FileMetadataCodec.schema(raw.getFieldsList.asScala.toSeq, raw.getSchemaMetadataMap, "manifest")
    if (rawSchema != m.schema) {
      val rawFields = raw.getFieldsList.asScala.map(f => f.getId -> f).toMap
      b.clearFields()
      m.schema.flatFields.foreach { f =>
        val built = FileMetadataCodec.buildField(f)
        // A field of the same id and type keeps what the view does not model (its encoding, newer fields).
        b.addFields(rawFields.get(f.id).filter(_.getLogicalType == f.logicalType).fold(built)(_.toBuilder
          .setParentId(f.parentId).setName(f.name).setNullable(f.nullable).clearMetadata().putAllMetadata(built.getMetadataMap).build()))
      }
      val rawMeta = raw.getSchemaMetadataMap.asScala
      b.clearSchemaMetadata()
      m.schema.metadata.foreach { case (k, v) =>
        b.putSchemaMetadata(k, rawMeta.get(k).filter(_.toStringUtf8 == v).getOrElse(ByteString.copyFromUtf8(v)))
      }
    }
    val rawFragments = raw.getFragmentsList.asScala.map(f => f.getId -> f).toMap
    b.clearFragments()
    m.fragments.foreach(f => b.addFragments(encodeFragment(f, rawFragments.get(f.id))))
    b.setReaderFeatureFlags(m.readerFeatureFlags).setWriterFeatureFlags(m.writerFeatureFlags)
    m.maxFragmentId.fold(b.clearMaxFragmentId())(id => b.setMaxFragmentId(id.toInt))
    b.setTransactionFile(m.transactionFile.getOrElse(""))
    m.writerVersion match {
      case Some(w) =>
        val rw = raw.getWriterVersion
        val wb = if (raw.hasWriterVersion && rw.getLibrary == w.library && rw.getVersion == w.version) rw.toBuilder
                 else TableProtos.Manifest.WriterVersion.newBuilder()
        wb.setLibrary(w.library).setVersion(w.version)
        w.prerelease.fold(wb.clearPrerelease())(wb.setPrerelease)
        b.setWriterVersion(wb)
      case None => b.clearWriterVersion()
    }
    b.setNextRowId(m.nextRowId)
    m.dataFormat match {
      case Some((format, version)) => b.setDataFormat(raw.getDataFormat.toBuilder.setFileFormat(format).setVersion(version))
      case None => b.clearDataFormat()
    }
    if (raw.getConfigMap.asScala != m.config) b.clearConfig().putAllConfig(m.config.asJava)
    if (raw.getTableMetadataMap.asScala != m.tableMetadata) b.clearTableMetadata().putAllTableMetadata(m.tableMetadata.asJava)
    val rawBases = raw.getBasePathsList.asScala.map(p => p.getId -> p).toMap
    b.clearBasePaths()
    m.basePaths.foreach { p =>
      val pb = rawBases.get(p.id).fold(TableProtos.BasePath.newBuilder())(_.toBuilder)
        .setId(p.id).setIsDatasetRoot(p.isDatasetRoot).setPath(p.path)
      p.name.fold(pb.clearName())(pb.setName)
      b.addBasePaths(pb)
    }
    m.branch.fold(b.clearBranch())(b.setBranch)
    m.timestamp match {
      case Some(t) => b.setTimestamp(com.google.protobuf.Timestamp.newBuilder().setSeconds(t.getEpochSecond).setNanos(t.getNano))
      case None => b.clearTimestamp()
    }
    indexSectionAt.fold(b.clearIndexSection())(b.setIndexSection)
    transactionAt.fold(b.clearTransactionSection())(b.setTransactionSection)
    b.build().toByteArray
  }

  /**
   * The index section to write with `m`: the one its message was read with, when `m` keeps
   * indices (an Append carries them unchanged; an Overwrite drops them all).
   */
  def encodeIndexSection(m: Manifest): Option[Array[Byte]] =
    if (m.indices.isEmpty) None else m.message.indexSection.filter(_.getIndicesCount > 0).map(_.toByteArray)

  /**
   * True if a field of `m` keeps its dictionary in the manifest file itself (legacy 0.1 tables:
   * Field.dictionary points at bytes before the manifest message, which Rust rewrites with
   * every manifest, rust/lance-table/src/io/manifest.rs write_manifest); this writer does not.
   */
  /**
   * Ids of the fields that form the table's unenforced primary key: Field.unenforced_primary_key
   * (12), which Lance sets from the field metadata `lance-schema:unenforced-primary-key`.
   */
  def primaryKeyFields(m: Manifest): Seq[Int] = {
    val flagged = m.message.manifest.getFieldsList.asScala.filter(_.getUnenforcedPrimaryKey).map(_.getId).toSeq
    val declared = m.schema.flatFields.filter(f => f.metadata.get("lance-schema:unenforced-primary-key")
      .exists(v => Set("true", "1", "yes")(v.trim.toLowerCase(java.util.Locale.ROOT)))).map(_.id)
    (flagged ++ declared).distinct.sorted
  }

  def hasManifestDictionaries(m: Manifest): Boolean =
    m.message.manifest.getFieldsList.asScala.exists(f => f.hasDictionary && f.getDictionary.getLength > 0)

  /** The position of the inline transaction as pylance 14 records it (field 23), if set. */
  private[proto] def transactionField23(m: Manifest): Option[Long] =
    if (m.message.manifest.hasTransactionSection) Some(m.message.manifest.getTransactionSection) else None

  /**
   * `fragments` as the bytes of a Manifest message holding only them: the form in which the
   * driver sends fragments to a task, a fraction of the size and time of Java serialization of
   * the same views (100,000 small fragments: seconds less on each side).
   */
  def encodeFragments(fragments: Seq[Fragment]): Array[Byte] =
    TableProtos.Manifest.newBuilder().addAllFragments(fragments.map(encodeFragment(_, None)).asJava).build().toByteArray

  /** The fragments [[encodeFragments]] encoded. */
  def decodeFragments(bytes: Array[Byte], where: String): IndexedSeq[Fragment] = {
    val m =
      try TableProtos.Manifest.parseFrom(bytes)
      catch { case e: InvalidProtocolBufferException => throw Errors.corruptProto(where, 0L, "Manifest", e) }
    m.getFragmentsList.asScala.map(fragment(_, where)).toIndexedSeq
  }

  private[proto] def encodeFragment(f: Fragment, raw: Option[TableProtos.DataFragment]): TableProtos.DataFragment = {
    val b = raw.fold(TableProtos.DataFragment.newBuilder())(_.toBuilder)
    b.setId(f.id).setPhysicalRows(f.physicalRows)
    val rawFiles = raw.fold(Map.empty[String, TableProtos.DataFile])(_.getFilesList.asScala.map(d => d.getPath -> d).toMap)
    b.clearFiles()
    f.files.foreach { d =>
      val db = rawFiles.get(d.path).fold(TableProtos.DataFile.newBuilder())(_.toBuilder)
        .setPath(d.path).clearFields().addAllFields(d.fields.map(Int.box).asJava)
        .clearColumnIndices().addAllColumnIndices(d.columnIndices.map(Int.box).asJava)
        .setFileMajorVersion(d.majorVersion).setFileMinorVersion(d.minorVersion).setFileSizeBytes(d.fileSizeBytes)
      d.baseId.fold(db.clearBaseId())(db.setBaseId)
      b.addFiles(db)
    }
    f.deletionFile match {
      case Some(d) =>
        val db = raw.filter(_.hasDeletionFile).fold(TableProtos.DeletionFile.newBuilder())(_.getDeletionFile.toBuilder)
          .setFileType(d.fileType match {
            case DeletionFileType.ArrowArray => TableProtos.DeletionFile.DeletionFileType.ARROW_ARRAY
            case DeletionFileType.Bitmap => TableProtos.DeletionFile.DeletionFileType.BITMAP
          })
          .setReadVersion(d.readVersion).setId(d.id).setNumDeletedRows(d.numDeletedRows)
        d.baseId.fold(db.clearBaseId())(db.setBaseId)
        b.setDeletionFile(db)
      case None => b.clearDeletionFile()
    }
    def ext(e: ExternalFile) = TableProtos.ExternalFile.newBuilder().setPath(e.path).setOffset(e.offset).setSize(e.size)
    f.rowIds match {
      case Some(RowIdSource.Inline(bytes)) => b.setInlineRowIds(ByteString.copyFrom(bytes))
      case Some(RowIdSource.External(e)) => b.setExternalRowIds(ext(e))
      case None => b.clearRowIdSequence()
    }
    f.lastUpdatedAtVersions match {
      case Some(RowIdSource.Inline(bytes)) => b.setInlineLastUpdatedAtVersions(ByteString.copyFrom(bytes))
      case Some(RowIdSource.External(e)) => b.setExternalLastUpdatedAtVersions(ext(e))
      case None => b.clearLastUpdatedAtVersionSequence()
    }
    f.createdAtVersions match {
      case Some(RowIdSource.Inline(bytes)) => b.setInlineCreatedAtVersions(ByteString.copyFrom(bytes))
      case Some(RowIdSource.External(e)) => b.setExternalCreatedAtVersions(ext(e))
      case None => b.clearCreatedAtVersionSequence()
    }
    b.build()
  }
}
