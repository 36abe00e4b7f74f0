package io.sparklance.table

import org.apache.arrow.memory.RootAllocator
import org.roaringbitmap.RoaringBitmap

import io.sparklance.storage.ObjectStore
import io.sparklance.table.expr.Expr
import io.sparklance.util.{Errors, UnsupportedFeatureException}

// Spec: lance-format/lance docs/src/format/table/index/index.md ("Index Coverage and
// Fragment Bitmap", "Index Remap and Row Address", "Stable Row ID for Index") and
// system/frag_reuse.md. BTREE and BITMAP indices map values to row addresses
// (fragment id << 32 | offset). An index answers only for the fragments in its fragment
// bitmap; other fragments are scanned. It may still name rows deleted after it was built,
// so deletion files still apply. Several indices of one name (delta indices) cover
// disjoint fragments. No index is used where its addresses may not be addresses of this
// version: in tables with stable row ids (pylance 14 writes row ids into some index kinds
// there) and in tables with a fragment reuse index (a compaction that deferred remapping
// its indices, whose addresses then name fragments that no longer exist).

object IndexLookup {
  val FragmentReuseKind = "FragmentReuseIndexDetails"

  /**
   * For fragments covered by a BTREE or BITMAP index on a column that `predicate` requires
   * to equal one of some literals (a conjunct `c = v` or `c IN (v1, ...)`), the offsets of
   * the rows that may match; an empty set means none can. `physicalRows` gives the rows of
   * each fragment with rows. Fragments missing from the result were not narrowed by any
   * index.
   */
  def select(store: ObjectStore, snapshot: Snapshot, predicate: Expr, physicalRows: Map[Long, Long]): Map[Long, RoaringBitmap] = {
    val m = snapshot.manifest
    if (m.fragments.exists(_.rowIds.isDefined) || m.stableRowIds ||
      m.indices.exists(_.kind == FragmentReuseKind)) return Map.empty
    val lookups = equalities(predicate).flatMap { case (column, keys) => forColumn(store, snapshot, column, keys, physicalRows) }
    // Each look-up holds every matching row of the fragments it covers: intersect where they overlap.
    lookups.foldLeft(Map.empty[Long, RoaringBitmap]) { (acc, rows) =>
      rows.foldLeft(acc) { case (a, (fragment, offsets)) =>
        a.updated(fragment, a.get(fragment).map(RoaringBitmap.and(_, offsets)).getOrElse(offsets))
      }
    }
  }

  /** The `column = literal` and `column IN (literals)` conjuncts of `e`, as (column, keys). */
  private def equalities(e: Expr): Seq[(String, Set[Any])] = e match {
    case Expr.And(l, r) => equalities(l) ++ equalities(r)
    case Expr.Compare(c, Expr.Eq, v) => Seq(c -> Set(v))
    case Expr.In(c, vs) if vs.nonEmpty => Seq(c -> vs.toSet)
    case _ => Seq.empty
  }

  /** The rows of one conjunct, from every usable index on `column`, per covered fragment. */
  private def forColumn(store: ObjectStore, snapshot: Snapshot, column: String, keys: Set[Any],
                        physicalRows: Map[Long, Long]): Option[Map[Long, RoaringBitmap]] = {
    val m = snapshot.manifest
    val field = m.schema.fields.find(_.name == column).filter(_.children.isEmpty)
    val arrowType = field.map(_.toArrow(snapshot.manifestPath).getType)
    if (field.isEmpty || !arrowType.exists(IndexKeys.supported) || !keys.forall(IndexKeys.fits(arrowType.get, _))) return None
    val indices = m.indices.filter(i => (i.kind == BTreeIndex.Kind || i.kind == BitmapIndex.Kind) && i.fields == IndexedSeq(field.get.id))
    val locations = new FileLocations(snapshot.root, m)
    val found = indices.foldLeft(Map.empty[Long, RoaringBitmap]) { (acc, index) =>
      // Fragments of this version the index covers that no earlier index answered for.
      val covered = index.fragments.toSeq.flatMap(_.toArray.toSeq).map(_.toLong & 0xffffffffL)
        .filter(f => physicalRows.contains(f) && !acc.contains(f))
      if (covered.isEmpty) acc
      else load(store, locations.indexDir(index), index, keys, physicalRows.get) match {
        case None => acc
        case Some(rows) =>
          acc ++ covered.map { f =>
            val offsets = rows.getOrElse(f, new RoaringBitmap())
            if (!offsets.isEmpty && (offsets.last() & 0xffffffffL) >= physicalRows(f))
              throw Errors.corrupt(locations.indexDir(index),
                s"index '${index.name}' names row ${offsets.last() & 0xffffffffL} of fragment $f, which has ${physicalRows(f)} rows")
            f -> offsets
          }
      }
    }
    if (found.isEmpty) None else Some(found)
  }

  /**
   * The rows of `index` holding one of `keys`, by fragment; None when the index cannot
   * answer here (a layout or encoding this reader cannot read, or keys spread over too much
   * of a BTREE), so that its fragments are scanned instead.
   */
  private def load(store: ObjectStore, dir: String, index: IndexMetadata, keys: Set[Any],
                   physicalRows: Long => Option[Long]): Option[Map[Long, RoaringBitmap]] = {
    val allocator = new RootAllocator(1L << 30)
    try {
      if (index.kind == BitmapIndex.Kind) Some(BitmapIndex.lookup(store, dir, index, keys, physicalRows, allocator))
      else BTreeIndex.lookup(store, dir, index, keys, allocator).map(byFragment)
    } catch {
      case _: UnsupportedFeatureException => None
    } finally allocator.close()
  }

  private def byFragment(addresses: Array[Long]): Map[Long, RoaringBitmap] =
    addresses.groupBy(_ >>> 32).map { case (f, as) => f -> RoaringBitmap.bitmapOf(as.map(a => (a & 0xffffffffL).toInt): _*) }
}
