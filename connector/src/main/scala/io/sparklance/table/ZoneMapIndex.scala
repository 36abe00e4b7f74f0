package io.sparklance.table

import scala.collection.mutable

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector._
import org.apache.arrow.vector.types.TimeUnit
import org.apache.arrow.vector.types.pojo.ArrowType

import io.sparklance.format.{LanceField, LanceFileReader}
import io.sparklance.storage.{ObjectStore, Paths}
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

object ZoneMapIndex {
  val Kind = "ZoneMapIndexDetails"

  /** The zones of `index` (a zone map over a column of Arrow type `columnType`). */
  def load(store: ObjectStore, indexDir: String, columnType: ArrowType): IndexedSeq[Zone] = {
    val path = Paths.join(indexDir, "zonemap.lance")
    val reader = LanceFileReader.open(store, path)
    val allocator = new RootAllocator(1L << 30)
    try {
      val fields = LanceField.buildTree(reader.descriptor.fields, path)
      // 2.x files own one column per leaf, in schema order.
      val leafIds = fields.flatMap(_.preOrder).filter(_.children.isEmpty).map(_.id)
      val vectors = mutable.ArrayBuffer.empty[FieldVector]
      def optColumn(name: String): Option[FieldVector] = fields.find(_.name == name).map { f =>
        val v = reader.scan(f, id => Some(leafIds.indexOf(id)).filter(_ >= 0)).next(reader.numRows.toInt, allocator)
        vectors += v
        v
      }
      def column(name: String): FieldVector =
        optColumn(name).getOrElse(throw Errors.corrupt(path, s"the zone map has no '$name' column"))
      try {
        val Seq(min, max, nulls, frag, start, len) =
          Seq("min", "max", "null_count", "fragment_id", "zone_start", "zone_length").map(column)
        val nans = optColumn("nan_count")
        def long(v: FieldVector, i: Int): Long = v.getObject(i) match {
          case n: java.lang.Number => n.longValue
          case other => throw Errors.corrupt(path, s"zone map column ${v.getName} holds $other")
        }
        val isFloat = columnType.isInstanceOf[ArrowType.FloatingPoint]
        (0 until reader.numRows.toInt).map { i =>
          val rows = long(len, i)
          val nanCount = nans.map(long(_, i))
          // The bounds leave NaN out, but Spark orders NaN above every number (x > 5 holds
          // for NaN): a zone that may hold NaN has no upper bound.
          val upper = if (isFloat && !nanCount.contains(0L)) None else bound(max, i, columnType, low = false)
          Zone(long(frag, i), long(start, i), rows,
            ColumnStats(bound(min, i, columnType, low = true), upper, long(nulls, i), rows), nanCount)
        }
      } finally vectors.foreach(_.close())
    } finally { reader.close(); allocator.close() }
  }

  /**
   * A zone bound in the literal form of the expression language, or None where the type is
   * not compared (so the zone is never pruned on it). Timestamps convert to microseconds,
   * rounding outwards.
   */
  private def bound(v: FieldVector, i: Int, t: ArrowType, low: Boolean): Option[Any] =
    if (v.isNull(i)) None
    else (v, t) match {
      case (x: BigIntVector, _) => Some(x.get(i))
      case (x: IntVector, _) => Some(x.get(i).toLong)
      case (x: SmallIntVector, _) => Some(x.get(i).toLong)
      case (x: TinyIntVector, _) => Some(x.get(i).toLong)
      case (x: UInt1Vector, _) => Some((x.get(i) & 0xff).toLong)
      case (x: UInt2Vector, _) => Some(x.get(i).toLong)
      case (x: UInt4Vector, _) => Some(x.get(i) & 0xffffffffL)
      case (x: DateDayVector, _) => Some(x.get(i).toLong)
      case (x: Float4Vector, _) => Some(x.get(i).toDouble).filterNot(_.isNaN)
      case (x: Float8Vector, _) => Some(x.get(i)).filterNot(_.isNaN)
      case (x: VarCharVector, _) => Some(new String(x.get(i), "UTF-8"))
      case (x: LargeVarCharVector, _) => Some(new String(x.get(i), "UTF-8"))
      case (x: BitVector, _) => Some(x.get(i) == 1)
      case (x: TimeStampVector, ts: ArrowType.Timestamp) =>
        val raw = x.get(i)
        Some(ts.getUnit match {
          case TimeUnit.SECOND => raw * 1000000L
          case TimeUnit.MILLISECOND => raw * 1000L
          case TimeUnit.MICROSECOND => raw
          case TimeUnit.NANOSECOND => if (low) Math.floorDiv(raw, 1000L) else -Math.floorDiv(-raw, 1000L)
        })
      case _ => None
    }
}
