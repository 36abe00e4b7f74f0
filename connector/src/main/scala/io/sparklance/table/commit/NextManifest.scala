package io.sparklance.table.commit

import java.time.Instant

import io.sparklance.format.FileVersion
import io.sparklance.table.{BasePath, BasePaths, FeatureFlags, Fragment, Manifest, RowIdSource, WriterVersion}
import io.sparklance.table.commit.Operation.{Append, Clone, CreateIndex, Delete, Merge, Overwrite, Project, ReserveFragments, Restore, Rewrite, Update, UpdateBases, UpdateConfig}
import io.sparklance.table.proto.{ManifestCodec, ManifestMessage, RowIdCodec}
import io.sparklance.util.Errors
import io.sparklance.util.ScalaCompat._

// Spec: lance-format/lance rust/lance/src/dataset/transaction.rs (Transaction::build_manifest,
// assign_row_ids), rust/lance-table/src/format/manifest.rs (new_from_previous,
// update_max_fragment_id) and rust/lance-table/src/feature_flags.rs (apply_feature_flags), in
// the July 2026 mirror; checked against what pylance 14.0.2 writes. A pure function: the
// manifest that a transaction makes of the version it builds on. Nothing here touches storage.

object NextManifest {

  /**
   * What a commit adds besides the transaction: when it happens, the transaction file it
   * wrote, how to create the table (no base), and config entries it records (the idempotent
   * write's AppTransaction).
   */
  final case class Context(
      timestamp: Instant,
      transactionFile: Option[String],
      newTable: Option[NewTable] = None,
      configUpserts: Map[String, String] = Map.empty,
      writer: WriterVersion = WriterIdentity.current,
      restored: Option[Manifest] = None)

