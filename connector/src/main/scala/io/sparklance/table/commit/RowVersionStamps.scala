package io.sparklance.table.commit

import scala.collection.mutable

import io.sparklance.table.{Fragment, Manifest, RowIdSource}
import io.sparklance.table.proto.{RowIdCodec, RowVersionCodec, RowVersions}

// Spec: lance-format/lance docs/src/format/table/row_id_lineage.md (row version tracking) and
// rust/lance/src/dataset/transaction.rs (Transaction::build_manifest: Append, Overwrite and
// Update; resolve_update_version_metadata), rust/lance-table/src/rowids/version.rs
// (build_version_meta). On tables with stable row ids every fragment records the version that
// created each row and the version that last updated it. They are stamped here, when the
// manifest of the committing version is built, because only then is that version known (a
// commit that loses a race and rebuilds on a newer version stamps the newer number); the
// transaction carries fragments without them, as Rust's does. Fragments the commit leaves as
// they are (a new deletion file included) keep theirs.

object RowVersionStamps {

  /**
   * The created-at version Rust gives a row whose original it cannot find or whose fragment
   * records no created-at versions (UNKNOWN_CREATED_AT_VERSION: the first version of a table).
   */
  val UnknownCreatedAt = 1L

  /**
   * `f` with every row created and last updated at `version`, where it records no such versions
   * yet (fragments without rows get none, as Rust's build_version_meta).
   */
  def inserted(f: Fragment, version: Long): Fragment =
    if (f.physicalRows <= 0) f
    else {
      lazy val versions = Some(RowIdSource.Inline(RowVersionCodec.encodeUniform(f.physicalRows, version)))
      f.copy(createdAtVersions = f.createdAtVersions.orElse(versions), lastUpdatedAtVersions = f.lastUpdatedAtVersions.orElse(versions))
    }

  /**
   * The new fragments of an Update that rewrote rows (REWRITE_ROWS) on `base`, committed as
   * `version`: a fragment whose rows kept their row ids (rows moved by an UPDATE or a MERGE's
   * matched clause) gets, for each row, the created-at version of the row with that id in `base`
   * (its first occurrence in fragment id order, which is where the row was first written: later
   * copies are moves), or `version` for an id `base` does not hold; every row was last updated at
   * `version`. Fragments without row ids (inserted rows) are left for [[NextManifest]] to number
   * and stamp as new rows.
   */
  def rewritten(base: Manifest, fragments: IndexedSeq[Fragment], version: Long): IndexedSeq[Fragment] = {
    val ids = fragments.map { f =>
      f.rowIds.collect { case RowIdSource.Inline(bytes) => RowIdCodec.decode(bytes, f.physicalRows, s"row ids of a new fragment of version $version") }
    }
    val wanted = Array.concat(ids.flatten: _*)
    java.util.Arrays.sort(wanted)
    val created = createdAt(base, wanted)
    fragments.zip(ids).map {
      case (f, Some(rows)) if f.physicalRows > 0 =>
        f.copy(createdAtVersions = Some(RowIdSource.Inline(RowVersionCodec.encode(rows.map(id => created.getOrElse(id, version))))),
          lastUpdatedAtVersions = Some(RowIdSource.Inline(RowVersionCodec.encodeUniform(f.physicalRows, version))))
      // Row ids in another file: unread here, as in Rust, whose commit gives such rows the new version.
      case (f, None) if f.rowIds.isDefined => inserted(f, version)
      case (f, _) => f
    }
  }

  /** The created-at version of each of the row ids `wanted` (sorted) that `base` holds. */
  private def createdAt(base: Manifest, wanted: Array[Long]): mutable.LongMap[Long] = {
    val found = mutable.LongMap.empty[Long]
    if (wanted.isEmpty) return found
    base.fragments.sortBy(_.id).foreach { f =>
      f.rowIds match {
        case Some(RowIdSource.Inline(bytes)) =>
          val where = s"version ${base.version}, fragment ${f.id}"
          val inRange = RowIdCodec.bounds(bytes, s"$where: row ids").exists { case (lo, hi) => hi >= wanted.head && lo <= wanted.last }
          if (inRange) {
            val rows = RowIdCodec.decode(bytes, f.physicalRows, s"$where: row ids")
            lazy val versions: Option[RowVersions] = f.createdAtVersions.collect {
              case RowIdSource.Inline(b) => RowVersionCodec.decode(b, f.physicalRows, s"$where: created-at versions")
            }
            var i = 0
            while (i < rows.length) {
              val id = rows(i)
              if (!found.contains(id) && java.util.Arrays.binarySearch(wanted, id) >= 0)
                found(id) = versions.flatMap(_.at(i.toLong)).getOrElse(UnknownCreatedAt)
              i += 1
            }
          }
        case _ => ()
      }
    }
    found
  }
}
