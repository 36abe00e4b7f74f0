package io.sparklance.table.write

import java.io.ByteArrayOutputStream
import java.nio.channels.Channels

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.{UInt4Vector, UInt8Vector, VectorSchemaRoot}
import org.apache.arrow.vector.ipc.ArrowFileWriter
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType, Schema}

import io.sparklance.format.arrow.ArrowVectors

// Spec: rust/lance-index/src/scalar/zonemap.rs (ZoneMapSeedWriter) and scalar/seed.rs. When a
// zone map's details say `use_seeds`, pylance 14 embeds each new data file's zones for that
// column in the file: a global buffer holding an Arrow IPC file of one batch (min, max of the
// column's type, null_count and nan_count UInt32, zone_length UInt64; the schema metadata
// `seed_null_bitmap` = the null rows' portable Roaring bitmap in lower-case hex, empty when
// none), named by the data file's schema metadata `lance.seed.<column>` = `<buffer>:<rows per
// zone>`. `optimize_indices` then takes the zones from there instead of reading the column.

/** One column's zones of one data file, as its global buffer and schema metadata entry. */
final case class ZoneSeed(metadataKey: String, rowsPerZone: Long, bytes: Array[Byte]) {
  /** The schema metadata value once the bytes are global buffer `buffer` of the file. */
  def metadataValue(buffer: Int): String = s"$buffer:$rowsPerZone"
}

object ZoneSeed {
  def key(column: String): String = s"lance.seed.$column"

  /** The seed of `zones`, zones of a column of `valueType`. */
  def encode(column: String, rowsPerZone: Long, valueType: ArrowType, zones: ColumnZones): ZoneSeed = {
    def u(name: String, bits: Int) = new Field(name, FieldType.notNullable(new ArrowType.Int(bits, false)), null)
    val hex = zones.nullRows.iterator.map(b => f"${b & 0xff}%02x").mkString
    val schema = new Schema(Seq(new Field("min", FieldType.nullable(valueType), null), new Field("max", FieldType.nullable(valueType), null),
      u("null_count", 32), u("nan_count", 32), u("zone_length", 64)).asJava, Map("seed_null_bitmap" -> hex).asJava)
    // A few rows per zone: the vectors of a fragment's zones hold kilobytes.
    val allocator = new RootAllocator(1L << 28)
    val root = ArrowVectors.root(schema, allocator)
    try {
      root.allocateNew()
      val Seq(min, max, nulls, nans, lengths) = root.getFieldVectors.asScala.toSeq: @unchecked
      zones.zones.zipWithIndex.foreach { case (z, i) =>
        ZoneBounds.set(min, i, z.min)
        ZoneBounds.set(max, i, z.max)
        nulls.asInstanceOf[UInt4Vector].setSafe(i, ZoneMapWriter.count(z.nullCount, "null_count"))
        nans.asInstanceOf[UInt4Vector].setSafe(i, ZoneMapWriter.count(z.nanCount, "nan_count"))
        lengths.asInstanceOf[UInt8Vector].setSafe(i, z.length)
      }
      root.setRowCount(zones.zones.length)
      val out = new ByteArrayOutputStream()
      val w = new ArrowFileWriter(root, null, Channels.newChannel(out))
      try { w.start(); w.writeBatch(); w.end() } finally w.close()
      ZoneSeed(key(column), rowsPerZone, out.toByteArray)
    } finally { root.close(); allocator.close() }
  }
}
