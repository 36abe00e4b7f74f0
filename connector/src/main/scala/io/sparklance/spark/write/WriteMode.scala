package io.sparklance.spark.write

/**
 * What a write does to the table at its path, as the save mode asks. Overwrite is not a mode of
 * the target: Spark asks for it by truncating the write builder ([[LanceWriteBuilder.truncate]]).
 */
sealed trait WriteMode
object WriteMode {
  /** Add the rows as a new version; create the table if there is none. */
  case object Append extends WriteMode

  /**
   * Create the table (save modes `errorifexists` and `ignore`, planned only when no table was
   * there): if another writer creates it first, fail with LANCE_TABLE_ALREADY_EXISTS, or with
   * `ignoreIfExists` discard what was written and succeed, as the save mode `ignore` promises.
   */
  final case class Create(ignoreIfExists: Boolean) extends WriteMode

  /**
   * Replace the table's data and schema with the rows (REPLACE TABLE ... AS SELECT): an
   * overwrite, whatever plan Spark puts over the write (it appends to a staged table).
   */
  case object Replace extends WriteMode
}