  /** The manifest `txn` makes of `base` (None: the table does not exist yet). */
  def apply(base: Option[Manifest], txn: Transaction, ctx: Context): Manifest = {
    base.foreach(checkWritable)
    val version = base.fold(1L)(_.version + 1)
    val where = base.fold("a new table")(b => s"version ${b.version}")
    /** The change of the existing table's manifest by an operation that needs one, numbered and finished. */
    def changed(what: String)(change: Manifest => Manifest): Manifest = {
      val b = base.getOrElse(throw new IllegalStateException(s"$what needs an existing table"))
      finish(change(b), version, b.maxFragmentId, ctx, b.stableRowIds)
    }
    txn.operation match {
      case Append(fragments) => changed("an Append") { b =>
        val (added, nextRowId) = placeNew(b, fragments, version, where)
        b.copy(fragments = (b.fragments ++ added).sortBy(_.id), nextRowId = nextRowId.getOrElse(b.nextRowId))
      }
      case Delete(updated, deletedIds, _) => changed("a Delete")(b => b.copy(fragments = replaced(b, updated, deletedIds)))
      case u: Update =>
        // Rows rewritten (update_mode REWRITE_ROWS): the old rows deleted from their fragments,
        // the new ones in new fragments, numbered as an Append's. Indices keep what they cover:
        // the deleted rows are filtered by the deletion files, and the new fragments are not
        // covered, so readers scan them. Columns rewritten in place (fields_modified): the
        // updated fragments leave the indices on those columns, whose entries for them are stale.
        // On tables with stable row ids, moved rows keep their created-at versions (RowVersionStamps).
        changed("an Update") { b =>
          val moved = if (b.stableRowIds) RowVersionStamps.rewritten(b, u.newFragments, version) else u.newFragments
          val (added, nextRowId) = placeNew(b, moved, version, where)
          ManifestCodec.withCoverage(
            b.copy(fragments = (replaced(b, u.updatedFragments, u.removedFragmentIds) ++ added).sortBy(_.id),
              nextRowId = nextRowId.getOrElse(b.nextRowId)),
            IndexCoverage.withoutRewritten(b.indices, u.updatedFragments.map(_.id), u.fieldsModified))
        }
      case Overwrite(fragments, schema, configUpserts) =>
        val stable = base.fold(ctx.newTable.exists(_.stableRowIds))(_.stableRowIds)
        // An overwrite numbers its fragments from 0 again (max_fragment_id keeps its high-water mark).
        val (added, nextRowId) = place(fragments, 0L, if (stable) Some(base.fold(0L)(_.nextRowId)) else None, version)
        val fileVersion = dataFileVersion(added, where)
          .orElse(ctx.newTable.map(_.fileVersion).filter(_ => base.isEmpty))
          .orElse(base.flatMap(_.fileVersion(where)))
          .getOrElse(FileVersion.V2_2)
        // New fragments and schema from nothing: ids restart at 0, so the base's fragment or field
        // of the same id is another one.
        val start = base.fold(emptyTable(ctx))(ManifestCodec.withoutContentMessages)
        finish(start.copy(
          schema = schema,
          fragments = added.sortBy(_.id),
          nextRowId = nextRowId.getOrElse(start.nextRowId),
          dataFormat = Some(("lance", fileVersion.name)),
          config = start.config ++ configUpserts,
          indices = IndexedSeq.empty),
          version, start.maxFragmentId, ctx, stable)
      case CreateIndex(added, removed) => changed("a CreateIndex")(ManifestCodec.replaceIndices(_, removed.map(_.uuid).toSet, added))
      // Columns added: the new schema and the whole fragment list, as the merge wrote it.
      case Merge(fragments, schema, _) => changed("a Merge")(_.copy(schema = schema, fragments = fragments.sortBy(_.id)))
      case Project(schema, _) =>
        // Columns removed or renamed: the data files keep them, the schema no longer names the
        // removed ones, and indices on a removed column go (rust/lance/src/dataset/transaction.rs, Project).
        changed("a Project") { b =>
          val kept = schema.flatFields.map(_.id).toSet
          ManifestCodec.replaceIndices(b.copy(schema = schema), b.indices.filterNot(_.fields.forall(kept)).map(_.uuid).toSet, Nil)
        }
      case UpdateConfig(config, _, _, _) => changed("an UpdateConfig") { b =>
        b.copy(config = config.fold(b.config) { u =>
          val start = if (u.replace) Map.empty[String, String] else b.config
          u.entries.foldLeft(start) { case (c, (k, v)) => v.fold(c - k)(c.updated(k, _)) }
        })
      }
      case c: Clone if c.shallow =>
        // A shallow clone (a branch's first version): the source's content under the source's
        // version number, its own files named through a new dataset-root base path (the next
        // free id: 0 from the main line, 1 from a branch that has base 0), as pylance 14 writes it.
        val b = base.getOrElse(throw new IllegalStateException("a Clone needs the version it clones"))
        val id = b.basePaths.map(_.id).maxOption.fold(0)(_ + 1)
        val here = Some(id)
        val fragments = b.fragments.map(f => f.copy(
          files = f.files.map(d => d.copy(baseId = d.baseId.orElse(here))),
          deletionFile = f.deletionFile.map(d => d.copy(baseId = d.baseId.orElse(here)))))
        val indexed = ManifestCodec.withIndexBases(b, id)
        finish(indexed.copy(fragments = fragments, basePaths = b.basePaths :+ BasePath(id, c.refName, isDatasetRoot = true, c.refPath),
          branch = c.branch), b.version, b.maxFragmentId, ctx, b.stableRowIds)
      case Restore(v) => changed("a Restore") { b =>
        // The restored version's manifest as it was (fragments, schema, indices, config, base
        // paths), numbered after the latest (transaction.rs, Restore; io/commit.rs
        // restore_old_manifest). The fragment-id high-water mark stays the latest's, so ids used
        // by the versions in between are never given again.
        val old = ctx.restored.filter(_.version == v)
          .getOrElse(throw new IllegalStateException(s"a Restore of version $v needs that version's manifest"))
        old.copy(maxFragmentId = Seq(old.maxFragmentId, b.maxFragmentId).flatten.maxOption)
      }
      case UpdateBases(added) => changed("an UpdateBases")(b => b.copy(basePaths = b.basePaths ++ numberedBases(b, added)))
      case ReserveFragments(n) =>
        // Fragment ids taken for a compaction that names them in index files before it commits:
        // only the high-water mark moves (transaction.rs, ReserveFragments).
        val b = base.getOrElse(throw new IllegalStateException("a ReserveFragments needs an existing table"))
        finish(b, version, Some(firstFreeId(b) + n - 1), ctx, b.stableRowIds)
      case r: Rewrite => changed("a Rewrite")(b => RewriteManifest(b, r, placeNew(b, _, version, where)._1))
      case other => throw new IllegalStateException(s"committing a ${other.name} is not supported yet")
    }
  }

