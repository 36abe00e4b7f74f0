package io.sparklance.util

/**
 * The one factory for user-facing errors. Each method fixes an error class and builds a
 * message naming the problem, where it is, and what to do about it. New failures get a
 * method here rather than an ad-hoc exception at the call site.
 */
object Errors {

  // ---- corrupt input -------------------------------------------------------------------

  /** Bytes at `offset` of `path` do not match the format; `detail` says what was expected. */
  def corrupt(path: String, offset: Long, detail: String, cause: Throwable = null): CorruptFileException =
    new CorruptFileException("LANCE_CORRUPT_FILE",
      s"$path at byte $offset: $detail. The file is damaged or was not written by Lance; " +
        "restore it from a backup or rewrite the dataset.", cause)

  /** A problem in a decoded structure where no single byte offset applies. */
  def corrupt(path: String, detail: String): CorruptFileException =
    new CorruptFileException("LANCE_CORRUPT_FILE",
      s"$path: $detail. The file is damaged or was not written by Lance; " +
        "restore it from a backup or rewrite the dataset.")

  /** A protobuf message that does not parse. */
  def corruptProto(path: String, offset: Long, message: String, cause: Throwable): CorruptFileException =
    new CorruptFileException("LANCE_CORRUPT_FILE",
      s"$path${if (offset >= 0) s" at byte $offset" else ""}: the $message protobuf message does not parse (${cause.getMessage}). " +
        "The file is damaged or truncated.", cause)

  // ---- unsupported ---------------------------------------------------------------------

  def unsupported(what: String, where: String): UnsupportedFeatureException =
    new UnsupportedFeatureException("LANCE_UNSUPPORTED_FEATURE",
      s"$where: $what is not supported by this version of spark-lance. " +
        "Read the data with pylance, or rewrite it with a supported format or type.")

  /**
   * Data that the file format version being written cannot represent (not a gap in
   * spark-lance: pylance refuses the same); `remedy` says which version or change stores it.
   */
  def notInFileVersion(what: String, version: String, where: String, remedy: String): UnsupportedFeatureException =
    new UnsupportedFeatureException("LANCE_UNSUPPORTED_FEATURE",
      s"$where: Lance file format $version cannot store $what; $remedy.")

  def unsupportedFileVersion(path: String, major: Int, minor: Int): UnsupportedFeatureException =
    new UnsupportedFeatureException("LANCE_UNSUPPORTED_FILE_VERSION",
      s"$path: Lance file format version $major.$minor is not supported. Supported: 2.0, 2.1, 2.2 " +
        "(and legacy 0.1). Version 2.3 ('next') is unstable; rewrite the data with " +
        "data_storage_version='stable'.")

  def unsupportedStorageVersion(where: String, version: String): UnsupportedFeatureException =
    new UnsupportedFeatureException("LANCE_UNSUPPORTED_FILE_VERSION",
      s"$where: data storage version '$version' is not supported. Supported: 0.1, 2.0, 2.1, 2.2. " +
        "Version 2.3 ('next') is unstable; rewrite the data with data_storage_version='stable'.")

  def unsupportedEncoding(path: String, column: String, encoding: String): UnsupportedFeatureException =
    new UnsupportedFeatureException("LANCE_UNSUPPORTED_ENCODING",
      s"$path, column '$column': encoding $encoding is not supported by this version of spark-lance. " +
        "Read the data with pylance, or rewrite the column without that encoding.")

  def unknownReaderFlags(manifest: String, flags: Long, unknown: Long): UnsupportedFeatureException =
    new UnsupportedFeatureException("LANCE_UNSUPPORTED_FEATURE",
      s"$manifest: reader feature flags 0x${flags.toHexString} contain bits 0x${unknown.toHexString} that " +
        "this reader does not know. A newer Lance wrote this dataset; upgrade spark-lance or read it with pylance.")

  // ---- not found -----------------------------------------------------------------------

  def notADataset(uri: String, detail: String): NotFoundException =
    new NotFoundException("LANCE_DATASET_NOT_FOUND",
      s"$uri is not a Lance dataset: $detail. Check the path; a Lance dataset is a folder with a " +
        "_versions/ subfolder holding *.manifest files.")

  def versionNotFound(uri: String, version: Long, existing: Seq[Long]): NotFoundException =
    new NotFoundException("LANCE_VERSION_NOT_FOUND",
      s"$uri has no version $version. Versions that exist: ${summarize(existing)}.")

  /** The plural of a kind of thing named in a message ("tag", "branch", "version"). */
  private def plural(kind: String): String = if (kind.endsWith("ch") || kind.endsWith("s")) s"${kind}es" else s"${kind}s"

