package io.sparklance.table.maintenance

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
import io.sparklance.table.{BTreeIndex, BitmapIndex, DeletionVector, FileLocations, Fragment, IndexFile, IndexMetadata, Manifest, RowAddrTreeMap}
import io.sparklance.table.Snapshot
import io.sparklance.table.commit.{CommitRequest, TableCommitter}
import io.sparklance.table.commit.Operation.{ReserveFragments, RewriteGroup, RewrittenIndex}
import io.sparklance.util.Errors
import io.sparklance.util.ScalaCompat._

// Spec: lance-format/lance rust/lance/src/dataset/optimize.rs (commit_compaction with
// defer_index_remap false: the old-to-new row address map of the rewritten groups, then
// remap_index per index), rust/lance-index/src/scalar/btree.rs and bitmap.rs (remap), checked
// against pylance 14.0.2's compact_files: a BTREE or BITMAP index over rewritten fragments gets a
// new uuid and new files (deleted rows gone, addresses of the new fragments), the same name,
// fields and dataset version, index version 0, and the Rewrite records it as a RewrittenIndex;
// a ZONEMAP is not remapped (its rewritten fragments just leave its coverage).

/**
 * Where the live rows of a compaction's rewritten fragments went: the live rows of each group's
 * old fragments, in order, are the rows of its new fragments, in order (the rewrite copies them
 * so, [[FragmentRewriter]]). `moved(f)(o)` is the new address of row `o` of old fragment `f`, or
 * -1 for a deleted row; fragments not rewritten keep their addresses.
 */
final class AddressMap private (moved: Map[Long, Array[Long]]) {
  /** None: the address is not rewritten; Some(None): the row is gone; Some(Some(a)): it is now `a`. */
  def apply(address: Long): Option[Option[Long]] = moved.get(address >>> 32).map { offsets =>
    val o = address & 0xffffffffL
    if (o >= offsets.length || offsets(o.toInt) < 0) None else Some(offsets(o.toInt))
  }

  /** The rewritten rows of `fragment`, when it was rewritten. */
  def rewritten(fragment: Long): Option[Array[Long]] = moved.get(fragment)
}

object AddressMap {
  /** The map of `groups`, whose new fragments carry their final (reserved) ids. */
  def apply(store: ObjectStore, locations: FileLocations, groups: Seq[RewriteGroup]): AddressMap = {
    val moved = Map.newBuilder[Long, Array[Long]]
    groups.foreach { g =>
      val targets = g.newFragments.iterator.flatMap(f => (0L until f.physicalRows).iterator.map(o => (f.id << 32) | o))
      g.oldFragments.foreach { f =>
        val deleted = f.deletionFile.map(d => DeletionVector.read(store, locations.deletionFile(f.id, d), d.fileType, f.id, f.physicalRows))
        moved += f.id -> Array.tabulate(f.physicalRows.toInt) { o =>
          if (deleted.exists(_.contains(o))) -1L
          else if (targets.hasNext) targets.next()
          else throw Errors.corrupt(s"fragment ${f.id}", "the compaction wrote fewer rows than its old fragments hold")
        }
      }
      if (targets.hasNext) throw Errors.corrupt(s"fragments ${g.oldFragmentIds.mkString(", ")}", "the compaction wrote more rows than they hold")
    }
    new AddressMap(moved.result())
  }
}

object IndexRemap {
  /** The index kinds whose row addresses a compaction rewrites (others are not remapped). */
  val Remapped: Set[String] = Set(BTreeIndex.Kind, BitmapIndex.Kind)

  /**
   * The indices of `m` a compaction of `groups` remaps: those of [[Remapped]] kinds covering a
   * rewritten fragment, or not saying what they cover (their addresses may name any fragment).
   */
  def covering(m: Manifest, groups: Seq[RewriteGroup]): IndexedSeq[IndexMetadata] = {
    val old = groups.flatMap(_.oldFragmentIds).toSet
    if (m.stableRowIds) IndexedSeq.empty
    else m.indices.filter(i => Remapped(i.kind) && i.fragments.forall(b => old.exists(id => b.contains(id.toInt))))
  }

  /**
   * What a compaction of `groups` (new fragments without ids yet) read on `m` commits: the
   * groups and the indices remapped for them. When an index is to be remapped, the new
   * fragments' ids are reserved first by a ReserveFragments version, as pylance does, since the
   * index files name them; otherwise nothing is done here and the ids are given at commit.
   */
  def prepare(store: ObjectStore, root: String, m: Manifest, groups: IndexedSeq[RewriteGroup],
      properties: Map[String, String]): (IndexedSeq[RewriteGroup], IndexedSeq[RewrittenIndex]) = {
    val indices = covering(m, groups)
    if (indices.isEmpty) return (groups, IndexedSeq.empty)
    val n = groups.map(_.newFragments.length).sum
    val reserved = new TableCommitter(store, root).commit(CommitRequest(Some(m.version), ReserveFragments(n), properties))
    val last = Snapshot.open(store, root, Some(reserved.version)).manifest.maxFragmentId
      .getOrElse(throw new IllegalStateException(s"version ${reserved.version} reserved no fragment ids"))
    val ids = Iterator.iterate(last - n + 1)(_ + 1)
    val placed = groups.map(g => g.copy(newFragments = g.newFragments.map(_.copy(id = ids.next()))))
    val locations = new FileLocations(root, m)
    (placed, remap(store, root, locations, indices, AddressMap(store, locations, placed)))
  }

