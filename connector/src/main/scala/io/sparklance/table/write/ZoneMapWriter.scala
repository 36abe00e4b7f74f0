package io.sparklance.table.write

import java.nio.ByteBuffer
import java.util.UUID

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.{BufferAllocator, RootAllocator}
import org.apache.arrow.vector._
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType, Schema}
import org.roaringbitmap.RoaringBitmap

import io.sparklance.format.arrow.ArrowVectors
import io.sparklance.format.{FileVersion, LanceSchema}
import io.sparklance.format.write.{FileWriterOptions, LanceFileWriter}
import io.sparklance.storage.{ObjectStore, Paths}
import io.sparklance.table._
import io.sparklance.table.commit.{CommitRequest, Operation, TableCommitter}
import io.sparklance.table.proto.ZoneMapDetailsCodec
import io.sparklance.util.ScalaCompat._
import io.sparklance.util.{CommitConflictException, Errors}

// Spec: rust/lance-index/src/scalar/zonemap.rs (ZoneMapIndex::update, ZoneMapIndexBuilder::
// write_index) and what pylance 14.0.2's `optimize_indices` commits after an append: one
// CreateIndex transaction replacing each zone map by a new one (a new uuid; the same name,
// fields and dataset_version; fragment bitmap old ∪ new; index_version 0; created_at now; its
// file and size; details rows_per_zone, use_seeds as before, has_null_bitmap) whose
// `zonemap.lance` holds the old zones, then the new fragments' zones. The file (Lance 2.2) has
// the columns min, max (the column's type, nullable), null_count and nan_count (UInt32),
// fragment_id, zone_start and zone_length (UInt64), the schema metadata `rows_per_zone` and,
// when the old index had one, `null_bitmap` naming the global buffer that holds every null row
// (a [[RowAddrTreeMap]]).

/**
 * The index commit that extends zone maps over new fragments: a CreateIndex transaction with
 * `added` as its new indices (every field pylance records: details, index version, creation
 * time, the file and its size) and `removed` (the indices they replace, as the manifest has
 * them) as its removed ones.
 */
final case class ZoneMapUpdate(added: IndexedSeq[IndexMetadata], removed: IndexedSeq[IndexMetadata]) {
  def operation: Operation.CreateIndex = Operation.CreateIndex(added, removed)

  /** Deletes the new index files when the update will not be committed (best effort, never throws). */
  def discard(store: ObjectStore, root: String): Unit =
    for (i <- added; name <- i.fileSizes.keys)
      try store.delete(Paths.join(root, ZoneMapWriter.IndexDir, i.uuid, name)) catch { case _: Exception => () }
}

object ZoneMapWriter {
  val IndexDir = "_indices"
  val FileName = "zonemap.lance"
  /** Lance's zone size when neither the details nor the file records one (ROWS_PER_ZONE_DEFAULT). */
  val DefaultRowsPerZone = 8192L
  /** ZONEMAP_INDEX_VERSION. */
  val IndexVersion = 0
  private val RowsPerZoneKey = "rows_per_zone"
  private val NullBitmapKey = "null_bitmap"

