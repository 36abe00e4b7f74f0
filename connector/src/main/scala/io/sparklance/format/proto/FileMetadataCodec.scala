package io.sparklance.format.proto

import scala.jdk.CollectionConverters._

import com.google.protobuf.{InvalidProtocolBufferException, Any => PbAny}

import io.sparklance.format._
import io.sparklance.util.{Bytes, Errors}

// Spec: protos/lance/file.proto (FileDescriptor, Schema, Field) and
// protos/lance/file2.proto (ColumnMetadata). The only place that turns those generated
// classes into the format layer's Scala views, and those views back into bytes.

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

  // ---- build side (the file writer) ----

  /** Global buffer 0 of a data file: the fields it holds and its row count. */
  def buildDescriptor(d: FileDescriptor): Array[Byte] = {
    val schema = FileProtos.Schema.newBuilder()
    d.fields.foreach(f => schema.addFields(buildField(f)))
    d.schemaMetadata.foreach { case (k, v) => schema.putMetadata(k, com.google.protobuf.ByteString.copyFromUtf8(v)) }
    FileProtos.FileDescriptor.newBuilder().setSchema(schema).setLength(d.numRows).build().toByteArray
  }

  def buildField(f: FlatField): FileProtos.Field = {
    val b = FileProtos.Field.newBuilder()
      .setId(f.id).setParentId(f.parentId).setName(f.name).setLogicalType(f.logicalType).setNullable(f.nullable)
    f.metadata.foreach { case (k, v) => b.putMetadata(k, com.google.protobuf.ByteString.copyFromUtf8(v)) }
    b.build()
  }

  /** One column's metadata: its pages in row order, each encoding stored directly as an `Any`. */
  def buildColumn(c: ColumnInfo): Array[Byte] = {
    val b = File2Protos.ColumnMetadata.newBuilder()
    c.columnEncoding.foreach(e => b.setEncoding(direct(e)))
    c.pages.foreach { p =>
      val pb = File2Protos.ColumnMetadata.Page.newBuilder().setLength(p.numRows).setPriority(p.priority).setEncoding(direct(p.encoding))
      p.bufferOffsets.foreach(o => pb.addBufferOffsets(o))
      p.bufferSizes.foreach(s => pb.addBufferSizes(s))
      b.addPages(pb)
    }
    b.build().toByteArray
  }

  private def direct(e: EncodingAny): File2Protos.Encoding = {
    val any = PbAny.newBuilder().setTypeUrl(e.typeUrl).setValue(com.google.protobuf.ByteString.copyFrom(e.value)).build()
    File2Protos.Encoding.newBuilder().setDirect(File2Protos.DirectEncoding.newBuilder().setEncoding(any.toByteString)).build()
  }
}
