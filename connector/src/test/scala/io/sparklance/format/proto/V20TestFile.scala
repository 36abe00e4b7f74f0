package io.sparklance.format.proto

import java.io.ByteArrayOutputStream
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.{Files, Path}

import com.google.protobuf.{ByteString, Any => PbAny}

import io.sparklance.format.v20.ArrayEncoding

// Spec: lance-format/lance protos/file2.proto and rust/lance-file/src/writer.rs (the 2.x
// container). Writes small file format 2.0 data files (footer version 0.3) from hand-made
// pages, so reader tests can shape pages as no pylance dataset does: many short pages,
// list item pages that do not line up with the offsets pages, damaged counts.

object V20TestFile {

  /** One page: its encoding, its buffers in page-buffer order, and its row (or item) count. */
  final case class Page(encoding: ArrayEncoding, buffers: Seq[Array[Byte]], rows: Long)

  final case class Column(pages: Seq[Page], blob: Boolean = false)

  final case class SchemaField(id: Int, parent: Int, name: String, logicalType: String,
      nullable: Boolean = true, metadata: Map[String, String] = Map.empty)

  private def pad(out: ByteArrayOutputStream): Unit = while (out.size() % 64 != 0) out.write(0x48)

  private def any(typeUrl: String, bytes: Array[Byte]): File2Protos.Encoding =
    File2Protos.Encoding.newBuilder().setDirect(File2Protos.DirectEncoding.newBuilder()
      .setEncoding(PbAny.newBuilder().setTypeUrl(typeUrl).setValue(ByteString.copyFrom(bytes)).build().toByteString)).build()

  /** Writes the file; `numRows` is what the descriptor (global buffer 0) declares. */
  def write(path: Path, fields: Seq[SchemaField], numRows: Long, columns: Seq[Column]): Unit = {
    val out = new ByteArrayOutputStream()
    val metas = columns.map { c =>
      val cm = File2Protos.ColumnMetadata.newBuilder()
      if (c.blob) cm.setEncoding(any(ArrayEncodingCodec.ColumnEncodingTypeUrl, ArrayEncodingCodec.blobColumnAny.value))
      else cm.setEncoding(any(ArrayEncodingCodec.ColumnEncodingTypeUrl,
        Encodings20Protos.ColumnEncoding.newBuilder().setValues(com.google.protobuf.Empty.getDefaultInstance).build().toByteArray))
      c.pages.foreach { p =>
        val pb = File2Protos.ColumnMetadata.Page.newBuilder().setLength(p.rows)
          .setEncoding(any(ArrayEncodingCodec.ArrayEncodingTypeUrl, ArrayEncodingCodec.toProto(p.encoding).toByteArray))
        p.buffers.foreach { b =>
          pb.addBufferOffsets(out.size().toLong).addBufferSizes(b.length.toLong)
          out.write(b)
          pad(out)
        }
        cm.addPages(pb)
      }
      cm.build().toByteArray
    }
    val schema = FileProtos.Schema.newBuilder()
    fields.foreach { f =>
      val fb = FileProtos.Field.newBuilder().setId(f.id).setParentId(f.parent).setName(f.name)
        .setLogicalType(f.logicalType).setNullable(f.nullable)
      f.metadata.foreach { case (k, v) => fb.putMetadata(k, ByteString.copyFromUtf8(v)) }
      schema.addFields(fb)
    }
    val descriptor = FileProtos.FileDescriptor.newBuilder().setSchema(schema).setLength(numRows).build().toByteArray
    val gb0 = out.size().toLong
    out.write(descriptor)
    val columnMetaStart = out.size().toLong
    val positions = metas.map { m => val p = out.size().toLong; out.write(m); (p, m.length.toLong) }
    val cmo = out.size().toLong
    val le = ByteBuffer.allocate(16 * metas.length + 16 + 40).order(ByteOrder.LITTLE_ENDIAN)
    positions.foreach { case (p, l) => le.putLong(p).putLong(l) }
    val gbo = cmo + 16L * metas.length
    le.putLong(gb0).putLong(descriptor.length.toLong)
    le.putLong(columnMetaStart).putLong(cmo).putLong(gbo).putInt(1).putInt(metas.length)
      .putShort(0).putShort(3).put("LANC".getBytes("US-ASCII"))
    out.write(le.array())
    Files.write(path, out.toByteArray)
  }
}
