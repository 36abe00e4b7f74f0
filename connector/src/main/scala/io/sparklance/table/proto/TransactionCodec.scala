package io.sparklance.table.proto

import scala.jdk.CollectionConverters._

import com.google.protobuf.{ByteString, InvalidProtocolBufferException}

import io.sparklance.format.proto.FileMetadataCodec
import io.sparklance.table.BasePath
import io.sparklance.table.commit.{KeyExistenceFilter, Operation, Transaction}
import io.sparklance.table.commit.Operation._
import io.sparklance.util.ScalaCompat._
import io.sparklance.util.{Bytes, Errors}

// Spec: protos/lance/transaction.proto and lance-format/lance rust/lance/src/dataset/transaction.rs
// (TryFrom<pb::Transaction> / From<&Transaction>). The only place that turns Transaction
// messages into table.commit.Transaction and back.

object TransactionCodec {
  import TransactionProtos.{Transaction => Pb}

  /** Parses a `.txn` file or an inline transaction section. */
  def parse(bytes: Bytes): Transaction = {
    val where = bytes.path
    val t =
      try Pb.parseFrom(bytes.toArray)
      catch { case e: InvalidProtocolBufferException => throw Errors.corruptProto(where, bytes.fileOffset, "Transaction", e) }
    Transaction(t.getReadVersion, t.getUuid, operation(t, where), t.getTransactionPropertiesMap.asScala.toMap, t.getTag,
      Some(new TransactionMessage(t)))
  }

  private def fragments(fs: java.util.List[TableProtos.DataFragment], where: String) =
    fs.asScala.map(ManifestCodec.fragment(_, where)).toIndexedSeq

  private def rewrittenIndex(r: Pb.Rewrite.RewrittenIndex, where: String): RewrittenIndex =
    RewrittenIndex(ManifestCodec.uuidOf(r.getOldId, "a rewritten index", where), ManifestCodec.uuidOf(r.getNewId, "a rewritten index", where),
      r.getNewIndexDetails.getTypeUrl.split('.').last, ArraySeq.unsafeWrapArray(r.getNewIndexDetails.getValue.toByteArray),
      r.getNewIndexVersion, r.getNewIndexFilesList.asScala.iterator.filter(_.getSizeBytes > 0).map(f => f.getPath -> f.getSizeBytes).toMap)

  private def encodeRewrittenIndex(r: RewrittenIndex): Pb.Rewrite.RewrittenIndex = {
    val b = Pb.Rewrite.RewrittenIndex.newBuilder().setOldId(ManifestCodec.uuidMessage(r.oldId)).setNewId(ManifestCodec.uuidMessage(r.newId))
      .setNewIndexDetails(ManifestCodec.detailsMessage(r.kind, r.details)).setNewIndexVersion(r.indexVersion)
    r.fileSizes.toSeq.sortBy(_._1).foreach { case (path, size) => b.addNewIndexFiles(TableProtos.IndexFile.newBuilder().setPath(path).setSizeBytes(size)) }
    b.build()
  }

  private def ids(xs: java.util.List[java.lang.Long]) = xs.asScala.map(_.longValue).toIndexedSeq

  private def shards(ss: java.util.List[TableProtos.CompactedSsTable]) =
    ss.asScala.map(s => s.getShardId.getUuid.toByteArray.map(b => f"${b & 0xff}%02x").mkString -> s.getGeneration).toIndexedSeq