  private def summarize(xs: Seq[Long]): String =
    if (xs.isEmpty) "none"
    else if (xs.length <= 20) xs.mkString(", ")
    else s"${xs.take(10).mkString(", ")}, … ${xs.takeRight(5).mkString(", ")} (${xs.length} in all)"

  def refNotFound(uri: String, kind: String, name: String, existing: Seq[String]): NotFoundException =
    new NotFoundException("LANCE_REF_NOT_FOUND",
      s"$uri has no $kind '$name'. ${plural(kind).capitalize} that exist: ${if (existing.isEmpty) "none" else existing.mkString(", ")}.")

  /** A tag or branch created under a name that is taken (Lance's RefConflict). */
  def refAlreadyExists(uri: String, kind: String, name: String, what: String): LanceException =
    new LanceException("LANCE_REF_ALREADY_EXISTS",
      s"$uri already has a $kind '$name' ($what). Choose another name${if (kind == "tag") ", or move the tag with replace => true" else ", or delete that branch first"}.")

  /** A branch that cannot be deleted while others are based on it or tags name its versions (Lance's RefConflict). */
  def refInUse(uri: String, kind: String, name: String, users: String): LanceException =
    new LanceException("LANCE_REF_IN_USE",
      s"$uri: $kind '$name' cannot be deleted: $users. Delete those first.")

  def noVersionAsOf(uri: String, timestamp: String, first: String): NotFoundException =
    new NotFoundException("LANCE_VERSION_NOT_FOUND",
      s"$uri has no version as of $timestamp: its oldest version was committed at $first.")

  def fileNotFound(path: String, context: String): NotFoundException =
    new NotFoundException("LANCE_FILE_NOT_FOUND",
      s"$path does not exist ($context). The dataset is incomplete: a file it references was deleted " +
        "or never written; restore it or read another version.")

  // ---- invalid arguments ---------------------------------------------------------------

  def invalidOption(name: String, value: String, expected: String): InvalidArgumentException =
    new InvalidArgumentException("LANCE_INVALID_OPTION",
      s"option '$name' = '$value' is invalid: expected $expected.")

  /** An option key that is not one of ours but so close to `meant` that it must be a misspelling of it. */
  def misspeltOption(key: String, meant: String): InvalidArgumentException =
    new InvalidArgumentException("LANCE_INVALID_OPTION",
      s"option '$key' is not an option of the Lance source; did you mean '$meant'? Spark passes options a source does " +
        s"not know through unused, so this one would have been ignored. Give it as '$meant'.")

  def invalidArgument(detail: String): InvalidArgumentException =
    new InvalidArgumentException("LANCE_INVALID_ARGUMENT", detail)

  /**
   * A `CALL` statement that cannot run as written (its syntax, an argument that is unknown,
   * missing, repeated or of the wrong type), at `line` and `position` (from 0, as Spark counts)
   * of the statement's text.
   */
  def invalidCall(line: Int, position: Int, detail: String): InvalidArgumentException =
    new InvalidArgumentException("LANCE_INVALID_ARGUMENT", s"CALL (line $line, pos $position): ${detail.stripSuffix(".")}.")

  /**
   * A column's Lance type, declared in its Spark field metadata under `key`, that its Spark type
   * cannot hold (`readsAs` says what the declared type reads as in Spark, when known).
   */
  def columnTypeMismatch(where: String, column: String, key: String, declared: String, sparkType: String, readsAs: Option[String]): InvalidArgumentException =
    new InvalidArgumentException("LANCE_COLUMN_TYPE_MISMATCH",
      s"$where: column '$column' is declared as Lance type '$declared' (field metadata '$key'), which does not fit " +
        s"its Spark type $sparkType${readsAs.fold("")(t => s" (that Lance type reads as $t)")}. Cast the column to the " +
        "Spark type the declaration reads as, or remove the metadata to store the column as its Spark type.")

  /** Spark values of type `sparkType` written to a table column of Lance type `lanceType` that does not take them. */
  def writeTypeMismatch(where: String, column: String, lanceType: String, sparkType: String): InvalidArgumentException =
    new InvalidArgumentException("LANCE_COLUMN_TYPE_MISMATCH",
      s"$where: column '$column' of the table has Lance type '$lanceType', which values of Spark type $sparkType cannot be " +
        "written to. Cast the column to the Spark type the table shows for it (spark.read.format(\"lance\").load(...).schema).")

