package io.sparklance.format.legacy

import io.sparklance.format.{FlatField, LanceSchema}

// Spec: lance-format/lance protos/file.proto `Metadata` (the message a legacy 0.1 data file's
// footer points at) and `Field.dictionary`. Plain views of the decoded protobuf messages;
// format.proto.LegacyMetadataCodec builds them.

/**
 * The footer target of a legacy data file.
 *
 * @param manifestPosition where the embedded manifest (the file's schema) starts, if any
 * @param batchOffsets     cumulative row counts: batch `i` holds rows
 *                         `[batchOffsets(i), batchOffsets(i + 1))`; empty for an empty file
 * @param pageTablePosition where the data page table starts
 * @param statistics       the page-level statistics, if the writer collected any
 */
final case class LegacyMetadata(
    manifestPosition: Option[Long],
    batchOffsets: IndexedSeq[Int],
    pageTablePosition: Long,
    statistics: Option[LegacyStatisticsMetadata])

/**
 * Where a legacy file keeps its page statistics: a second, single-batch page table over the
 * fields of `schema` (one struct per data field, named after the data field's id, with
 * children `null_count`, `min_value`, `max_value`).
 *
 * @param fieldIds the statistics schema's field ids the table covers (0 to their maximum)
 */
final case class LegacyStatisticsMetadata(
    schema: IndexedSeq[FlatField],
    fieldIds: IndexedSeq[Int],
    pageTablePosition: Long)

/** Where a dictionary column's values lie in the file: `length` values starting at `offset`. */
final case class DictionaryLocation(offset: Long, length: Long)

/**
 * The schema a legacy data file carries in its embedded manifest, with the location of each
 * dictionary column's values (keyed by field id).
 */
final case class LegacyFileSchema(schema: LanceSchema, dictionaries: Map[Int, DictionaryLocation]) {
  /** Every field id of the schema, nested fields included. */
  lazy val fieldIds: IndexedSeq[Int] = schema.fields.flatMap(_.preOrder.map(_.id))
}
