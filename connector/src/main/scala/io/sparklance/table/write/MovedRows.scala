package io.sparklance.table.write

import io.sparklance.table.{Fragment, RowIdSource}
import io.sparklance.table.proto.RowIdCodec

/**
 * Rows an update moved to new fragments keep their stable row ids (Lance's Update with
 * REWRITE_ROWS, rust/lance/src/dataset/write/update.rs): each new fragment records the ids of
 * its rows, in the order they were written, instead of taking fresh ones at commit.
 */
object MovedRows {

  /** `fragments` (written in order) with the row ids `ids` of their rows, in the same order. */
  def withRowIds(fragments: IndexedSeq[Fragment], ids: Array[Long]): IndexedSeq[Fragment] = {
    val total = fragments.iterator.map(_.physicalRows).sum
    if (total != ids.length) throw new IllegalStateException(s"${ids.length} row ids for $total moved rows")
    var at = 0
    fragments.map { f =>
      val n = f.physicalRows.toInt
      val slice = java.util.Arrays.copyOfRange(ids, at, at + n)
      at += n
      f.copy(rowIds = Some(RowIdSource.Inline(RowIdCodec.encodeIds(slice))))
    }
  }
}