  /**
   * New fragments after the highest id ever used (deleted fragments' included), with the next
   * row ids on tables with stable row ids; their data files must have the table's file format
   * (Rust: io/commit.rs, check_storage_version).
   */
  /** The first fragment id never used by `b` or the versions before it. */
  def firstFreeId(b: Manifest): Long =
    b.maxFragmentId.map(_ + 1).getOrElse(if (b.fragments.isEmpty) 0L else b.fragments.map(_.id).max + 1)

  private def placeNew(b: Manifest, fragments: IndexedSeq[Fragment], version: Long, where: String): (IndexedSeq[Fragment], Option[Long]) = {
    val placed = place(fragments, firstFreeId(b), if (b.stableRowIds) Some(b.nextRowId) else None, version)
    for (ours <- dataFileVersion(placed._1, where); theirs <- b.fileVersion(where) if ours != theirs)
      throw Errors.invalidArgument(s"$where: the table stores file format $theirs but the new data files are $ours; write them in $theirs")
    placed
  }

  /**
   * New base paths with ids: those given as 0 ("unassigned") numbered after the highest id in
   * use, from 1 when there is none, as Lance numbers user bases (transaction.rs, UpdateBases).
   * A name or path the table already has, or a duplicate among the new ones, is refused.
   */
  private[table] def numberedBases(b: Manifest, added: IndexedSeq[BasePath]): IndexedSeq[BasePath] = {
    var next = b.basePaths.map(_.id).maxOption.fold(1)(_ + 1)
    val numbered = added.map { p => if (p.id != 0) p else { val q = p.copy(id = next); next += 1; q } }
    val all = b.basePaths ++ numbered
    def dup[K](key: BasePath => Option[K], what: String): Unit =
      all.groupBy(key).collectFirst { case (Some(k), ps) if ps.length > 1 =>
        throw Errors.invalidArgument(s"version ${b.version}: base path $what '$k' is given twice or already exists; " +
          s"the table's base paths are ${b.basePaths.map(describeBase).mkString("[", ", ", "]")}; choose another")
      }
    dup(p => Some(p.id), "id")
    dup(_.name, "name")
    dup(p => BasePaths.canonical(p.path).orElse(Some(p.path)), "path")
    numbered
  }

  private def describeBase(p: BasePath): String = s"${p.id}:${p.name.getOrElse("(no name)")}=${p.path}"

  /** The fragments of `b` with `updated` in place of those of their ids, and `removed` gone. */
  private def replaced(b: Manifest, updated: IndexedSeq[Fragment], removed: IndexedSeq[Long]): IndexedSeq[Fragment] = {
    val byId = updated.map(f => f.id -> f).toMap
    val gone = removed.toSet
    val missing = (byId.keySet ++ gone).diff(b.fragments.map(_.id).toSet)
    if (missing.nonEmpty)
      throw new IllegalStateException(s"version ${b.version} has no fragments ${missing.toSeq.sorted.mkString(", ")} to change")
    b.fragments.filterNot(f => gone(f.id)).map(f => byId.getOrElse(f.id, f))
  }

  private def emptyTable(ctx: Context): Manifest = {
    val t = ctx.newTable.getOrElse(throw new IllegalStateException("creating a table needs its NewTable"))
    val empty = Manifest(0L, t.schema, IndexedSeq.empty, 0L, 0L, None, None, None, 0L, Map.empty, Map.empty, IndexedSeq.empty, None, None,
      None, None, None, ManifestMessage.Empty)
    empty.copy(basePaths = numberedBases(empty, t.bases))
  }

