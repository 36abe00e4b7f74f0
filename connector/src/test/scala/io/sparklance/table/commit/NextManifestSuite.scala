package io.sparklance.table.commit

import java.io.File
import java.nio.file.Files
import java.time.Instant


import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.{FileVersion, LanceSchema}
import org.roaringbitmap.RoaringBitmap

import io.sparklance.table.{BitmapIndex, BTreeIndex, DataFile, DeletionFile, DeletionFileType, FeatureFlags, Fragment, IndexMetadata, Manifest, ManifestFile, RowIdSource}
import io.sparklance.table.commit.Operation.{Append, CreateIndex, Overwrite, ReserveFragments, Rewrite, RewriteGroup, RewrittenIndex, Update}
import io.sparklance.table.proto.{ManifestCodec, RowIdCodec, RowVersionCodec, TransactionCodec}
import io.sparklance.table.write.MovedRows
import io.sparklance.testutil.{CommitFixtures, Golden}
import io.sparklance.util.ScalaCompat._
import io.sparklance.util.{Bytes, LanceException}

/** The pure next-manifest function: what a transaction makes of the version it builds on. */
class NextManifestSuite extends AnyFunSuite {
  private val schema = CommitFixtures.schema
  private def frag(rows: Long, name: String = "f.lance", minor: Int = 2) =
    Fragment(0, IndexedSeq(DataFile(name, IndexedSeq(0, 1), IndexedSeq(0, 1), 2, minor, 100, None)), None, rows, None)
  private val t0 = Instant.parse("2026-11-26T00:00:00.123456789Z")
  private def ctx(newTable: Option[NewTable] = None, config: Map[String, String] = Map.empty) =
    NextManifest.Context(t0, Some("t.txn"), newTable, config)

  /** Through the bytes and back, as a reader will see it. */
  private def roundTrip(m: Manifest): Manifest = ManifestFile.parse(Bytes.wrap("m", 0, ManifestFile.serialize(m, Some(Array[Byte](1, 2)))))

  private def create(stable: Boolean, frags: Fragment*): Manifest =
    roundTrip(NextManifest(None, Transaction(0, "u0", Overwrite(frags.toIndexedSeq, schema)),
      ctx(Some(NewTable(schema, FileVersion.V2_2, stable)))))

  test("creating a table: version 1, ids from 0, format from the files, our writer, no flags") {
    val m = create(stable = false, frag(10), frag(5))
    assert(m.version == 1 && m.fragments.map(_.id) == Seq(0, 1) && m.maxFragmentId.contains(1L))
    assert(m.dataFormat.contains(("lance", "2.2")) && m.schema == schema)
    assert(m.readerFeatureFlags == 0 && m.writerFeatureFlags == 0 && m.config.isEmpty && m.indices.isEmpty)
    assert(m.writerVersion.map(_.library).contains("spark-lance") && m.timestamp.contains(t0) && m.transactionFile.contains("t.txn"))
    assert(m.transactionSectionOffset.contains(0L) && m.fragments.forall(_.rowIds.isEmpty))
    // An empty table: no max fragment id, the format the NewTable asks for.
    val empty = roundTrip(NextManifest(None, Transaction(0, "u", Overwrite(IndexedSeq.empty, schema)), ctx(Some(NewTable(schema, FileVersion.V2_1, false)))))
    assert(empty.maxFragmentId.isEmpty && empty.dataFormat.contains(("lance", "2.1")))
  }

  test("an append numbers its fragments after the highest id ever used and keeps the rest") {
    val base = create(stable = false, frag(10), frag(5))
    val next = roundTrip(NextManifest(Some(base), Transaction(1, "u1", Append(IndexedSeq(frag(3, "a.lance"), frag(4, "b.lance")))), ctx()))
    assert(next.version == 2 && next.fragments.map(_.id) == Seq(0, 1, 2, 3) && next.maxFragmentId.contains(3L))
    assert(next.fragments.take(2) == base.fragments && next.fragments.map(_.files.head.path).drop(2) == Seq("a.lance", "b.lance"))
    // After an overwrite fragment ids restart at 0 but the high-water mark stays.
    val over = roundTrip(NextManifest(Some(next), Transaction(2, "u2", Overwrite(IndexedSeq(frag(1)), schema)), ctx()))
    assert(over.fragments.map(_.id) == Seq(0) && over.maxFragmentId.contains(3L))
    val after = roundTrip(NextManifest(Some(over), Transaction(3, "u3", Append(IndexedSeq(frag(1)))), ctx()))
    assert(after.fragments.map(_.id) == Seq(0, 4) && after.maxFragmentId.contains(4L))
  }