  /** A merge-insert's inserted keys; a bloom bitset whose size disagrees with its bit count is refused. */
  private def keyFilter(f: Pb.KeyExistenceFilter, where: String): KeyExistenceFilter = {
    val fields = f.getFieldIdsList.asScala.map(_.intValue).toIndexedSeq
    f.getDataCase match {
      case Pb.KeyExistenceFilter.DataCase.EXACT =>
        KeyExistenceFilter(fields, KeyExistenceFilter.Exact(f.getExact.getKeyHashesList.asScala.map(_.longValue).toSet))
      case Pb.KeyExistenceFilter.DataCase.BLOOM =>
        val b = f.getBloom
        if (b.getBitmap.size.toLong * 8 != (b.getNumBits & 0xffffffffL))
          throw Errors.corrupt(where, s"an inserted-keys bloom filter of ${b.getBitmap.size} bytes says it has ${b.getNumBits & 0xffffffffL} bits")
        KeyExistenceFilter(fields, KeyExistenceFilter.Bloom(b.getBitmap.toByteArray, b.getNumBits, b.getNumberOfItems, b.getProbability))
      case _ => throw Errors.corrupt(where, "an inserted-keys filter holds neither key hashes nor a bloom filter")
    }
  }

  private def encodeKeyFilter(f: KeyExistenceFilter): Pb.KeyExistenceFilter = {
    val b = Pb.KeyExistenceFilter.newBuilder().addAllFieldIds(f.fieldIds.map(Integer.valueOf).asJava)
    f.data match {
      case KeyExistenceFilter.Exact(hashes) =>
        b.setExact(Pb.ExactKeySetFilter.newBuilder().addAllKeyHashes(hashes.map(java.lang.Long.valueOf).asJava))
      case KeyExistenceFilter.Bloom(bitmap, numBits, items, probability) =>
        b.setBloom(Pb.BloomFilter.newBuilder().setBitmap(ByteString.copyFrom(bitmap)).setNumBits(numBits)
          .setNumberOfItems(items).setProbability(probability))
    }
    b.build()
  }

  private def mapUpdate(m: Pb.UpdateMap): MapUpdate =
    MapUpdate(m.getUpdateEntriesList.asScala.map(e => e.getKey -> (if (e.hasValue) Some(e.getValue) else None)).toMap, m.getReplace)

