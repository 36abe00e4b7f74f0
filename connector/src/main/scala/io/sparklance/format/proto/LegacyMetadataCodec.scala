package io.sparklance.format.proto

import scala.jdk.CollectionConverters._

import com.google.protobuf.InvalidProtocolBufferException

import io.sparklance.format.legacy.{DictionaryLocation, LegacyFileSchema, LegacyMetadata, LegacyStatisticsMetadata}
import io.sparklance.util.{Bytes, Errors}

// Spec: protos/lance/file.proto `Metadata`, `Schema`, `Field` (legacy 0.1 data files). The
// only place that turns those generated classes into format.legacy's views.

object LegacyMetadataCodec {

  private def parse[T](bytes: Bytes, message: String)(f: Array[Byte] => T): T =
    try f(bytes.toArray)
    catch { case e: InvalidProtocolBufferException => throw Errors.corruptProto(bytes.path, bytes.fileOffset, message, e) }

  /** The `Metadata` message a legacy footer points at (without its length prefix). */
  def parseMetadata(bytes: Bytes): LegacyMetadata = {
    val m = parse(bytes, "legacy file Metadata")(FileProtos.Metadata.parseFrom)
    val stats =
      if (!m.hasStatistics) None
      else {
        val s = m.getStatistics
        Some(LegacyStatisticsMetadata(
          s.getSchemaList.asScala.iterator.map(FileMetadataCodec.flatField).toIndexedSeq,
          s.getFieldsList.asScala.iterator.map(_.intValue).toIndexedSeq,
          unsigned(bytes, m.getStatistics.getPageTablePosition, "statistics page table position")))
      }
    LegacyMetadata(
      // Rust writes 0 for "no embedded manifest"; data always precedes it, so 0 is never a real position.
      Some(unsigned(bytes, m.getManifestPosition, "manifest position")).filter(_ != 0),
      m.getBatchOffsetsList.asScala.iterator.map(_.intValue).toIndexedSeq,
      unsigned(bytes, m.getPageTablePosition, "page table position"),
      stats)
  }

  /**
   * The schema of a legacy file's embedded manifest. A table `Manifest` keeps its fields in
   * field 1 and the schema metadata in field 5, exactly where `lance.file.Schema` keeps them,
   * so the manifest bytes parse as a `Schema` (the other manifest fields are skipped as
   * unknown), and the format layer never needs the table protos.
   */
  def parseEmbeddedSchema(bytes: Bytes): LegacyFileSchema = {
    val s = parse(bytes, "embedded manifest (schema)")(FileProtos.Schema.parseFrom)
    val fields = s.getFieldsList.asScala.toSeq
    val where = s"${bytes.path} (embedded schema)"
    val dictionaries = fields.iterator.filter(_.hasDictionary).map { f =>
      f.getId -> DictionaryLocation(f.getDictionary.getOffset, f.getDictionary.getLength)
    }.toMap
    LegacyFileSchema(FileMetadataCodec.schema(fields, s.getMetadataMap, where), dictionaries)
  }

  private def unsigned(bytes: Bytes, v: Long, what: String): Long = {
    if (v < 0)
      throw Errors.corrupt(bytes.path, bytes.fileOffset, s"legacy file Metadata: $what ${java.lang.Long.toUnsignedString(v)} is larger than any file")
    v
  }
}