  test("stable row ids: ranges from next_row_id, created/updated versions, flags, as pylance writes them") {
    val base = create(stable = true, frag(1000), frag(500))
    assert(base.readerFeatureFlags == FeatureFlags.StableRowIds && base.writerFeatureFlags == FeatureFlags.StableRowIds)
    assert(base.nextRowId == 1500)
    def ids(f: Fragment) = RowIdCodec.decode(f.rowIds.get.asInstanceOf[RowIdSource.Inline].bytes, f.physicalRows, "t").toSeq
    assert(ids(base.fragments(1)) == (1000L until 1500L))
    val next = roundTrip(NextManifest(Some(base), Transaction(1, "u", Append(IndexedSeq(frag(200)))), ctx()))
    assert(next.nextRowId == 1700 && ids(next.fragments(2)) == (1500L until 1700L))
    val created = next.fragments(2).createdAtVersions.get.asInstanceOf[RowIdSource.Inline].bytes
    assert(created.sameElements(RowVersionCodec.encodeUniform(200, 2)))
    assert(next.fragments(2).lastUpdatedAtVersions.get.asInstanceOf[RowIdSource.Inline].bytes.sameElements(created))
    // An overwrite keeps counting row ids.
    val over = roundTrip(NextManifest(Some(next), Transaction(2, "u", Overwrite(IndexedSeq(frag(5)), schema)), ctx()))
    assert(over.nextRowId == 1705 && ids(over.fragments.head) == (1700L until 1705L))

    // The same bytes as pylance 14 wrote for the fragments of its own stable-row-id table.
    val dir = new File(Golden.root, "stable_row_ids/dataset/_versions")
    val first = dir.listFiles().filter(_.getName.endsWith(".manifest")).map(f => ManifestFile.parse(Bytes.wrap(f.getPath, 0, Files.readAllBytes(f.toPath))))
      .minBy(_.version)
    var start = 0L
    first.fragments.foreach { f =>
      assert(f.rowIds.get.asInstanceOf[RowIdSource.Inline].bytes.sameElements(RowIdCodec.encodeRange(start, start + f.physicalRows)))
      assert(f.createdAtVersions.get.asInstanceOf[RowIdSource.Inline].bytes.sameElements(RowVersionCodec.encodeUniform(f.physicalRows, first.version)))
      start += f.physicalRows
    }
    assert(first.fragments.nonEmpty && first.nextRowId == start)
  }

  /** Each row's (created-at, last-updated-at) version in `f`. */
  private def rowVersions(f: Fragment): Seq[(Long, Long)] = {
    def of(s: Option[RowIdSource]) = {
      val v = RowVersionCodec.decode(s.get.asInstanceOf[RowIdSource.Inline].bytes, f.physicalRows, "t")
      assert(v.rows == f.physicalRows)
      (0L until f.physicalRows).map(i => v.at(i).get)
    }
    of(f.createdAtVersions).zip(of(f.lastUpdatedAtVersions))
  }

