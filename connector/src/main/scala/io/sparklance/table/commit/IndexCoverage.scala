package io.sparklance.table.commit

import io.sparklance.table.IndexMetadata

// Spec: lance-format/lance rust/lance/src/dataset/transaction.rs
// (Transaction::prune_updated_fields_from_indices, called by build_manifest for an Update and by
// rust/lance/src/io/commit/conflict_resolver.rs check_create_index_txn for a CreateIndex
// committed over an Update), as of commit 01dd0bc: index field ids are compared with the
// modified ones as they are, without expanding struct fields.

/**
 * Which fragments an index still answers for once columns were rewritten in place. An index
 * was built from the values its fields held; an Update that rewrote one of those fields in some
 * fragments (`fields_modified`) leaves the index with stale entries for them (a zone map's
 * bounds, a btree's keys), so those fragments leave its fragment bitmap and readers scan them.
 */
object IndexCoverage {

  /**
   * `indices` with `fragmentIds` taken out of the bitmap of every index on a field in
   * `fieldsModified`; the others, and indices that do not record their fragments, unchanged.
   */
  def withoutRewritten(indices: IndexedSeq[IndexMetadata], fragmentIds: Seq[Long], fieldsModified: Seq[Int]): IndexedSeq[IndexMetadata] =
    if (fieldsModified.isEmpty || fragmentIds.isEmpty) indices
    else {
      val modified = fieldsModified.toSet
      indices.map { i =>
        i.fragments match {
          case Some(covered) if i.fields.exists(modified) && fragmentIds.exists(id => covered.contains(id.toInt)) =>
            val kept = covered.clone()
            fragmentIds.foreach(id => kept.remove(id.toInt))
            i.copy(fragments = Some(kept))
          case _ => i
        }
      }
    }
}
