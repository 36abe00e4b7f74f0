package io.sparklance.table.commit

import java.time.Instant

import io.sparklance.storage.ObjectStore
import io.sparklance.table.Snapshot

/**
 * One version of a table as its history shows it: when, by which operation (None: the version
 * records no transaction), read at which version, with which transaction properties, and what
 * it did to the rows: `rows` live after it, `rowsAdded` in fragments new in it, `rowsRemoved`
 * the live rows of the version before that it no longer has.
 */
final case class VersionEntry(
    version: Long,
    timestamp: Option[Instant],
    operation: Option[String],
    readVersion: Option[Long],
    properties: Map[String, String],
    fragments: Int,
    rows: Long,
    rowsAdded: Long,
    rowsRemoved: Long,
    writer: Option[String])

object TableHistory {

  /** Every version of the table at `root` (a branch's root for a branch), oldest first. */
  def apply(store: ObjectStore, root: String): IndexedSeq[VersionEntry] = {
    var previous: Option[(Set[Long], Long)] = None
    Snapshot.listVersions(store, root).map { case (version, name) =>
      val (m, bytes) = CommittedVersion.manifest(store, root, version, name)
      val txn = CommittedVersion.transaction(store, root, m, bytes)
      val ids = m.fragments.map(_.id).toSet
      val rows = m.fragments.iterator.map(_.liveRows).sum
      val added = m.fragments.iterator.filterNot(f => previous.exists(_._1(f.id))).map(_.liveRows).sum
      val before = previous.fold(0L)(_._2)
      previous = Some((ids, rows))
      VersionEntry(version, m.timestamp, txn.map(_.operation.name), txn.map(_.readVersion), txn.fold(Map.empty[String, String])(_.properties),
        m.fragments.length, rows, added, math.max(before + added - rows, 0L),
        m.writerVersion.map(w => s"${w.library} ${w.version}"))
    }
  }
}