  /** Spark field metadata under `key` that is not a declaration we can use; `expected` says what is. */
  def invalidColumnMetadata(where: String, column: String, key: String, value: String, expected: String): InvalidArgumentException =
    new InvalidArgumentException("LANCE_INVALID_COLUMN_METADATA",
      s"$where: column '$column' has field metadata '$key' = '$value': expected $expected.")

  /** A value of a vector column whose length is not the declared dimension. */
  def vectorDimensionMismatch(where: String, column: String, index: Int, length: Long, dimension: Int): InvalidArgumentException =
    new InvalidArgumentException("LANCE_VECTOR_DIMENSION_MISMATCH",
      s"$where: column '$column' holds vectors of $dimension values, but value $index of the batch has $length. " +
        s"Write only $dimension-value arrays (or nulls) to it, or declare the column without a dimension to store " +
        "arrays of any length.")

  // ---- writes --------------------------------------------------------------------------

  /**
   * A DataFrame appended to a table whose columns it does not match: columns of the table it
   * lacks, columns the table lacks, and (column, its Spark type, the type the table takes).
   */
  def writeSchemaMismatch(where: String, missing: Seq[String], extra: Seq[String], mistyped: Seq[(String, String, String)]): InvalidArgumentException =
    new InvalidArgumentException("LANCE_SCHEMA_MISMATCH",
      s"$where: the DataFrame's columns do not match the table's: ${schemaProblems(missing, extra, mistyped)}. Nothing was written. " +
        "Select and cast the columns to the table's (spark.read.format(\"lance\").load(path).schema shows them), " +
        "or replace the table with mode(\"overwrite\").")

  /** CREATE TABLE over an existing Lance table declares columns that are not the table's. */
  def declaredSchemaMismatch(location: String, missing: Seq[String], extra: Seq[String], mistyped: Seq[(String, String, String)]): InvalidArgumentException =
    new InvalidArgumentException("LANCE_SCHEMA_MISMATCH",
      s"CREATE TABLE over the Lance table at $location declares columns that are not the table's: " +
        s"${schemaProblems(missing, extra, mistyped)}. Nothing was created. Declare no columns to take the table's.")

  private def schemaProblems(missing: Seq[String], extra: Seq[String], mistyped: Seq[(String, String, String)]): String = Seq(
    if (missing.isEmpty) None else Some(s"missing columns ${missing.map(c => s"'$c'").mkString(", ")}"),
    if (extra.isEmpty) None else Some(s"columns the table does not have ${extra.map(c => s"'$c'").mkString(", ")}"),
    if (mistyped.isEmpty) None
    else Some("columns of another type: " + mistyped.map { case (c, given, wanted) => s"'$c' is $given, the table takes $wanted" }.mkString("; ")))
    .flatten.mkString("; ")

  /** A row written by an overwrite by condition (REPLACE WHERE) that the condition does not match. */
  def replaceWhereMismatch(where: String, condition: String): InvalidArgumentException =
    new InvalidArgumentException("LANCE_REPLACE_WHERE_MISMATCH",
      s"$where: a written row does not satisfy the REPLACE WHERE condition $condition (or it is NULL for the row). " +
        "Nothing was committed. Write only rows the condition matches (filter the query with it), or append the others " +
        "with INSERT INTO.")

  /**
   * A column name a Lance table cannot take, or one Spark would confuse with another: `why`
   * says which rule it breaks (Lance's own rules: rust/lance-core/src/datatypes/schema.rs and
   * rust/lance/src/dataset/write/insert.rs), `todo` what to do.
   */
  def invalidColumnName(where: String, column: String, why: String,
      todo: String = "Rename the column (AS in SQL, withColumnRenamed on a DataFrame)"): InvalidArgumentException =
    new InvalidArgumentException("LANCE_INVALID_NAME", s"$where: column ${printable(column)} $why. Nothing was written. $todo.")

  def reservedColumn(where: String, column: String, reserved: Seq[String]): InvalidArgumentException =
    invalidColumnName(where, column, s"has a name Lance reserves for the columns it computes (${reserved.mkString(", ")}, " +
      "in any case: Spark matches column names without case, so a stored one would be taken for the computed one)")

  /** Two sibling columns whose names are equal, or equal but for case. */
  def duplicateColumn(where: String, column: String, other: String): InvalidArgumentException =
    if (column == other) invalidColumnName(where, column, "is named more than once; a Lance table's column names are unique",
      "Rename or drop the duplicates")
    else invalidColumnName(where, column, s"and column ${printable(other)} differ only in case, which Spark does not tell " +
      "apart (it matches column names without case)", "Rename one of them")

