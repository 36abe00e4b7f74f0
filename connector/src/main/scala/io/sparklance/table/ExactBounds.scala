package io.sparklance.table

import org.apache.arrow.vector.types.{DateUnit, TimeUnit}
import org.apache.arrow.vector.types.pojo.ArrowType

import io.sparklance.format.LanceField
import io.sparklance.storage.ObjectStore

// A zone map's min and max are bounds: rows deleted after the index was built, fragments
// it does not cover and NaNs it does not order all make them differ from the column's
// true MIN and MAX. Only when none of that can be the case are they an answer (issue: MIN/
// MAX "only where they are exact").

/** The true minimum and maximum of a column (None: every value is null, or no rows). */
final case class ColumnBounds(min: Option[Any], max: Option[Any])

object ExactBounds {

  /**
   * MIN and MAX of top-level `field` in `snapshot` from a ZONEMAP index on it, or None unless
   * they are exact: the index covers every fragment, its zones cover every row of each, no
   * fragment has deleted rows, the column's values are compared exactly (integers, dates,
   * timestamps in s/ms/us, floats with no NaN in any zone; not strings, which other writers
   * may truncate, nor nanosecond timestamps, which do not fit microseconds exactly).
   */
  def fromZoneMap(store: ObjectStore, snapshot: Snapshot, field: LanceField): Option[ColumnBounds] = {
    val m = snapshot.manifest
    val arrowType = field.toArrow(snapshot.manifestPath).getType
    val isFloat = arrowType.isInstanceOf[ArrowType.FloatingPoint]
    val index = m.indices.find(i => i.kind == ZoneMapIndex.Kind && i.fields == IndexedSeq(field.id))
    val usable = index.filter { i =>
      exactType(arrowType) && m.fragments.forall(f => f.deletionFile.isEmpty && i.fragments.forall(_.contains(f.id.toInt)))
    }
    usable.flatMap { i =>
      val zones = ZoneMapIndex.load(store, new FileLocations(snapshot.root, m).indexDir(i), i, arrowType)
      val byFragment = zones.groupBy(_.fragmentId)
      val covered = m.fragments.forall(f => byFragment.get(f.id).exists(_.iterator.map(_.length).sum == f.physicalRows))
      val ordered = !isFloat || zones.forall(_.nanCount.contains(0L))
      // A zone with values but no bound holds a value this reader does not compare.
      val bounded = zones.forall(z => z.stats.nullCount == z.length || (z.stats.min.isDefined && z.stats.max.isDefined))
      if (!covered || !ordered || !bounded) None
      else {
        val ord = ordering(arrowType)
        Some(ColumnBounds(zones.flatMap(_.stats.min).reduceOption[Any](ord.min(_, _)), zones.flatMap(_.stats.max).reduceOption[Any](ord.max(_, _))))
      }
    }
  }

  private def exactType(t: ArrowType): Boolean = t match {
    case i: ArrowType.Int => i.getIsSigned || i.getBitWidth < 64
    case d: ArrowType.Date => d.getUnit == DateUnit.DAY
    case ts: ArrowType.Timestamp => ts.getUnit != TimeUnit.NANOSECOND
    case _: ArrowType.FloatingPoint => true
    case _ => false
  }

  /** Zone bounds come as Long for integers, dates and timestamps, Double for floats. */
  private def ordering(t: ArrowType): Ordering[Any] = t match {
    case _: ArrowType.FloatingPoint => Ordering.by[Any, Double](_.asInstanceOf[Number].doubleValue)
    case _ => Ordering.by[Any, Long](_.asInstanceOf[Number].longValue)
  }
}