  /**
   * Writes the remapped copy of each of `indices` under `_indices/<new uuid>/` of `root`; on
   * failure removes what it wrote. Each result names the files it wrote ([[discard]]).
   */
  def remap(store: ObjectStore, root: String, locations: FileLocations, indices: Seq[IndexMetadata], map: AddressMap): IndexedSeq[RewrittenIndex] = {
    val done = IndexedSeq.newBuilder[RewrittenIndex]
    val allocator = new RootAllocator(1L << 31)
    try {
      indices.foreach { index =>
        val newId = UUID.randomUUID().toString
        val dir = Paths.join(root, "_indices", newId)
        val sizes =
          try index.kind match {
            case BTreeIndex.Kind => btree(store, locations.indexDir(index), dir, index, map, allocator)
            case BitmapIndex.Kind => bitmap(store, locations.indexDir(index), dir, index, map, allocator)
            case other => throw new IllegalStateException(s"remapping an index of kind $other")
          } catch { case t: Throwable => deleteDir(store, dir, Seq("page_data.lance", "page_lookup.lance", BitmapFile)); throw t }
        done += RewrittenIndex(index.uuid, newId, index.kind, index.details, 0, sizes)
      }
      done.result()
    } catch {
      case t: Throwable => discard(store, root, done.result()); throw t
    } finally allocator.close()
  }

  /** Removes the files of remapped indices that will not be committed (best effort). */
  def discard(store: ObjectStore, root: String, rewritten: Seq[RewrittenIndex]): Unit =
    rewritten.foreach(r => deleteDir(store, Paths.join(root, "_indices", r.newId), r.fileSizes.keys.toSeq))

  private def deleteDir(store: ObjectStore, dir: String, names: Seq[String]): Unit =
    names.foreach(n => try store.delete(Paths.join(dir, n)) catch { case _: Exception => () })

  private val BitmapFile = "bitmap_page_lookup.lance"
  private val DefaultBatchSize = 4096L

  /**
   * A BTREE's page_data rows (sorted by value) with addresses remapped and deleted rows dropped,
   * which keeps them sorted, cut again into pages of the old batch size, and the page_lookup of
   * those pages (min, max: the first and last non-null value of a page; null_count; page_idx),
   * as Lance retrains a BTREE from its remapped rows.
   */
  private def btree(store: ObjectStore, from: String, to: String, index: IndexMetadata, map: AddressMap,
      allocator: BufferAllocator): Map[String, Long] = {
    val lookup = IndexFile.open(store, from, index, "page_lookup.lance", allocator)
    val batchSize =
      try {
        if (lookup.metadata.get("range_partitioned").exists(_ != "false"))
          throw Errors.unsupported("remapping a range-partitioned BTREE index", s"index '${index.name}'")
        lookup.metadata.get("batch_size").map(s => s.toLongOption.filter(_ > 0)
          .getOrElse(throw Errors.corrupt(lookup.path, s"batch_size '$s' is not a positive number"))).getOrElse(DefaultBatchSize)
      } finally lookup.close()
    val data = IndexFile.open(store, from, index, "page_data.lance", allocator)
    try {
      val values = data.column("values")
      val ids = data.column("ids")
      try {
        val addresses = ids match {
          case u: UInt8Vector => u
          case other => throw Errors.corrupt(data.path, s"row addresses are ${other.getField.getType}, expected uint64")
        }
        val kept = Array.newBuilder[Int]
        val newIds = Array.newBuilder[Long]
        (0 until values.getValueCount).foreach { i =>
          val a = addresses.get(i)
          map(a) match {
            case None => kept += i; newIds += a
            case Some(Some(b)) => kept += i; newIds += b
            case Some(None) => ()
          }
        }
        val rows = kept.result()
        val remapped = newIds.result()
        val valueField = new Field("values", FieldType.nullable(values.getField.getType), null)
        val dataSchema = new Schema(Seq(valueField, u64("ids")).asJava)
        val dataSize = write(store, Paths.join(to, "page_data.lance"), dataSchema, rows.length, allocator) { root =>
          val v = root.getVector(0)
          rows.indices.foreach(k => v.copyFromSafe(rows(k), k, values))
          val out = root.getVector(1).asInstanceOf[UInt8Vector]
          remapped.indices.foreach(k => out.setSafe(k, remapped(k)))
        }
        val pages = ((rows.length + batchSize - 1) / batchSize).toInt
        val lookupSchema = new Schema(Seq(new Field("min", FieldType.nullable(values.getField.getType), null),
          new Field("max", FieldType.nullable(values.getField.getType), null), u32("null_count"), u32("page_idx")).asJava,
          Map("batch_size" -> batchSize.toString, "range_partitioned" -> "false").asJava)
        val lookupSize = write(store, Paths.join(to, "page_lookup.lance"), lookupSchema, pages, allocator) { root =>
          val (min, max) = (root.getVector(0), root.getVector(1))
          val (nulls, idx) = (root.getVector(2).asInstanceOf[UInt4Vector], root.getVector(3).asInstanceOf[UInt4Vector])
          (0 until pages).foreach { p =>
            val page = (p * batchSize).toInt until math.min((p + 1) * batchSize, rows.length.toLong).toInt
            val present = page.filterNot(k => values.isNull(rows(k)))
            present.headOption.foreach(k => min.copyFromSafe(rows(k), p, values))
            present.lastOption.foreach(k => max.copyFromSafe(rows(k), p, values))
            nulls.setSafe(p, page.length - present.length)
            idx.setSafe(p, p)
          }
        }
        Map("page_data.lance" -> dataSize, "page_lookup.lance" -> lookupSize)
      } finally { values.close(); ids.close() }
    } finally data.close()
  }