  /**
   * A table or namespace name that `catalog` cannot take: `rule` says which names it takes
   * (names become folders, and no name may lead outside the catalog's root).
   */
  def invalidName(catalog: String, kind: String, name: String, rule: String): InvalidArgumentException =
    new InvalidArgumentException("LANCE_INVALID_NAME",
      s"${printable(name)} is not a valid $kind name in catalog $catalog: $rule. Nothing was created; choose another name.")

  /** `name` quoted, with control characters (a NUL, a newline) shown as escapes. */
  private def printable(name: String): String =
    "'" + name.flatMap(c => if (Character.isISOControl(c)) "\\" + f"u${c.toInt}%04x" else c.toString) + "'"

  /**
   * A value the column's Lance type cannot hold (a negative number for an unsigned column, a
   * binary of another width than a fixed-size binary's, a time beyond what the unit stores):
   * `value` as the user wrote it, `allowed` what the type takes.
   */
  def valueOutOfRange(where: String, column: String, row: Long, value: String, lanceType: String, allowed: String): InvalidArgumentException =
    new InvalidArgumentException("LANCE_VALUE_OUT_OF_RANGE",
      s"$where: row $row of column '$column' holds $value, which its Lance type $lanceType cannot store: it takes $allowed. " +
        "Filter or fix such values, or write the column to a table with a wider type.")

  /** A null in a column (or struct member, list item, map value) the table declares not nullable. */
  def nullInNonNullable(where: String, column: String, row: Long): InvalidArgumentException =
    new InvalidArgumentException("LANCE_NULL_IN_NON_NULLABLE_COLUMN",
      s"$where: row $row of column '$column' is null, but the table declares '$column' not nullable. " +
        "Fill the nulls (coalesce) or filter those rows before writing.")

  // ---- paths and storage ---------------------------------------------------------------

  /**
   * A path its file system refuses (a URI whose authority is not the file system's, a NUL);
   * `cause` is the file system's error, its message redacted as ours are.
   */
  def invalidPath(cause: Throwable): InvalidArgumentException =
    new InvalidArgumentException("LANCE_INVALID_ARGUMENT",
      s"the file system refuses the path: ${cause.getMessage}. Check the path's scheme and authority (credentials belong " +
        "in the file system's settings, such as spark.hadoop.fs.s3a.access.key, never in the URI) and that it holds no " +
        "control characters.", cause)

  /** Something other than a regular file (a directory, a named pipe, a device) where a file should be. */
  def notARegularFile(path: String, what: String): CorruptFileException =
    new CorruptFileException("LANCE_CORRUPT_FILE",
      s"$path is $what, not a regular file, where the dataset needs a file. It was not written by Lance; " +
        "remove it or restore the file from a backup.")

  /** No Hadoop file system for a URI's scheme; `jars` says what to put on the classpath. */
  def fileSystemMissing(path: String, scheme: String, jars: String, cause: Throwable): UnsupportedFeatureException =
    new UnsupportedFeatureException("LANCE_FILE_SYSTEM_NOT_FOUND",
      s"$path: no file system for '$scheme://' is on the classpath. $jars", cause)

  /**
   * A table location whose storage cannot create a file atomically only if it is absent, the
   * one step that commits a version without overwriting a concurrent writer's (`why` says what
   * the file system lacks).
   */
  def noAtomicCommit(path: String, scheme: String, why: String): UnsupportedFeatureException =
    new UnsupportedFeatureException("LANCE_NO_ATOMIC_COMMIT",
      s"$path: cannot write a Lance table on '$scheme': $why. A commit must create the next version's manifest " +
        "only if no other writer has, in one atomic step. Writable locations: local files (file:/ or a plain path), " +
        "HDFS (hdfs://, viewfs://) and S3 through s3a (s3://, s3a://, with fs.s3a.create.conditional.enabled=true, " +
        "the default). Write the table to one of those, or read this one only.")

  /**
   * A location a table names outside its folder and the prefixes the `allowedBasePaths`
   * read option lists: `what` says what lies there (a base path, an external blob).
   */
  def locationNotAllowed(where: String, what: String, location: String, allowed: Seq[String]): InvalidArgumentException =
    new InvalidArgumentException("LANCE_BASE_PATH_NOT_ALLOWED",
      s"$where: $what $location, which is outside the table and the allowed prefixes " +
        s"${allowed.mkString(", ")} (read option 'allowedBasePaths'). Add its prefix to the option if you trust it.")

  // ---- commits ------------------------------------------------------------------------