  test("stable row ids: an update's moved rows keep their created-at version, all its rows are last updated at the commit") {
    val v1 = create(stable = true, frag(4), frag(3)) // row ids 0-3 and 4-6
    val v2 = roundTrip(NextManifest(Some(v1), Transaction(1, "u1", Append(IndexedSeq(frag(2)))), ctx())) // 7-8
    // Rows 8, 1 and 5 moved (an UPDATE, or a MERGE's matched rows), one row inserted; their old copies deleted (not modelled here).
    val update = Update(IndexedSeq.empty, IndexedSeq.empty, IndexedSeq(MovedRows.withRowIds(IndexedSeq(frag(3, "m.lance")), Array(8L, 1L, 5L)).head,
      frag(1, "i.lance")), IndexedSeq.empty, rewriteColumns = false, None, IndexedSeq.empty)
    val v3 = roundTrip(NextManifest(Some(v2), Transaction(2, "u2", update), ctx()))
    def bytes(s: Option[RowIdSource]) = s.map(_.asInstanceOf[RowIdSource.Inline].bytes.toSeq)
    def kept(f: Fragment) = (f.id, f.physicalRows, bytes(f.rowIds), bytes(f.createdAtVersions), bytes(f.lastUpdatedAtVersions))
    assert(v3.version == 3 && v3.fragments.take(3).map(kept) == v2.fragments.map(kept), "fragments the update leaves keep their versions")
    val Seq(moved, inserted) = v3.fragments.drop(3)
    assert(rowVersions(moved) == Seq((2L, 3L), (1L, 3L), (1L, 3L)))
    assert(RowIdCodec.decode(inserted.rowIds.get.asInstanceOf[RowIdSource.Inline].bytes, 1, "t").toSeq == Seq(9L))
    assert(rowVersions(inserted) == Seq((3L, 3L)))
    // Runs of positions, as pylance writes them.
    assert(moved.createdAtVersions.get.asInstanceOf[RowIdSource.Inline].bytes.toSeq == Seq[Byte](10, 8, 10, 4, 10, 2, 16, 1, 16, 2,
      10, 10, 10, 6, 10, 4, 8, 1, 16, 3, 16, 1))
    // The same transaction built on a later version (a commit that lost a race) stamps that version;
    // a row moved before keeps the version that created it (its first copy's).
    val v4 = roundTrip(NextManifest(Some(v3), Transaction(3, "u3", Append(IndexedSeq(frag(1)))), ctx()))
    val again = Update(IndexedSeq.empty, IndexedSeq.empty, IndexedSeq(MovedRows.withRowIds(IndexedSeq(frag(2, "m2.lance")), Array(1L, 8L)).head),
      IndexedSeq.empty, rewriteColumns = false, None, IndexedSeq.empty)
    assert(rowVersions(roundTrip(NextManifest(Some(v4), Transaction(3, "u4", again), ctx())).fragments.last) == Seq((1L, 5L), (2L, 5L)))
  }

  test("row versions as pylance's compaction writes them: runs spanning ranges with bitmaps") {
    // pylance 14.0.2, compact_files after deletions: runs of 6 and 8 rows (positions masked by a
    // bitmap, bits e1 03 and dd 03) at version 1, then 3 rows at version 2.
    val bytes = Array(10, 12, 10, 8, 26, 6, 16, 10, 26, 2, 225, 3, 16, 1, 10, 12, 10, 8, 26, 6, 16, 10, 26, 2, 221, 3, 16, 1,
      10, 8, 10, 4, 10, 2, 16, 3, 16, 2).map(_.toByte)
    val v = RowVersionCodec.decode(bytes, 17, "t")
    assert(v.rows == 17 && (0L until 17L).map(i => v.at(i).get) == Seq.fill(14)(1L) ++ Seq.fill(3)(2L) && v.at(17).isEmpty)
    // Runs that name more positions than the fragment has rows are refused, without counting them all.
    val e = intercept[LanceException](RowVersionCodec.decode(bytes, 16, "t"))
    assert(e.errorClass == "LANCE_CORRUPT_FILE" && e.getMessage.contains("past the fragment's 16"), e.getMessage)
    val huge = (1 to 1000).foldLeft(io.sparklance.table.proto.RowIdProtos.RowDatasetVersionSequence.newBuilder())((b, _) =>
      b.addRuns(io.sparklance.table.proto.RowIdProtos.RowDatasetVersionRun.newBuilder().setVersion(1).setSpan(
        io.sparklance.table.proto.RowIdProtos.U64Segment.newBuilder().setRange(
          io.sparklance.table.proto.RowIdProtos.U64Segment.Range.newBuilder().setStart(0).setEnd(Int.MaxValue))))).build().toByteArray
    assert(intercept[LanceException](RowVersionCodec.decode(huge, 17, "t")).errorClass == "LANCE_CORRUPT_FILE")
  }