  /**
   * The ZONEMAP indices of `manifest` that a write of `schema` (the batches' schema, field ids
   * as in the manifest) can extend: one segment each, on one top-level field of a type with
   * zone statistics here (not nested), with a known fragment set. The zone size comes from the
   * details, else from the index file.
   */
  def targets(store: ObjectStore, root: String, manifest: Manifest, schema: LanceSchema): IndexedSeq[ZoneMapTarget] = {
    val zoneMaps = manifest.indices.filter(_.kind == ZoneMapIndex.Kind)
    val locations = new FileLocations(root, manifest)
    zoneMaps.filter(i => i.fragments.isDefined && zoneMaps.count(_.name == i.name) == 1).flatMap { i =>
      val column = i.fields match {
        case Seq(id) => Some(schema.fields.indexWhere(_.id == id)).filter(c =>
          c >= 0 && ZoneBounds.of(schema.fields(c).toArrowForWrite(s"index ${i.name}").getType).isDefined)
        case _ => None
      }
      column.map { c =>
        val details = ZoneMapDetailsCodec.parse(i.details.toArray, s"index ${i.name}")
        val rowsPerZone = details.rowsPerZone.getOrElse {
          val allocator = new RootAllocator(1L << 20)
          try {
            val file = IndexFile.open(store, locations.indexDir(i), i, FileName, allocator)
            try file.metadata.get(RowsPerZoneKey).flatMap(_.toLongOption).getOrElse(DefaultRowsPerZone)
            finally file.close()
          } finally allocator.close()
        }
        ZoneMapTarget(i.name, i.fields.head, c, schema.fields(c).name, rowsPerZone, details.useSeeds.getOrElse(false))
      }
    }
  }

  /**
   * Writes the new `zonemap.lance` of every target whose index `committed` (the version the
   * write's data commit made) still holds as it was planned, extended by the `written`
   * fragments (as the writer returned them, with their zone maps); None when no index can be
   * extended. The written fragments are found in `committed` by their data files.
   */
  def prepare(store: ObjectStore, root: String, committed: Manifest, targets: IndexedSeq[ZoneMapTarget],
      written: Seq[(Fragment, FragmentZoneMaps)], createdAt: Long = System.currentTimeMillis()): Option[ZoneMapUpdate] = {
    val idOf = committed.fragments.iterator.flatMap(f => f.files.headOption.map(_.path -> f.id)).toMap
    val ids = written.map { case (f, z) =>
      if (z.columns.length != targets.length)
        throw Errors.invalidArgument(s"zone maps of ${z.columns.length} columns for ${targets.length} zone map indices")
      f.files.headOption.flatMap(d => idOf.get(d.path)).getOrElse(throw Errors.invalidArgument(
        s"a written fragment (${f.files.map(_.path).mkString(", ")}) is not in version ${committed.version}"))
    }
    val locations = new FileLocations(root, committed)
    val done = targets.indices.flatMap { t =>
      val target = targets(t)
      val same = committed.indices.filter(_.name == target.indexName)
      same match {
        case Seq(old) if old.kind == ZoneMapIndex.Kind && old.fields == IndexedSeq(target.fieldId) &&
            old.fragments.exists(b => !ids.exists(id => b.contains(id.toInt))) =>
          val details = ZoneMapDetailsCodec.parse(old.details.toArray, s"index ${old.name}")
          if (details.rowsPerZone.exists(_ != target.rowsPerZone)) None
          else {
            val added = ids.zip(written.map(_._2.columns(t)))
            rewrite(store, root, locations.indexDir(old), old, target, details, added, createdAt).map(_ -> old)
          }
        case _ => None
      }
    }
    if (done.isEmpty) None else Some(ZoneMapUpdate(done.map(_._1), done.map(_._2)))
  }

  /** Index commits [[extend]] tries when another writer changes the same indices meanwhile. */
  val ExtendAttempts = 5

  /**
   * Extends the zone maps over the `written` fragments that version `version` committed: one
   * CreateIndex commit read at `version` (another writer's commit since then is checked by
   * the conflict rules; an Append is compatible). A retryable conflict (the same index changed
   * meanwhile) removes the new index files and prepares again on the latest version, where an
   * index that already covers the fragments is left alone. Returns the index commit's version,
   * None when there was nothing to extend. Throws the last CommitConflictException (its files
   * removed), CommitStateUnknownException (its files kept) or whatever else failed.
   */
  def extend(store: ObjectStore, root: String, committer: TableCommitter, version: Long, targets: IndexedSeq[ZoneMapTarget],
      written: Seq[(Fragment, FragmentZoneMaps)]): Option[Long] = {
    @scala.annotation.tailrec
    def attempt(read: Long, n: Int): Option[Long] =
      prepare(store, root, Snapshot.open(store, root, Some(read)).manifest, targets, written) match {
        case None => None
        case Some(u) =>
          val retry = try Left(committer.commit(CommitRequest(Some(read), u.operation)).version) catch {
            case e: CommitConflictException =>
              u.discard(store, root)
              if (!e.retryable || n >= ExtendAttempts) throw e
              Right(Snapshot.open(store, root, None).version)
          }
          retry match {
            case Left(v) => Some(v)
            case Right(latest) => attempt(latest, n + 1)
          }
      }
    attempt(version, 1)
  }

