package io.sparklance.table

/**
 * The shortest front of a scan that still returns at least `limit` rows (LIMIT pushdown with
 * no filter: the engine still applies the limit, this only spares reading the rest).
 */
object RowLimit {
  def first(tasks: IndexedSeq[ScanTask], limit: Long): IndexedSeq[ScanTask] = {
    val kept = IndexedSeq.newBuilder[ScanTask]
    var guaranteed = 0L
    val it = tasks.iterator
    while (guaranteed < limit && it.hasNext) {
      val t = it.next()
      t.deletion match {
        case None =>
          // Every row of the range is live: cut the range at what is still missing.
          val take = math.min(t.numRows, limit - guaranteed)
          kept += t.copy(rowEnd = t.rowStart + take)
          guaranteed += take
        case Some(d) =>
          // Deleted rows may all lie in this range; count only the rows sure to be live (none
          // when an old deletion file did not record its count).
          kept += t
          guaranteed += (if (d.numDeletedRows > 0) math.max(0L, t.numRows - d.numDeletedRows) else 0L)
      }
    }
    kept.result()
  }
}