  test("an overwrite replaces schema and fragments, drops indices, upserts config; the config flag follows") {
    val other = LanceSchema.fromArrow(new org.apache.arrow.vector.types.pojo.Schema(java.util.Arrays.asList(
      io.sparklance.testutil.ArrowData.field("x", new org.apache.arrow.vector.types.pojo.ArrowType.Int(32, true)))), "t")
    val base = create(stable = false, frag(10))
    val next = roundTrip(NextManifest(Some(base), Transaction(1, "u", Overwrite(IndexedSeq(frag(2, minor = 1)), other, Map("k" -> "v"))), ctx()))
    assert(next.schema == other && next.config == Map("k" -> "v") && next.writerFeatureFlags == FeatureFlags.TableConfig)
    assert(next.dataFormat.contains(("lance", "2.1")) && next.indices.isEmpty)
    val app = roundTrip(NextManifest(Some(next), Transaction(2, "u", Append(IndexedSeq(frag(1, minor = 1)))), ctx(config = Map("spark-lance.txn.a" -> "3"))))
    assert(app.config == Map("k" -> "v", "spark-lance.txn.a" -> "3") && app.schema == other)
  }

  test("a table this writer cannot extend is refused") {
    val base = create(stable = false, frag(1))
    val flagged = base.copy(writerFeatureFlags = 256)
    val e = intercept[LanceException](NextManifest(Some(flagged), Transaction(1, "u", Append(IndexedSeq(frag(1)))), ctx()))
    assert(e.errorClass == "LANCE_UNSUPPORTED_FEATURE")
    val old = base.copy(writerVersion = None)
    assert(intercept[LanceException](NextManifest(Some(old), Transaction(1, "u", Append(IndexedSeq(frag(1)))), ctx())).errorClass == "LANCE_UNSUPPORTED_FEATURE")
    val otherFormat = intercept[LanceException](NextManifest(Some(base), Transaction(1, "u", Append(IndexedSeq(frag(1, minor = 1)))), ctx()))
    assert(otherFormat.errorClass == "LANCE_INVALID_ARGUMENT")
    val mixed = Overwrite(IndexedSeq(frag(1, minor = 1), frag(1, minor = 2)), schema)
    assert(intercept[LanceException](NextManifest(Some(base), Transaction(1, "u", mixed), ctx())).errorClass == "LANCE_INVALID_ARGUMENT")
  }

  test("an update that rewrote columns in place takes its fragments out of the indices on those columns") {
    // transaction.rs build_manifest, Update: prune_updated_fields_from_indices.
    def index(uuid: Int, name: String, field: Int) = IndexMetadata(f"00000000-0000-0000-0000-$uuid%012d", name, IndexedSeq(field), 1,
      Some(RoaringBitmap.bitmapOf(0, 1, 2)), "ZoneMapIndexDetails", None, Map("zonemap.lance" -> 10L),
      ArraySeq[Byte](8, 100), Some(0), Some(1764000000000L))
    val base = create(stable = false, frag(10), frag(10), frag(10))
    val indexed = roundTrip(NextManifest(Some(base), Transaction(1, "u", CreateIndex(IndexedSeq(index(1, "id_idx", 0), index(2, "s_idx", 1)),
      IndexedSeq.empty)), ctx()))
    // Column s (field 1) of fragments 0 and 2 rewritten in place, as pylance's update_columns records it.
    val patched = indexed.fragments.filter(_.id != 1).map(f => f.copy(files = f.files :+ DataFile(s"s${f.id}.lance", IndexedSeq(1), IndexedSeq(0), 2, 2, 50, None)))
    val update = Update(IndexedSeq.empty, patched, IndexedSeq.empty, IndexedSeq(1), rewriteColumns = true, None, IndexedSeq.empty)
    val next = roundTrip(NextManifest(Some(indexed), Transaction(2, "u", update), ctx()))
    assert(next.indices.map(i => i.name -> i.fragments.get.toArray.toSeq) == Seq("id_idx" -> Seq(0, 1, 2), "s_idx" -> Seq(1)))
    // Everything else of each index is as it was.
    assert(next.indices.map(_.copy(fragments = None)) == indexed.indices.map(_.copy(fragments = None)))
    assert(next.fragments == indexed.fragments.map(f => patched.find(_.id == f.id).getOrElse(f)))
    // No field modified (rows rewritten, or deletions only): the indices are kept as they are.
    val rows = roundTrip(NextManifest(Some(indexed), Transaction(2, "u", update.copy(fieldsModified = IndexedSeq.empty)), ctx()))
    assert(rows.indices == indexed.indices)
  }