  /** Writes the old zones plus `added` into a new index folder; None if the old file's zone size differs. */
  private def rewrite(store: ObjectStore, root: String, oldDir: String, old: IndexMetadata, target: ZoneMapTarget,
      details: ZoneMapDetails, added: Seq[(Long, ColumnZones)], createdAt: Long): Option[IndexMetadata] = {
    val allocator = new RootAllocator(1L << 30)
    try {
      val file = IndexFile.open(store, oldDir, old, FileName, allocator)
      val oldZones = try OldZones.read(file, allocator) finally file.close()
      try {
        if (oldZones.rowsPerZone.exists(_ != target.rowsPerZone)) None
        else {
          val uuid = UUID.randomUUID().toString
          val path = Paths.join(root, IndexDir, uuid, FileName)
          // The old index's null rows, and the new fragments' (those with any).
          val nullRows = oldZones.nullRows.map(rows => RowAddrTreeMap.encode(RowAddrTreeMap.decode(rows.toArray, Paths.join(oldDir, FileName)) ++
            added.collect { case (id, z) if z.nullRows.nonEmpty =>
              val b = new RoaringBitmap()
              b.deserialize(ByteBuffer.wrap(z.nullRows.toArray))
              id -> Some(b)
            }))
          val size = write(store, path, oldZones, added, target.rowsPerZone, nullRows, allocator)
          val fragments = old.fragments.get.clone()
          added.foreach { case (id, _) => fragments.add(id.toInt) }
          val newDetails = ZoneMapDetails(Some(target.rowsPerZone), Some(details.useSeeds.getOrElse(false)), Some(nullRows.isDefined))
          Some(IndexMetadata(uuid, old.name, old.fields, old.datasetVersion, Some(fragments), ZoneMapIndex.Kind, None,
            Map(FileName -> size), ArraySeq.unsafeWrapArray(ZoneMapDetailsCodec.build(newDetails)), Some(IndexVersion), Some(createdAt)))
        }
      } finally oldZones.close()
    } finally allocator.close()
  }

  /** The columns and null rows of an existing `zonemap.lance`. */
  private final case class OldZones(min: FieldVector, max: FieldVector, nullCount: FieldVector, nanCount: Option[FieldVector],
      fragmentId: FieldVector, zoneStart: FieldVector, zoneLength: FieldVector, rowsPerZone: Option[Long],
      nullRows: Option[ArraySeq[Byte]]) extends AutoCloseable {
    def rows: Int = min.getValueCount
    override def close(): Unit = Seq(min, max, nullCount, fragmentId, zoneStart, zoneLength).++(nanCount).foreach(_.close())
  }

  private object OldZones {
    def read(file: IndexFile, allocator: BufferAllocator): OldZones = {
      val opened = scala.collection.mutable.ArrayBuffer.empty[FieldVector]
      def col(name: String) = { val v = file.column(name); opened += v; v }
      try {
        val z = OldZones(col("min"), col("max"), col("null_count"), if (file.hasColumn("nan_count")) Some(col("nan_count")) else None,
          col("fragment_id"), col("zone_start"), col("zone_length"), file.metadata.get(RowsPerZoneKey).flatMap(_.toLongOption),
          file.metadata.get(NullBitmapKey).map { n =>
            val index = n.toIntOption.getOrElse(throw Errors.corrupt(file.path, s"'$NullBitmapKey' is '$n', not a global buffer index"))
            // A bitmap holds at most a few bytes per row of the table; the file's size bounds it anyway.
            ArraySeq.unsafeWrapArray(file.globalBuffer(index, Int.MaxValue - 64L).toArray)
          })
        if (opened.exists(_.getValueCount != z.rows))
          throw Errors.corrupt(file.path, "the zone map's columns have different lengths")
        z
      } catch { case t: Throwable => opened.foreach(_.close()); throw t }
    }
  }

