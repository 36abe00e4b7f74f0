package io.sparklance.spark.write

import org.apache.spark.sql.connector.write.WriterCommitMessage

import io.sparklance.table.Fragment
import io.sparklance.table.write.FragmentZoneMaps

/**
 * What one task attempt wrote: its new fragments (ids assigned at commit), sent to the driver,
 * when the write extends zone maps, each fragment's zones (aligned with `fragments`), and when
 * an insert-only MERGE records its keys, their filter's bits. Small: a fragment's metadata is
 * its data files' names, field ids and sizes; its zones are a few values per `rows_per_zone`
 * rows; the filter 32 KiB.
 */
final case class LanceCommitMessage(fragments: IndexedSeq[Fragment], zoneMaps: IndexedSeq[FragmentZoneMaps] = IndexedSeq.empty,
    insertedKeys: Option[Array[Byte]] = None) extends WriterCommitMessage
