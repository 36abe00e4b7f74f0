package io.sparklance.table.commit

import io.sparklance.table.{BitmapIndex, Fragment, IndexMetadata, Manifest}
import io.sparklance.table.commit.Operation.Rewrite
import io.sparklance.table.maintenance.IndexRemap
import io.sparklance.table.proto.ManifestCodec

// Spec: lance-format/lance rust/lance/src/dataset/transaction.rs (build_manifest for Rewrite:
// handle_rewrite_fragments, recalculate_fragment_bitmap) and rust/lance/src/dataset/optimize.rs
// (commit_compaction). What a compaction's Rewrite makes of the version it commits on.

private[commit] object RewriteManifest {

  /**
   * `base` with each group's old fragments replaced by its new ones, `place` giving the new
   * fragments their ids (and, on tables with stable row ids, the versions of rows that record
   * none). The fragment list stays in id order, as pylance 14 leaves it after compact_files (its
   * new fragments, of reserved ids above every other, come last).
   *
   * Each old fragment must still be in `base` exactly as the compaction read it: the same data
   * files and the same deletion file. A fragment another writer deleted rows from since would
   * otherwise come back whole from the rows the compaction copied (lance PR #6653: a rewrite
   * built on a stale version resurrected deleted rows). The conflict rules refuse such a commit
   * first ([[ConflictRules]], Rewrite over Delete/Update); this is the last line.
   */
  def apply(base: Manifest, rewrite: Rewrite, place: IndexedSeq[Fragment] => IndexedSeq[Fragment]): Manifest = {
    val current = base.fragments.map(f => f.id -> f).toMap
    for (g <- rewrite.groups; old <- g.oldFragments) current.get(old.id) match {
      case None => throw new IllegalStateException(s"version ${base.version} no longer has fragment ${old.id}, which the compaction rewrote")
      case Some(now) if now.files != old.files || now.deletionFile != old.deletionFile =>
        throw new IllegalStateException(s"fragment ${old.id} changed after the compaction read it (version ${base.version}); " +
          "committing would bring back rows deleted since")
      case _ => ()
    }
    val placed = place(rewrite.groups.flatMap(_.newFragments))
    val starts = rewrite.groups.scanLeft(0)(_ + _.newFragments.length)
    val groups = rewrite.groups.zip(starts).map { case (g, at) => (g.oldFragmentIds, placed.slice(at, at + g.newFragments.length)) }
    val gone = rewrite.groups.flatMap(_.oldFragmentIds).toSet
    val fragments = (base.fragments.filterNot(f => gone(f.id)) ++ placed).sortBy(_.id)
    val stable = base.stableRowIds
    val rewritten = rewrite.rewrittenIndices.map(r => r.oldId -> r).toMap
    rewritten.keys.find(id => !base.indices.exists(_.uuid == id)).foreach { id =>
      throw new IllegalStateException(s"version ${base.version} no longer has index $id, which the compaction remapped")
    }
    val kept = ManifestCodec.withCoverage(base.copy(fragments = fragments),
      base.indices.map(i => if (rewritten.contains(i.uuid)) i else covering(i, groups, stable)))
    // A remapped index: the old one's name, fields and dataset version, the new files, covering
    // the new fragments in place of the old ones (transaction.rs, handle_rewrite_indices).
    val remapped = base.indices.flatMap(i => rewritten.get(i.uuid).map { r =>
      val bitmap = i.fragments.map(_.clone())
      bitmap.foreach(b => groups.foreach { case (old, added) =>
        if (old.exists(id => b.contains(id.toInt))) { old.foreach(id => b.remove(id.toInt)); added.foreach(f => b.add(f.id.toInt)) }
      })
      i.copy(uuid = r.newId, fragments = bitmap, kind = r.kind, baseId = None, fileSizes = r.fileSizes, details = r.details,
        indexVersion = Some(r.indexVersion))
    })
    ManifestCodec.replaceIndices(kept, rewritten.keySet, remapped)
  }

  /**
   * An index's fragment bitmap after the rewrite. A group an index covered is covered by the new
   * fragments only where the index's entries are row ids, which the rows keep on a table with
   * stable row ids (Rust's recalculate_fragment_bitmap): pylance 14 keeps its BITMAP indices so
   * (same index, new fragment ids). Other kinds hold row addresses (fragment, offset) that a
   * rewrite moves: pylance remaps its BTREE into new index files and drops the rewritten
   * fragments from a ZONEMAP; here the group's old fragments leave such an index and the new ones
   * are scanned, which gives the same rows (checked with pylance) until the index is optimized.
   * A group partly covered cannot be, as Rust refuses it. On tables without stable row ids the
   * BTREE and BITMAP indices over a rewritten group come remapped ([[Rewrite.rewrittenIndices]]);
   * a ZONEMAP (Lance does not remap it) stops covering the old fragments, as on stable tables.
   */
  private def covering(index: IndexMetadata, groups: IndexedSeq[(IndexedSeq[Long], IndexedSeq[Fragment])], stable: Boolean): IndexMetadata =
    index.fragments.fold(index) { bitmap0 =>
      val bitmap = bitmap0.clone()
      groups.foreach { case (old, added) =>
        val in = old.count(id => bitmap.contains(id.toInt))
        if (in > 0) {
          if (in != old.length)
            throw new IllegalStateException(s"a compaction group mixes fragments index '${index.name}' covers and fragments it does not")
          if (!stable && IndexRemap.Remapped(index.kind))
            throw new IllegalStateException(s"a compaction rewrote fragments index '${index.name}' covers without remapping it")
          old.foreach(id => bitmap.remove(id.toInt))
          if (index.kind == BitmapIndex.Kind) added.foreach(f => bitmap.add(f.id.toInt))
        }
      }
      if (bitmap == bitmap0) index else index.copy(fragments = Some(bitmap))
    }
}
