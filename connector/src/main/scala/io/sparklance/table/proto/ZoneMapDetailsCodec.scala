package io.sparklance.table.proto

import com.google.protobuf.InvalidProtocolBufferException

import io.sparklance.table.ZoneMapDetails
import io.sparklance.util.Errors

// Spec: protos/table.proto ZoneMapIndexDetails (lance.table), the value of a zone map's
// IndexMetadata.index_details; pylance 14 sets all three fields
// (rust/lance-index/src/scalar/zonemap.rs make_zone_map_index_details). Older writers
// stored the empty message.

object ZoneMapDetailsCodec {
  def parse(value: Array[Byte], where: String): ZoneMapDetails = {
    val d =
      try TableProtos.ZoneMapIndexDetails.parseFrom(value)
      catch { case e: InvalidProtocolBufferException => throw Errors.corruptProto(where, 0, "ZoneMapIndexDetails", e) }
    ZoneMapDetails(
      if (d.hasRowsPerZone) Some(d.getRowsPerZone) else None,
      if (d.hasUseSeeds) Some(d.getUseSeeds) else None,
      if (d.hasHasNullBitmap) Some(d.getHasNullBitmap) else None)
  }

  def build(d: ZoneMapDetails): Array[Byte] = {
    val b = TableProtos.ZoneMapIndexDetails.newBuilder()
    d.rowsPerZone.foreach(b.setRowsPerZone)
    d.useSeeds.foreach(b.setUseSeeds)
    d.hasNullBitmap.foreach(b.setHasNullBitmap)
    b.build().toByteArray
  }
}
