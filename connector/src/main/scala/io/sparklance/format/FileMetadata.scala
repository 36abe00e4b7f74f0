package io.sparklance.format

// Spec: lance-format/lance protos/file2.proto (ColumnMetadata, Page) and
// docs/src/format/file/index.md. These are the plain Scala views of a data file's
// metadata; the protobuf wrappers in format.proto build them.

/**
 * A page's encoding as stored: a `google.protobuf.Any` whose type URL says which message
 * the bytes hold (`/lance.encodings.ArrayEncoding` for 2.0 files,
 * `/lance.encodings21.PageLayout` for 2.1 and 2.2).
 */
final case class EncodingAny(typeUrl: String, value: Array[Byte])

/** One page of a column: its buffers (absolute file ranges), row count and encoding. */
final case class PageInfo(
    bufferOffsets: IndexedSeq[Long],
    bufferSizes: IndexedSeq[Long],
    numRows: Long,
    priority: Long,
    encoding: EncodingAny) {
  def numBuffers: Int = bufferOffsets.length
}

/** One column of a data file: its pages in row order, and its column-level encoding. */
final case class ColumnInfo(index: Int, pages: IndexedSeq[PageInfo], columnEncoding: Option[EncodingAny])

/**
 * What global buffer 0 of a data file describes: the fields it holds (as stored, flat;
 * readers take the schema from the manifest, and writers may leave ids of generated
 * children such as blob descriptors unset), its row count and the schema-level metadata
 * (index files keep their parameters there, e.g. a BTREE's `batch_size`).
 */
final case class FileDescriptor(fields: IndexedSeq[FlatField], numRows: Long, schemaMetadata: Map[String, String] = Map.empty)