  /**
   * A BITMAP's rows with each bitmap's addresses remapped (deleted rows dropped; an entry for a
   * whole rewritten fragment stands for its rows), every key kept, as Lance's remap does.
   */
  private def bitmap(store: ObjectStore, from: String, to: String, index: IndexMetadata, map: AddressMap,
      allocator: BufferAllocator): Map[String, Long] = {
    val file = IndexFile.open(store, from, index, BitmapFile, allocator)
    try {
      val keys = file.column("keys")
      val bitmaps = file.column("bitmaps")
      try {
        def bytes(i: Int): Array[Byte] = bitmaps match {
          case b: VarBinaryVector if !b.isNull(i) => b.get(i)
          case b: LargeVarBinaryVector if !b.isNull(i) => b.get(i)
          case b => throw Errors.corrupt(file.path, s"bitmap $i is ${if (b.isNull(i)) "null" else b.getField.getType.toString}, expected binary")
        }
        val n = keys.getValueCount
        val remapped = (0 until n).map { i =>
          // Entries of fragments not rewritten stay as they are (a whole-fragment entry included);
          // the rows of rewritten ones go to their new addresses.
          val kept = scala.collection.mutable.LongMap.empty[Option[RoaringBitmap]]
          val moved = scala.collection.mutable.LongMap.empty[RoaringBitmap]
          RowAddrTreeMap.decode(bytes(i), s"${file.path}, bitmap $i").foreach { case (fragment, offsets) =>
            map.rewritten(fragment) match {
              case None => kept(fragment) = offsets
              case Some(to) =>
                offsets.getOrElse(RoaringBitmap.bitmapOfRange(0, to.length.toLong)).forEach { (o: Int) =>
                  if (o < to.length && to(o) >= 0) moved.getOrElseUpdate(to(o) >>> 32, new RoaringBitmap()).add((to(o) & 0xffffffffL).toInt)
                }
            }
          }
          RowAddrTreeMap.encode((kept.toSeq ++ moved.toSeq.map { case (f, b) => f -> Some(b) }).sortBy(_._1))
        }
        val schema = new Schema(Seq(new Field("keys", FieldType.nullable(keys.getField.getType), null),
          new Field("bitmaps", FieldType.nullable(bitmaps.getField.getType), null)).asJava,
          Map("lance:index_stats" -> s"""{"num_bitmaps":$n}""").asJava)
        val size = write(store, Paths.join(to, BitmapFile), schema, n, allocator) { root =>
          val k = root.getVector(0)
          (0 until n).foreach(i => k.copyFromSafe(i, i, keys))
          root.getVector(1) match {
            case b: VarBinaryVector => remapped.indices.foreach(i => b.setSafe(i, remapped(i)))
            case b: LargeVarBinaryVector => remapped.indices.foreach(i => b.setSafe(i, remapped(i)))
            case other => throw new IllegalStateException(s"bitmaps as ${other.getField.getType}")
          }
        }
        Map(BitmapFile -> size)
      } finally { keys.close(); bitmaps.close() }
    } finally file.close()
  }

  private def u32(name: String) = new Field(name, FieldType.notNullable(new ArrowType.Int(32, false)), null)
  private def u64(name: String) = new Field(name, FieldType.notNullable(new ArrowType.Int(64, false)), null)

  /** Writes one index file (Lance 2.2, as pylance 14 writes index files) of `rows` rows filled by `fill`; returns its size. */
  private def write(store: ObjectStore, path: String, schema: Schema, rows: Int, allocator: BufferAllocator)
      (fill: VectorSchemaRoot => Unit): Long = {
    val root = ArrowVectors.root(schema, allocator)
    try {
      root.getFieldVectors.asScala.foreach(_.setInitialCapacity(rows))
      root.allocateNew()
      fill(root)
      root.getFieldVectors.asScala.foreach(_.setValueCount(rows))
      root.setRowCount(rows)
      val sink = store.create(path)
      val writer = new LanceFileWriter(sink, LanceSchema.fromArrow(schema, path), FileWriterOptions(FileVersion.V2_2))
      try {
        writer.write(root)
        writer.finish().size
      } catch { case t: Throwable => writer.abort(); sink.abort(); throw t }
    } finally root.close()
  }
}
