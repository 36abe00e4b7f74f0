package io.sparklance.spark.write

import org.apache.spark.sql.connector.write.WriterCommitMessage

import io.sparklance.table.Fragment

/**
 * What one task attempt wrote: its new fragments (ids assigned at commit), sent to the driver.
 * Small: a fragment's metadata is its data files' names, field ids and sizes.
 */
final case class LanceCommitMessage(fragments: IndexedSeq[Fragment]) extends WriterCommitMessage
