package io.sparklance.table.write

import scala.collection.mutable.ArrayBuffer

import org.apache.arrow.vector.VectorSchemaRoot
import org.roaringbitmap.RoaringBitmap

import io.sparklance.util.Errors
import io.sparklance.util.ScalaCompat._

// Spec: rust/lance-index/src/scalar/zoned.rs (ZoneTrainer) and zonemap.rs (ZoneMapSeedWriter,
// which computes the same zones while pylance 14 writes a data file). A zone map splits each
// fragment, from its first row, into zones of `rows_per_zone` rows (the last one shorter);
// zones never cross fragments. Per zone: min, max, null count, NaN count; per fragment: the
// offsets of its null rows, which the index keeps exactly (its `null_bitmap`). The statistics
// are computed on the executors while the rows are written, so that extending a ZONEMAP index
// over the new fragments never reads them again.

/**
 * A ZONEMAP index a write extends: its name, the indexed top-level field (`column`: its
 * position in the written batches, `columnName` its name), the index's zone size and whether
 * its details ask for zones embedded in the data files ([[ZoneSeed]]).
 */
final case class ZoneMapTarget(indexName: String, fieldId: Int, column: Int, columnName: String, rowsPerZone: Long, seeds: Boolean) {
  if (rowsPerZone < 1 || rowsPerZone > Int.MaxValue)
    throw Errors.invalidArgument(s"zone map $indexName: $rowsPerZone rows per zone; expected 1 to ${Int.MaxValue}")
}

/**
 * One zone of a written fragment: rows `[start, start + length)` of it. A bound is None when
 * the zone has no value that has one (all null or NaN, or a type without bounds), else the
 * value's little-endian bytes (see [[ZoneBounds]]).
 */
final case class ZoneStats(start: Long, length: Long, nullCount: Long, nanCount: Long,
    min: Option[ArraySeq[Byte]], max: Option[ArraySeq[Byte]])

/**
 * The zones of one fragment for one target, and its null rows as a portable 32-bit Roaring
 * bitmap of row offsets (empty when there is none).
 */
final case class ColumnZones(zones: IndexedSeq[ZoneStats], nullRows: ArraySeq[Byte])

/** What the zone maps of one written fragment hold, one entry per target, in target order. */
final case class FragmentZoneMaps(rows: Long, columns: IndexedSeq[ColumnZones])

/**
 * Computes the zones of every target over the fragments one writer writes. Not thread-safe:
 * one per writer. The writer calls [[observe]] for every slice of a batch it appends to a data
 * file, and [[fragments]] when it has finished them all; the result, small and serializable,
 * travels with the fragments to the driver.
 */
final class ZoneMapBuilder(val targets: IndexedSeq[ZoneMapTarget]) {
  private final class Column(val target: ZoneMapTarget) {
    private var bounds: ZoneBounds = _
    var valueType: org.apache.arrow.vector.types.pojo.ArrowType = _
    private val zones = ArrayBuffer.empty[ZoneStats]
    private var nullRows = new RoaringBitmap()
    private var zoneStart = 0L
    private var zoneRows = 0
    private var zoneNulls = 0L

    def observe(batch: VectorSchemaRoot, from: Int, count: Int, fragmentOffset: Long): Unit = {
      val v = batch.getVector(target.column)
      if (bounds == null) {
        valueType = v.getField.getType
        bounds = ZoneBounds.of(valueType).getOrElse(throw Errors.unsupported(
          s"zone maps over $valueType (index ${target.indexName})", "the zone map builder"))()
      }
      val hasNulls = v.getNullCount > 0
      var i = from
      val end = from + count
      while (i < end) {
        val take = math.min(end - i, target.rowsPerZone - zoneRows).toInt
        if (hasNulls) {
          var j = i
          while (j < i + take) {
            if (v.isNull(j)) { nullRows.add((fragmentOffset + (j - from)).toInt); zoneNulls += 1 }
            j += 1
          }
        }
        bounds.add(v, i, i + take, hasNulls)
        zoneRows += take
        i += take
        if (zoneRows == target.rowsPerZone) closeZone()
      }
    }

    private def closeZone(): Unit = {
      zones += ZoneStats(zoneStart, zoneRows, zoneNulls, bounds.nans, bounds.min, bounds.max)
      zoneStart += zoneRows
      zoneRows = 0
      zoneNulls = 0
      bounds.reset()
    }

    def finishFragment(): ColumnZones = {
      if (zoneRows > 0) closeZone()
      val bytes =
        if (nullRows.isEmpty) ArraySeq.unsafeWrapArray(Array.emptyByteArray)
        else {
          // Run containers where they are smaller, as the Rust roaring crate serializes.
          nullRows.runOptimize()
          val out = java.nio.ByteBuffer.allocate(nullRows.serializedSizeInBytes())
          nullRows.serialize(out)
          ArraySeq.unsafeWrapArray(out.array())
        }
      val result = ColumnZones(zones.toIndexedSeq, bytes)
      zones.clear()
      nullRows = new RoaringBitmap()
      zoneStart = 0
      result
    }
  }

  private val columns = targets.map(new Column(_))
  private val done = ArrayBuffer.empty[FragmentZoneMaps]
  private var fragmentRows = 0L

  /**
   * Rows `[from, from + count)` of `batch` (the written schema's batch) were appended to the
   * open data file at row `fragmentOffset`; offset 0 starts a new fragment (ending the last
   * one, unless [[finishFragment]] did).
   */
  def observe(batch: VectorSchemaRoot, from: Int, count: Int, fragmentOffset: Long): Unit = if (count > 0) {
    if (fragmentOffset == 0 && fragmentRows > 0) finishFragment()
    if (fragmentOffset != fragmentRows)
      throw new IllegalStateException(s"zone maps saw $fragmentRows rows of the fragment, then rows at offset $fragmentOffset")
    if (fragmentOffset + count > 0xffffffffL)
      throw Errors.invalidArgument(s"a fragment of more than 4294967295 rows")
    columns.foreach(_.observe(batch, from, count, fragmentOffset))
    fragmentRows += count
  }

  /** Ends the fragment being written (its data file is closing) and returns its zone maps. */
  def finishFragment(): FragmentZoneMaps = {
    val f = FragmentZoneMaps(fragmentRows, columns.map(_.finishFragment()))
    done += f
    fragmentRows = 0
    f
  }

  /**
   * The zones of fragment `f` that pylance embeds in its data file, for the targets whose
   * index asks for them; the writer adds each as a global buffer with its metadata entry.
   */
  def seeds(f: FragmentZoneMaps): IndexedSeq[ZoneSeed] =
    columns.zip(f.columns).collect { case (c, z) if c.target.seeds && c.valueType != null =>
      ZoneSeed.encode(c.target.columnName, c.target.rowsPerZone, c.valueType, z)
    }

  /** The zone maps of every fragment written, in the order they were written. */
  def fragments(): IndexedSeq[FragmentZoneMaps] = {
    if (fragmentRows > 0) finishFragment()
    done.toIndexedSeq
  }
}