  /**
   * Our commit (`mine`, read at version `readVersion`) lost to the transaction `theirs`
   * committed as version `otherVersion` (`otherUuid`); `why` is the rule that decided.
   */
  def commitConflict(table: String, mine: String, readVersion: Long, theirs: String, otherVersion: Long, otherUuid: String,
      why: String, retryable: Boolean): CommitConflictException =
    new CommitConflictException(
      s"$table: this $mine (read at version $readVersion) conflicts with the $theirs committed as version $otherVersion " +
        s"(transaction $otherUuid): $why. Nothing was committed. " +
        (if (retryable) "Run the write again: it will read the new version."
         else "The two changes cannot both apply; check what the other writer did before writing again."),
      retryable, Some(otherVersion))

  /** Every attempt found the next version taken by another writer. */
  def commitRetriesExhausted(table: String, attempts: Int, lastVersion: Long): CommitConflictException =
    new CommitConflictException(
      s"$table: the commit was retried $attempts times and each time another writer took the next version " +
        s"(latest seen: $lastVersion). Nothing was committed. Run the write again, or raise the commit retries.",
      retryable = true, Some(lastVersion))

  /** Creating a table whose schema differs from the one another writer created meanwhile. */
  def createdConcurrently(table: String, ours: String, theirs: String): CommitConflictException =
    new CommitConflictException(
      s"$table: another writer created the table while this write was running, with schema $theirs; this write has " +
        s"schema $ours. Nothing was committed. Write again: the table now exists and the schemas must match.",
      retryable = false, None)

  /** An append with new columns (mergeSchema) found the table's schema changed by another writer while it wrote. */
  def schemaChangedDuringWrite(table: String, readVersion: Long, latestVersion: Long): CommitConflictException =
    new CommitConflictException(
      s"$table: this append adds columns to the schema of version $readVersion, but another writer changed the schema " +
        s"before version $latestVersion while the rows were written. Nothing was committed. Run the write again: it will " +
        "read the new schema.", retryable = true, Some(latestVersion))

  def tableAlreadyExists(table: String, version: Long): LanceException =
    new LanceException("LANCE_TABLE_ALREADY_EXISTS",
      s"$table already exists (latest version $version). Append to it, overwrite it, or choose another path.")

  /**
   * The manifest of `version` may or may not have been written by this commit (`uuid`): its
   * write failed ambiguously and reading it back failed too.
   */
  def commitStateUnknown(table: String, version: Long, uuid: String, cause: Throwable): CommitStateUnknownException =
    new CommitStateUnknownException(
      s"$table: writing version $version failed in a way that leaves open whether it was committed, and reading it back " +
        s"failed as well (${cause.getMessage}). Nothing was deleted. Check whether version $version exists and names " +
        s"transaction $uuid (pylance: lance.dataset(uri).versions()); if it does the write is committed, if not write again.",
      cause)

  /** The table carries writer feature flags this writer does not know: a newer Lance wrote it. */
  def unknownWriterFlags(manifest: String, flags: Long, unknown: Long): UnsupportedFeatureException =
    new UnsupportedFeatureException("LANCE_UNSUPPORTED_FEATURE",
      s"$manifest: writer feature flags 0x${flags.toHexString} contain bits 0x${unknown.toHexString} that this writer " +
        "does not know. A newer Lance wrote this table; write to it with pylance or a newer spark-lance.")

  // ---- I/O -----------------------------------------------------------------------------

  /** A write that failed before any of the file could be visible: the file is certainly absent. */
  def nothingWritten(path: String, action: String, cause: Throwable): NothingWrittenException =
    new NothingWrittenException(s"$path: $action failed before anything was written: ${cause.getMessage}. " +
      "Check that the folder exists and can be written.", cause)

  /**
   * A cleanup that attempted every deletion and could not delete some files: how many, the first
   * few with their reason, and what it means for the table (nothing it still names was touched).
   */
  def cleanupIncomplete(root: String, failed: Long, firstFailures: Seq[(String, String)], removed: Long, planned: Int,
      skipped: Boolean): LanceException = {
    val first = firstFailures.take(5).map { case (p, why) => s"$p ($why)" }.mkString("; ")
    val more = if (failed > 5) s" and ${failed - 5} more" else ""
    val consequence =
      if (skipped) "Those versions are still there, so no data, deletion, transaction or index file was deleted."
      else "Every version still listed reads whole."
    new LanceException("LANCE_IO_ERROR",
      s"cleanup of $root: $failed of $planned files could not be deleted ($removed were): $first$more. " +
        s"$consequence Fix the cause (permissions, storage reachable) and run cleanup again: it removes what is left.")
  }

  def io(path: String, action: String, cause: Throwable): LanceException =
    new LanceException("LANCE_IO_ERROR",
      s"$path: $action failed: ${cause.getMessage}. Check that the storage is reachable and readable.", cause)
}