  private def operation(t: Pb, where: String): Operation = t.getOperationCase match {
    case Pb.OperationCase.APPEND => Append(fragments(t.getAppend.getFragmentsList, where))
    case Pb.OperationCase.DELETE =>
      val d = t.getDelete
      Delete(fragments(d.getUpdatedFragmentsList, where), ids(d.getDeletedFragmentIdsList), d.getPredicate)
    case Pb.OperationCase.OVERWRITE =>
      val o = t.getOverwrite
      Overwrite(fragments(o.getFragmentsList, where), FileMetadataCodec.schema(o.getSchemaList.asScala.toSeq, o.getSchemaMetadataMap, where),
        o.getConfigUpsertValuesMap.asScala.toMap)
    case Pb.OperationCase.CREATE_INDEX =>
      val c = t.getCreateIndex
      CreateIndex(c.getNewIndicesList.asScala.map(ManifestCodec.indexMetadata(_, where)).toIndexedSeq,
        c.getRemovedIndicesList.asScala.map(ManifestCodec.indexMetadata(_, where)).toIndexedSeq)
    case Pb.OperationCase.REWRITE =>
      val r = t.getRewrite
      // Old writers used the flat form (1, 2); Rust reads it as one group.
      val groups =
        if (r.getGroupsCount > 0) r.getGroupsList.asScala.map(g => (g.getOldFragmentsList, g.getNewFragmentsList)).toIndexedSeq
        else if (r.getOldFragmentsCount > 0 || r.getNewFragmentsCount > 0) IndexedSeq((r.getOldFragmentsList, r.getNewFragmentsList))
        else IndexedSeq.empty
      Rewrite(groups.map { case (o, n) => RewriteGroup(fragments(o, where), fragments(n, where)) },
        r.getRewrittenIndicesList.asScala.map(rewrittenIndex(_, where)).toIndexedSeq)
    case Pb.OperationCase.MERGE =>
      val m = t.getMerge
      Merge(fragments(m.getFragmentsList, where), FileMetadataCodec.schema(m.getSchemaList.asScala.toSeq, m.getSchemaMetadataMap, where),
        m.getPreservesNullability)
    case Pb.OperationCase.RESTORE => Restore(t.getRestore.getVersion)
    case Pb.OperationCase.RESERVE_FRAGMENTS => ReserveFragments(t.getReserveFragments.getNumFragments)
    case Pb.OperationCase.UPDATE =>
      val u = t.getUpdate
      Update(ids(u.getRemovedFragmentIdsList), fragments(u.getUpdatedFragmentsList, where), fragments(u.getNewFragmentsList, where),
        u.getFieldsModifiedList.asScala.map(_.intValue).toIndexedSeq, u.getUpdateMode == Pb.UpdateMode.REWRITE_COLUMNS,
        if (u.hasInsertedRows) Some(keyFilter(u.getInsertedRows, where)) else None, shards(u.getCompactedSstablesList))
    case Pb.OperationCase.PROJECT =>
      val p = t.getProject
      Project(FileMetadataCodec.schema(p.getSchemaList.asScala.toSeq, java.util.Map.of[String, ByteString](), where),
        p.getPreservesNullability)
    case Pb.OperationCase.UPDATE_CONFIG =>
      val c = t.getUpdateConfig
      // The deprecated forms (1-4) read as the current ones, as Rust's TryFrom does.
      val config =
        if (c.hasConfigUpdates) Some(mapUpdate(c.getConfigUpdates))
        else if (c.getUpsertValuesCount > 0 || c.getDeleteKeysCount > 0)
          Some(MapUpdate(c.getUpsertValuesMap.asScala.map { case (k, v) => k -> Some(v) }.toMap ++
            c.getDeleteKeysList.asScala.map(_ -> None), replace = false))
        else None
      val schemaMeta =
        if (c.hasSchemaMetadataUpdates) Some(mapUpdate(c.getSchemaMetadataUpdates))
        else if (c.getSchemaMetadataCount > 0) Some(MapUpdate(c.getSchemaMetadataMap.asScala.map { case (k, v) => k -> Some(v) }.toMap, replace = true))
        else None
      val fieldMeta =
        if (c.getFieldMetadataUpdatesCount > 0) c.getFieldMetadataUpdatesMap.asScala.map { case (k, v) => k.intValue -> mapUpdate(v) }.toMap
        else c.getFieldMetadataMap.asScala.map { case (k, v) =>
          k.intValue -> MapUpdate(v.getMetadataMap.asScala.map { case (a, b) => a -> Some(b) }.toMap, replace = true)
        }.toMap
      UpdateConfig(config, if (c.hasTableMetadataUpdates) Some(mapUpdate(c.getTableMetadataUpdates)) else None, schemaMeta, fieldMeta)
    case Pb.OperationCase.DATA_REPLACEMENT =>
      DataReplacement(t.getDataReplacement.getReplacementsList.asScala.map { r =>
        r.getFragmentId -> r.getNewFile.getFieldsList.asScala.map(_.intValue).toIndexedSeq
      }.toIndexedSeq)
    case Pb.OperationCase.DATA_OVERLAY => DataOverlay(t.getDataOverlay.getGroupsList.asScala.map(_.getFragmentId).toIndexedSeq)
    case Pb.OperationCase.UPDATE_MEM_WAL_STATE => UpdateMemWalState(shards(t.getUpdateMemWalState.getCompactedSstablesList))
    case Pb.OperationCase.CLONE =>
      val c = t.getClone
      Clone(c.getIsShallow, c.getRefVersion, c.getRefPath, if (c.hasBranchName) Some(c.getBranchName) else None,
        if (c.hasRefName) Some(c.getRefName) else None)
    case Pb.OperationCase.UPDATE_BASES =>
      UpdateBases(t.getUpdateBases.getNewBasesList.asScala.map { b =>
        BasePath(b.getId, if (b.hasName) Some(b.getName) else None, b.getIsDatasetRoot, b.getPath)
      }.toIndexedSeq)
    case _ =>
      // A newer writer's operation is an unknown field in the oneof's number range (100 up).
      t.getUnknownFields.asMap.keySet.asScala.map(_.intValue).filter(n => n >= 100 && n < 200).minOption match {
        case Some(n) => Unknown(n)
        case None => throw Errors.corrupt(where, "the transaction names no operation")
      }
  }

