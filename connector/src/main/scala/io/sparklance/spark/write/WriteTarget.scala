package io.sparklance.spark.write

import io.sparklance.table.Snapshot

/**
 * Where a DataFrame write goes, as [[LanceSave]] planned it on the driver: its mode, the
 * latest version when the write was planned (None: no table yet), which becomes the commit's
 * read version, the parsed write options, and the table config a write that creates or replaces
 * the table records (a catalog's TBLPROPERTIES). `addedColumns`: the columns an append with
 * `mergeSchema` adds, committed right before its rows; `existing` then reads with them.
 */
final case class WriteTarget(mode: WriteMode, existing: Option[Snapshot], options: LanceWriteOptions,
    tableConfig: Map[String, String] = Map.empty, addedColumns: Option[AddedColumns] = None)
