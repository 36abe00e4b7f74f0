package io.sparklance.spark.write

import io.sparklance.table.Snapshot

/**
 * Where a DataFrame write goes, as [[LanceSave]] planned it on the driver: its mode, the
 * latest version when the write was planned (None: no table yet), which becomes the commit's
 * read version, and the parsed write options.
 */
final case class WriteTarget(mode: WriteMode, existing: Option[Snapshot], options: LanceWriteOptions)