  // ---- build side ------------------------------------------------------------------------

  /**
   * The serialized Transaction of `t`, built on the message it was parsed from (if any), so
   * that what the view does not model is kept. Append, Overwrite, and a new CreateIndex, Delete,
   * Update (rows rewritten), Merge, Project or UpdateConfig (table config) are built from the
   * view; the other operations are only ever re-encoded from their message.
   */
  def encode(t: Transaction): Array[Byte] = {
    val raw = t.message.map(_.transaction)
    val b = raw.fold(Pb.newBuilder())(_.toBuilder)
    b.setReadVersion(t.readVersion).setUuid(t.uuid).setTag(t.tag)
    // Rewritten only when changed, so that a rebuilt message keeps its entries' order.
    if (b.getTransactionPropertiesMap.asScala != t.properties) b.clearTransactionProperties().putAllTransactionProperties(t.properties.asJava)
    def positional(fs: IndexedSeq[io.sparklance.table.Fragment], rawFs: Seq[TableProtos.DataFragment]) =
      fs.zipWithIndex.map { case (f, i) => ManifestCodec.encodeFragment(f, rawFs.lift(i)) }.asJava
    t.operation match {
      case Append(fs) =>
        val ab = raw.filter(_.hasAppend).fold(Pb.Append.newBuilder())(_.getAppend.toBuilder)
        val rawFs = ab.getFragmentsList.asScala.toSeq
        b.setAppend(ab.clearFragments().addAllFragments(positional(fs, rawFs)))
      case Overwrite(fs, schema, config) =>
        val ob = raw.filter(_.hasOverwrite).fold(Pb.Overwrite.newBuilder())(_.getOverwrite.toBuilder)
        val rawFs = ob.getFragmentsList.asScala.toSeq
        val rawFields = ob.getSchemaList.asScala.map(f => f.getId -> f).toMap
        ob.clearFragments().addAllFragments(positional(fs, rawFs))
        ob.clearSchema()
        schema.flatFields.foreach { f =>
          val built = FileMetadataCodec.buildField(f)
          ob.addSchema(rawFields.get(f.id).filter(r => FileMetadataCodec.flatField(r) == f).getOrElse(built))
        }
        // Rust never fills the Overwrite's schema_metadata (3); the schema's metadata travels here only when set.
        if (ob.getSchemaMetadataMap.asScala.map { case (k, v) => k -> v.toStringUtf8 } != schema.metadata) {
          ob.clearSchemaMetadata()
          schema.metadata.foreach { case (k, v) => ob.putSchemaMetadata(k, ByteString.copyFromUtf8(v)) }
        }
        if (ob.getConfigUpsertValuesMap.asScala != config) ob.clearConfigUpsertValues().putAllConfigUpsertValues(config.asJava)
        b.setOverwrite(ob)
      case Delete(updated, deletedIds, predicate) if raw.isEmpty =>
        b.setDelete(Pb.Delete.newBuilder()
          .addAllUpdatedFragments(updated.map(ManifestCodec.encodeFragment(_, None)).asJava)
          .addAllDeletedFragmentIds(deletedIds.map(java.lang.Long.valueOf).asJava)
          .setPredicate(predicate))
      case u: Update if raw.isEmpty =>
        if (u.rewriteColumns || u.compactedShards.nonEmpty)
          throw new IllegalStateException("this writer commits Updates that rewrite rows, without MemWAL shards")
        val ub = Pb.Update.newBuilder()
        u.insertedRows.foreach(f => ub.setInsertedRows(encodeKeyFilter(f)))
        b.setUpdate(ub
          .addAllRemovedFragmentIds(u.removedFragmentIds.map(java.lang.Long.valueOf).asJava)
          .addAllUpdatedFragments(u.updatedFragments.map(ManifestCodec.encodeFragment(_, None)).asJava)
          .addAllNewFragments(u.newFragments.map(ManifestCodec.encodeFragment(_, None)).asJava)
          .addAllFieldsModified(u.fieldsModified.map(java.lang.Integer.valueOf).asJava)
          .setUpdateMode(Pb.UpdateMode.REWRITE_ROWS))
      case m: Merge if raw.isEmpty =>
        val mb = Pb.Merge.newBuilder()
          .addAllFragments(m.fragments.map(ManifestCodec.encodeFragment(_, None)).asJava)
          .addAllSchema(m.schema.flatFields.map(FileMetadataCodec.buildField).asJava)
          .setPreservesNullability(m.preservesNullability)
        m.schema.metadata.foreach { case (k, v) => mb.putSchemaMetadata(k, ByteString.copyFromUtf8(v)) }
        b.setMerge(mb)
      case p: Project if raw.isEmpty =>
        b.setProject(Pb.Project.newBuilder()
          .addAllSchema(p.schema.flatFields.map(FileMetadataCodec.buildField).asJava)
          .setPreservesNullability(p.preservesNullability))
      case c: UpdateConfig if raw.isEmpty =>
        if (c.tableMetadata.isDefined || c.schemaMetadata.isDefined || c.fieldMetadata.nonEmpty)
          throw new IllegalStateException("this writer commits UpdateConfig of the table config only")
        val cb = Pb.UpdateConfig.newBuilder()
        c.config.foreach { u =>
          val ub = Pb.UpdateMap.newBuilder().setReplace(u.replace)
          u.entries.toSeq.sortBy(_._1).foreach { case (k, v) =>
            val eb = Pb.UpdateMapEntry.newBuilder().setKey(k)
            v.foreach(eb.setValue)
            ub.addUpdateEntries(eb)
          }
          cb.setConfigUpdates(ub)
        }
        b.setUpdateConfig(cb)
      case Rewrite(groups, rewritten) if raw.isEmpty =>
        // Groups only (field 3), as Rust writes them; the flat form (1, 2) is for old readers.
        b.setRewrite(Pb.Rewrite.newBuilder().addAllGroups(groups.map { g =>
          Pb.Rewrite.RewriteGroup.newBuilder()
            .addAllOldFragments(g.oldFragments.map(ManifestCodec.encodeFragment(_, None)).asJava)
            .addAllNewFragments(g.newFragments.map(ManifestCodec.encodeFragment(_, None)).asJava).build()
        }.asJava).addAllRewrittenIndices(rewritten.map(encodeRewrittenIndex).asJava))
      case CreateIndex(added, removed) if raw.isEmpty =>
        b.setCreateIndex(Pb.CreateIndex.newBuilder()
          .addAllNewIndices(added.map(ManifestCodec.buildIndex).asJava)
          .addAllRemovedIndices(removed.map(ManifestCodec.buildIndex).asJava))
      case c: Clone if raw.isEmpty =>
        val cb = Pb.Clone.newBuilder().setIsShallow(c.shallow).setRefVersion(c.refVersion).setRefPath(c.refPath)
        c.refName.foreach(cb.setRefName)
        c.branch.foreach(cb.setBranchName)
        b.setClone(cb)
      case ReserveFragments(n) if raw.isEmpty => b.setReserveFragments(Pb.ReserveFragments.newBuilder().setNumFragments(n))
      case Restore(version) if raw.isEmpty => b.setRestore(Pb.Restore.newBuilder().setVersion(version))
      case UpdateBases(bases) if raw.isEmpty =>
        b.setUpdateBases(Pb.UpdateBases.newBuilder().addAllNewBases(bases.map { p =>
          val pb = TableProtos.BasePath.newBuilder().setId(p.id).setIsDatasetRoot(p.isDatasetRoot).setPath(p.path)
          p.name.foreach(pb.setName)
          pb.build()
        }.asJava))
      case other =>
        if (raw.isEmpty) throw new IllegalStateException(s"writing a ${other.name} transaction is not supported yet")
    }
    b.build().toByteArray
  }
}
