package io.sparklance.table

import scala.collection.mutable

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector._
import org.apache.arrow.vector.types.TimeUnit
import org.apache.arrow.vector.types.pojo.ArrowType

import io.sparklance.storage.ObjectStore
import io.sparklance.table.expr.ColumnStats
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/table/index/scalar/zonemap.md and
// rust/lance-index/src/scalar/zonemap.rs. A ZONEMAP index is one Lance file,
// `zonemap.lance`, with a row per zone (about 8192 rows; zones never cross fragments):
// min, max (the column's type), null_count, nan_count, fragment_id, zone_start and
// zone_length (row offsets in the fragment, deleted rows included). Bounds are bounds:
// they stay valid after rows are deleted, so they only ever prune.

/**
 * One zone of one fragment, with the statistics of the indexed column. `nanCount` is None
 * for zone maps written before it was recorded.
 */
final case class Zone(fragmentId: Long, start: Long, length: Long, stats: ColumnStats, nanCount: Option[Long])

/**
 * A zone map's index details: its zone size, whether pylance embeds zone statistics ("seeds")
 * in the data files it appends, and whether `zonemap.lance` holds the exact null rows. Each is
 * None when the writer did not record it.
 */
final case class ZoneMapDetails(rowsPerZone: Option[Long], useSeeds: Option[Boolean], hasNullBitmap: Option[Boolean])

object ZoneMapIndex {
  val Kind = "ZoneMapIndexDetails"

  /**
   * The zones of `index`, a zone map over a column of Arrow type `columnType`, in
   * `indexDir`: decoded once per file and JVM ([[IndexCache]]), since index files never
   * change; the column's type is part of the entry, as the bounds are read in its terms.
   */
  def load(store: ObjectStore, indexDir: String, index: IndexMetadata, columnType: ArrowType): IndexedSeq[Zone] = {
    val allocator = new RootAllocator(1L << 30)
    try {
      val file = IndexFile.open(store, indexDir, index, "zonemap.lance", allocator)
      try IndexCache.getOrLoad(s"zones as $columnType", file.identity, weigh)(decode(file, columnType))
      finally file.close()
    } finally allocator.close()
  }

  /** Estimated heap bytes of decoded zones: their objects and string bounds. */
  private def weigh(zones: IndexedSeq[Zone]): Long = zones.iterator.map { z =>
    def str(b: Option[Any]) = b match { case Some(s: String) => 48L + 2L * s.length; case _ => 0L }
    192L + str(z.stats.min) + str(z.stats.max)
  }.sum

  private def decode(file: IndexFile, columnType: ArrowType): IndexedSeq[Zone] = {
    val vectors = mutable.ArrayBuffer.empty[FieldVector]
    try {
      Seq("min", "max", "null_count", "fragment_id", "zone_start", "zone_length").foreach(n => vectors += file.column(n))
      val Seq(min, max, nulls, frag, start, len) = vectors.toSeq
      // nan_count is absent from zone maps written before it was recorded.
      val nans = if (file.hasColumn("nan_count")) { val v = file.column("nan_count"); vectors += v; Some(v) } else None
      def long(v: FieldVector, i: Int): Long = v.getObject(i) match {
        case n: java.lang.Number => n.longValue
        case other => throw Errors.corrupt(file.path, s"zone map column ${v.getName} holds $other")
      }
      val isFloat = columnType.isInstanceOf[ArrowType.FloatingPoint]
      (0 until file.numRows.toInt).map { i =>
        val rows = long(len, i)
        val nanCount = nans.map(long(_, i))
        // The bounds leave NaN out, but Spark orders NaN above every number (x > 5 holds
        // for NaN): a zone that may hold NaN has no upper bound.
        val upper = if (isFloat && !nanCount.contains(0L)) None else bound(max, i, columnType, low = false)
        Zone(long(frag, i), long(start, i), rows,
          ColumnStats(bound(min, i, columnType, low = true), upper, long(nulls, i), rows), nanCount)
      }
    } finally vectors.foreach(_.close())
  }

  /**
   * A zone bound in the literal form of the expression language, or None where the type is
   * not compared (so the zone is never pruned on it). Timestamps convert to microseconds,
   * rounding outwards.
   */
  private def bound(v: FieldVector, i: Int, t: ArrowType, low: Boolean): Option[Any] =
    if (v.isNull(i)) None
    else (v, t) match {
      case (x: Float4Vector, _) => Some(x.get(i).toDouble).filterNot(_.isNaN)
      case (x: Float8Vector, _) => Some(x.get(i)).filterNot(_.isNaN)
      case (x: TimeStampVector, ts: ArrowType.Timestamp) =>
        val raw = x.get(i)
        Some(ts.getUnit match {
          case TimeUnit.SECOND => raw * 1000000L
          case TimeUnit.MILLISECOND => raw * 1000L
          case TimeUnit.MICROSECOND => raw
          case TimeUnit.NANOSECOND => if (low) Math.floorDiv(raw, 1000L) else -Math.floorDiv(-raw, 1000L)
        })
      case _ => IndexKeys.literal(v, i)
    }
}