  test("a rewrite replaces each group's fragments by new ones numbered after the highest id, in id order; its transaction round-trips") {
    val base = create(stable = false, frag(10, "a.lance"), frag(5, "b.lance"), frag(7, "c.lance"))
    val group = RewriteGroup(IndexedSeq(base.fragments(0), base.fragments(2)), IndexedSeq(frag(17, "n.lance")))
    val txn = Transaction(1, "u1", Rewrite(IndexedSeq(group)))
    val next = roundTrip(NextManifest(Some(base), txn, ctx()))
    assert(next.fragments.map(f => (f.id, f.files.head.path)) == Seq((1L, "b.lance"), (3L, "n.lance")) && next.maxFragmentId.contains(3L))
    val back = TransactionCodec.parse(Bytes.wrap("t", 0, TransactionCodec.encode(txn))).operation.asInstanceOf[Rewrite]
    assert(back.groups.map(g => (g.oldFragmentIds, g.newFragments.map(_.files.head.path))) == Seq((Seq(0L, 2L), Seq("n.lance"))))
  }

  test("a rewrite over a fragment that changed since it was read is refused: deleted rows would come back") {
    val base = create(stable = false, frag(10, "a.lance"), frag(5, "b.lance"))
    val read = base.fragments.head
    val deleted = base.copy(fragments = base.fragments.updated(0, read.copy(deletionFile = Some(DeletionFile(DeletionFileType.ArrowArray, 1, 7, 1, None)))))
    val rewrite = Rewrite(IndexedSeq(RewriteGroup(IndexedSeq(read, base.fragments(1)), IndexedSeq(frag(15, "n.lance")))))
    val e = intercept[IllegalStateException](NextManifest(Some(deleted), Transaction(1, "u1", rewrite), ctx()))
    assert(e.getMessage.contains("fragment 0 changed after the compaction read it"))
    val gone = base.copy(fragments = base.fragments.tail)
    assert(intercept[IllegalStateException](NextManifest(Some(gone), Transaction(1, "u1", rewrite), ctx())).getMessage.contains("no longer has fragment 0"))
  }

  test("a rewrite on stable row ids: a BITMAP index covers the new fragments, a BTREE no longer covers the group") {
    val base = create(stable = true, frag(10, "a.lance"), frag(5, "b.lance"), frag(5, "c.lance"))
    def index(uuid: Int, name: String, kind: String) = IndexMetadata(f"00000000-0000-0000-0000-$uuid%012d", name, IndexedSeq(0), 1,
      Some(RoaringBitmap.bitmapOf(0, 1, 2)), kind, None)
    val indexed = roundTrip(NextManifest(Some(base), Transaction(1, "u1", CreateIndex(IndexedSeq(index(1, "b", BitmapIndex.Kind),
      index(2, "t", BTreeIndex.Kind)), IndexedSeq.empty)), ctx()))
    val moved = frag(15, "n.lance").copy(rowIds = Some(RowIdSource.Inline(RowIdCodec.encodeRuns(Seq(Array(0L, 1L), Array(10L, 12L))))))
    val rewrite = Rewrite(IndexedSeq(RewriteGroup(indexed.fragments.take(2), IndexedSeq(moved))))
    val next = roundTrip(NextManifest(Some(indexed), Transaction(2, "u2", rewrite), ctx()))
    assert(next.fragments.map(_.id) == Seq(2, 3))
    assert(next.indices.map(i => i.name -> i.fragments.get.toArray.toSeq) == Seq("b" -> Seq(2, 3), "t" -> Seq(2)))
    assert(RowIdCodec.decode(next.fragments(1).rowIds.get.asInstanceOf[RowIdSource.Inline].bytes, 4, "t").toSeq == Seq(0L, 1L, 10L, 12L))
    assert(next.nextRowId == indexed.nextRowId, "moved rows take no new ids")
  }

