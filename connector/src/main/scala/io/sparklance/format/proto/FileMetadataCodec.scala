package io.sparklance.format.proto

import scala.jdk.CollectionConverters._

import com.google.protobuf.{InvalidProtocolBufferException, Any => PbAny}

import io.sparklance.format._
import io.sparklance.util.{Bytes, Errors}

// Spec: protos/lance/file.proto (FileDescriptor, Schema, Field) and
// protos/lance/file2.proto (ColumnMetadata). The only place that turns those generated
// classes into the format layer's Scala views.

object FileMetadataCodec {

  private def parse[T](bytes: Bytes, message: String)(f: Array[Byte] => T): T =
    try f(bytes.toArray)
    catch { case e: InvalidProtocolBufferException => throw Errors.corruptProto(bytes.path, bytes.fileOffset, message, e) }

  def parseDescriptor(bytes: Bytes): FileDescriptor = {
    val d = parse(bytes, "FileDescriptor")(FileProtos.FileDescriptor.parseFrom)
    FileDescriptor(d.getSchema.getFieldsList.asScala.map(flatField).toIndexedSeq, d.getLength, utf8Map(d.getSchema.getMetadataMap))
  }

  /** Builds a schema from the flat field list shared by data files and manifests. */
  def schema(fields: Seq[FileProtos.Field], metadata: java.util.Map[String, com.google.protobuf.ByteString], where: String): LanceSchema =
    LanceSchema(LanceField.buildTree(fields.map(flatField), where), utf8Map(metadata))

  def flatField(f: FileProtos.Field): FlatField =
    FlatField(f.getId, f.getParentId, f.getName, f.getLogicalType, f.getNullable, utf8Map(f.getMetadataMap))

  private def utf8Map(m: java.util.Map[String, com.google.protobuf.ByteString]): Map[String, String] =
    m.asScala.iterator.map { case (k, v) => k -> v.toStringUtf8 }.toMap

  def parseColumn(index: Int, bytes: Bytes): ColumnInfo = {
    val c = parse(bytes, s"ColumnMetadata of column $index")(File2Protos.ColumnMetadata.parseFrom)
    val where = s"${bytes.path}, column $index"
    val pages = c.getPagesList.asScala.iterator.zipWithIndex.map { case (p, i) =>
      PageInfo(
        p.getBufferOffsetsList.asScala.map(_.longValue).toIndexedSeq,
        p.getBufferSizesList.asScala.map(_.longValue).toIndexedSeq,
        p.getLength,
        p.getPriority,
        encoding(p.getEncoding, s"$where, page $i").getOrElse(throw Errors.corrupt(bytes.path, s"$where, page $i has no encoding")))
    }.toIndexedSeq
    ColumnInfo(index, pages, if (c.hasEncoding) encoding(c.getEncoding, where) else None)
  }

  private def encoding(e: File2Protos.Encoding, where: String): Option[EncodingAny] = e.getLocationCase match {
    case File2Protos.Encoding.LocationCase.DIRECT =>
      val any =
        try PbAny.parseFrom(e.getDirect.getEncoding)
        catch { case ex: InvalidProtocolBufferException => throw Errors.corruptProto(where, -1, "encoding Any", ex) }
      Some(EncodingAny(any.getTypeUrl, any.getValue.toByteArray))
    case File2Protos.Encoding.LocationCase.INDIRECT =>
      throw Errors.unsupported("deferred (indirect) encoding descriptions", where)
    case _ => None
  }
}
