package io.sparklance.table

import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance-table/src/feature_flags.rs. A manifest's reader
// flags say what a reader must understand; any bit from 64 up is unknown and the table
// must not be read (refused, never ignored).

object FeatureFlags {
  val DeletionFiles = 1L
  val StableRowIds = 2L
  /** Legacy marker for v2 files; only used to infer the format of manifests without `data_format`. */
  val UseV2FormatDeprecated = 4L
  /** Writer-only: the table has a non-empty config map. */
  val TableConfig = 8L
  val BasePaths = 16L
  /** Writer-only: transactions are only inline in the manifest. */
  val DisableTransactionFile = 32L

  private val Known = DeletionFiles | StableRowIds | UseV2FormatDeprecated | TableConfig | BasePaths | DisableTransactionFile

  /** Refuses a manifest whose reader flags contain bits this reader does not know. */
  def checkReadable(manifestPath: String, readerFlags: Long): Unit = {
    val unknown = readerFlags & ~Known
    if (unknown != 0) throw Errors.unknownReaderFlags(manifestPath, readerFlags, unknown)
  }
}