  test("ReserveFragments moves only the fragment-id high-water mark; a Rewrite with reserved ids and remapped indices; both round-trip") {
    val base = create(stable = false, frag(10, "a.lance"), frag(5, "b.lance"), frag(7, "c.lance"))
    def index(uuid: Int, name: String, kind: String, frags: Int*) = IndexMetadata(f"00000000-0000-0000-0000-$uuid%012d", name, IndexedSeq(0), 1,
      Some(RoaringBitmap.bitmapOf(frags: _*)), kind, None, Map("f.lance" -> 10L), indexVersion = Some(0))
    val indexed = roundTrip(NextManifest(Some(base), Transaction(1, "u1", CreateIndex(IndexedSeq(index(1, "b", BitmapIndex.Kind, 0, 1, 2),
      index(2, "t", BTreeIndex.Kind, 0, 1), index(3, "z", "ZoneMapIndexDetails", 0, 1, 2)), IndexedSeq.empty)), ctx()))
    val reserved = roundTrip(NextManifest(Some(indexed), Transaction(2, "u2", ReserveFragments(2)), ctx()))
    assert(reserved.maxFragmentId.contains(4L) && reserved.fragments == indexed.fragments && reserved.indices == indexed.indices)
    assert(TransactionCodec.parse(Bytes.wrap("t", 0, TransactionCodec.encode(Transaction(2, "u2", ReserveFragments(2))))).operation == ReserveFragments(2))

    val remapped = IndexedSeq(
      RewrittenIndex(index(1, "b", "").uuid, "00000000-0000-0000-0000-000000000011", BitmapIndex.Kind, ArraySeq.empty, 0, Map("bitmap_page_lookup.lance" -> 99L)),
      RewrittenIndex(index(2, "t", "").uuid, "00000000-0000-0000-0000-000000000012", BTreeIndex.Kind, ArraySeq.empty, 0,
        Map("page_data.lance" -> 7L, "page_lookup.lance" -> 8L)))
    val rewrite = Rewrite(IndexedSeq(RewriteGroup(reserved.fragments.take(2), IndexedSeq(frag(15, "n.lance").copy(id = 4)))), remapped)
    val txn = Transaction(3, "u3", rewrite)
    val next = roundTrip(NextManifest(Some(reserved), txn, ctx()))
    assert(next.fragments.map(_.id) == Seq(2L, 4L) && next.maxFragmentId.contains(4L))
    // The remapped indices: new uuids and files, the new fragment in place of the old ones, the rest as it was.
    val byName = next.indices.map(i => i.name -> i).toMap
    assert(byName("b").uuid.endsWith("11") && byName("b").fragments.get.toArray.toSeq == Seq(2, 4) && byName("b").fileSizes == Map("bitmap_page_lookup.lance" -> 99L))
    assert(byName("t").uuid.endsWith("12") && byName("t").fragments.get.toArray.toSeq == Seq(4) && byName("t").datasetVersion == 1)
    assert(byName("z").uuid.endsWith("3") && byName("z").fragments.get.toArray.toSeq == Seq(2))
    val back = TransactionCodec.parse(Bytes.wrap("t", 0, TransactionCodec.encode(txn))).operation.asInstanceOf[Rewrite]
    assert(back.rewrittenIndices == remapped)
    // An index the compaction remapped that is gone from the version it commits on refuses the commit.
    val dropped = ManifestCodec.replaceIndices(reserved, Set(index(2, "t", "").uuid), Nil)
    assert(intercept[IllegalStateException](NextManifest(Some(dropped), txn, ctx())).getMessage.contains("no longer has index"))
  }
}