  /** Writes the zone map file at `path`; returns its size. */
  private def write(store: ObjectStore, path: String, old: OldZones, added: Seq[(Long, ColumnZones)], rowsPerZone: Long,
      nullRows: Option[Array[Byte]], allocator: BufferAllocator): Long = {
    val valueType = old.min.getField.getType
    def u32(name: String) = new Field(name, FieldType.notNullable(new ArrowType.Int(32, false)), null)
    def u64(name: String) = new Field(name, FieldType.notNullable(new ArrowType.Int(64, false)), null)
    val meta = Map(RowsPerZoneKey -> rowsPerZone.toString) ++ nullRows.map(_ => NullBitmapKey -> "1")
    val schema = new Schema(Seq(
      new Field("min", FieldType.nullable(valueType), null), new Field("max", FieldType.nullable(valueType), null),
      u32("null_count"), u32("nan_count"), u64("fragment_id"), u64("zone_start"), u64("zone_length")).asJava, meta.asJava)
    val newZones = added.flatMap { case (id, z) => z.zones.map(id -> _) }
    val n = old.rows + newZones.length
    val root = ArrowVectors.root(schema, allocator)
    try {
      root.getFieldVectors.asScala.foreach(_.setInitialCapacity(n))
      root.allocateNew()
      val Seq(min, max, nullCount, nanCount, fragmentId, zoneStart, zoneLength) = root.getFieldVectors.asScala.toSeq: @unchecked
      (0 until old.rows).foreach { i =>
        min.copyFromSafe(i, i, old.min)
        max.copyFromSafe(i, i, old.max)
        nullCount.copyFromSafe(i, i, old.nullCount)
        old.nanCount match {
          case Some(v) => nanCount.copyFromSafe(i, i, v)
          case None => nanCount.asInstanceOf[UInt4Vector].setSafe(i, 0)
        }
        fragmentId.copyFromSafe(i, i, old.fragmentId)
        zoneStart.copyFromSafe(i, i, old.zoneStart)
        zoneLength.copyFromSafe(i, i, old.zoneLength)
      }
      newZones.iterator.zipWithIndex.foreach { case ((id, z), k) =>
        val i = old.rows + k
        ZoneBounds.set(min, i, z.min)
        ZoneBounds.set(max, i, z.max)
        nullCount.asInstanceOf[UInt4Vector].setSafe(i, count(z.nullCount, "null_count"))
        nanCount.asInstanceOf[UInt4Vector].setSafe(i, count(z.nanCount, "nan_count"))
        fragmentId.asInstanceOf[UInt8Vector].setSafe(i, id)
        zoneStart.asInstanceOf[UInt8Vector].setSafe(i, z.start)
        zoneLength.asInstanceOf[UInt8Vector].setSafe(i, z.length)
      }
      root.setRowCount(n)
      val sink = store.create(path)
      val writer = new LanceFileWriter(sink, LanceSchema.fromArrow(schema, path), FileWriterOptions(FileVersion.V2_2))
      try {
        nullRows.foreach(writer.addGlobalBuffer)
        writer.write(root)
        writer.finish().size
      } catch { case t: Throwable => writer.abort(); sink.abort(); throw t }
    } finally root.close()
  }

  /** The index stores counts as UInt32 (stat_count_to_u32 refuses more). */
  private[write] def count(n: Long, what: String): Int =
    if (n < 0 || n > 0xffffffffL) throw Errors.invalidArgument(s"a zone's $what of $n does not fit the index's UInt32")
    else n.toInt
}