  /**
   * Gives the new fragments whose id is 0 ("unassigned") the ids from `firstId` on, and on
   * tables with stable row ids the next row ids (one range per fragment) to those without them,
   * and `version` as the created-at and last-updated-at version of rows that record none.
   */
  private def place(fragments: IndexedSeq[Fragment], firstId: Long, nextRowId: Option[Long], version: Long): (IndexedSeq[Fragment], Option[Long]) = {
    var id = firstId
    var rowId = nextRowId
    val placed = fragments.map { f =>
      val withId = if (f.id == 0) { val g = f.copy(id = id); id += 1; g } else f
      rowId match {
        case Some(next) =>
          val numbered = if (withId.rowIds.nonEmpty) withId else {
            rowId = Some(next + withId.physicalRows)
            withId.copy(rowIds = Some(RowIdSource.Inline(RowIdCodec.encodeRange(next, next + withId.physicalRows))))
          }
          RowVersionStamps.inserted(numbered, version)
        case None => withId
      }
    }
    (placed, rowId)
  }

  private def dataFileVersion(fragments: Seq[Fragment], where: String): Option[FileVersion] = {
    val versions = fragments.iterator.flatMap(_.files).map(f => FileVersion.fromDataFile(f.path, f.majorVersion, f.minorVersion)).toSet
    if (versions.size > 1) throw Errors.invalidArgument(s"$where: the new data files mix file format versions ${versions.mkString(", ")}")
    versions.headOption
  }

  /** What every commit sets: version, flags, max fragment id, writer, time, transaction file. */
  private def finish(m: Manifest, version: Long, previousMax: Option[Long], ctx: Context, stable: Boolean): Manifest = {
    val config = m.config ++ ctx.configUpserts
    val fragments = m.fragments
    if (stable && fragments.exists(_.rowIds.isEmpty))
      throw new IllegalStateException("a table with stable row ids needs row ids on every fragment")
    // Recomputed from scratch on every commit, as apply_feature_flags does; the table-config bit
    // follows the config as written (Rust computes it before an Overwrite's upserts are applied).
    var reader = 0L
    var writer = 0L
    if (fragments.exists(_.deletionFile.isDefined)) { reader |= FeatureFlags.DeletionFiles; writer |= FeatureFlags.DeletionFiles }
    if (stable) { reader |= FeatureFlags.StableRowIds; writer |= FeatureFlags.StableRowIds }
    if (config.nonEmpty) writer |= FeatureFlags.TableConfig
    if (m.basePaths.nonEmpty) { reader |= FeatureFlags.BasePaths; writer |= FeatureFlags.BasePaths }
    val maxId = if (fragments.isEmpty) previousMax else Some(math.max(previousMax.getOrElse(-1L), fragments.map(_.id).max))
    m.copy(version = version, config = config, readerFeatureFlags = reader, writerFeatureFlags = writer, maxFragmentId = maxId,
      writerVersion = Some(ctx.writer), timestamp = Some(ctx.timestamp), transactionFile = ctx.transactionFile,
      indexSectionOffset = None, transactionSectionOffset = None)
  }

  /**
   * A writer must understand the table it builds on: every writer flag known
   * (feature_flags.rs, can_write_dataset), and a writer version recorded, without which Lance
   * first repairs the fragments' row counts (io/commit.rs, migrate_manifest), which this writer
   * does not do.
   */
  private def checkWritable(b: Manifest): Unit = {
    val known = FeatureFlags.DeletionFiles | FeatureFlags.StableRowIds | FeatureFlags.UseV2FormatDeprecated |
      FeatureFlags.TableConfig | FeatureFlags.BasePaths | FeatureFlags.DisableTransactionFile
    val unknown = (b.writerFeatureFlags | b.readerFeatureFlags) & ~known
    if (unknown != 0) throw Errors.unknownWriterFlags(s"version ${b.version}", b.writerFeatureFlags | b.readerFeatureFlags, unknown)
    if (ManifestCodec.hasManifestDictionaries(b))
      throw Errors.unsupported("committing on a legacy (0.1) table with dictionary-encoded columns", s"version ${b.version}")
    if (b.writerVersion.isEmpty && b.fragments.nonEmpty)
      throw Errors.unsupported("committing on a table last written by a Lance release before 0.8 (its manifest names no writer); " +
        "write to it once with pylance first", s"version ${b.version}")
  }
}
