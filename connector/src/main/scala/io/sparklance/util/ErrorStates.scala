package io.sparklance.util

/**
 * The SQLSTATE of every error class, so that Spark (and PySpark's `getSqlState()`) can
 * classify our errors as it does its own. The codes come from the SQL standard and the
 * PostgreSQL classes Spark itself uses (Spark's error-states.json): 42P01 undefined table,
 * 42704 undefined object, 58P01 undefined file, XX001 data corrupted, 0A000 feature not
 * supported, 22023 invalid parameter value, 58030 I/O error, 42501 insufficient privilege. A class missing from the
 * table takes the state of its family (the exception's subclass); the README lists both.
 */
object ErrorStates {

  val byClass: Map[String, String] = Map(
    "LANCE_DATASET_NOT_FOUND" -> "42P01",
    "LANCE_VERSION_NOT_FOUND" -> "42704",
    "LANCE_REF_NOT_FOUND" -> "42704",
    // A tag or branch name that is taken (duplicate_object).
    "LANCE_REF_ALREADY_EXISTS" -> "42710",
    // A branch others are based on (object_in_use).
    "LANCE_REF_IN_USE" -> "55006",
    "LANCE_FILE_NOT_FOUND" -> "58P01",
    "LANCE_CORRUPT_FILE" -> "XX001",
    "LANCE_UNSUPPORTED_FEATURE" -> "0A000",
    "LANCE_UNSUPPORTED_FILE_VERSION" -> "0A000",
    "LANCE_UNSUPPORTED_ENCODING" -> "0A000",
    "LANCE_INVALID_OPTION" -> "22023",
    "LANCE_INVALID_ARGUMENT" -> "22023",
    // A table, namespace or column name that cannot be used (invalid_name, as Spark's INVALID_IDENTIFIER).
    "LANCE_INVALID_NAME" -> "42602",
    // A column's declared Lance type does not fit its Spark type (PostgreSQL's datatype_mismatch).
    "LANCE_COLUMN_TYPE_MISMATCH" -> "42804",
    "LANCE_INVALID_COLUMN_METADATA" -> "22023",
    // A vector of the wrong length: data_exception, as pgvector reports "expected N dimensions".
    "LANCE_VECTOR_DIMENSION_MISMATCH" -> "22000",
    // A DataFrame's columns are not the table's: as Spark's INSERT_COLUMN_ARITY_MISMATCH.
    "LANCE_SCHEMA_MISMATCH" -> "21S01",
    // numeric_value_out_of_range: an unsigned column given a negative number, a time past its unit.
    "LANCE_VALUE_OUT_OF_RANGE" -> "22003",
    // not_null_violation, as a NOT NULL constraint reports it.
    "LANCE_NULL_IN_NON_NULLABLE_COLUMN" -> "23502",
    // A row outside the condition of a REPLACE WHERE (with_check_option_violation, as a view's CHECK OPTION).
    "LANCE_REPLACE_WHERE_MISMATCH" -> "44000",
    "LANCE_IO_ERROR" -> "58030",
    // The table names a base path outside the reader's allowedBasePaths.
    "LANCE_BASE_PATH_NOT_ALLOWED" -> "42501",
    // The URI's scheme has no Hadoop file system on the classpath (e.g. s3a without hadoop-aws).
    "LANCE_FILE_SYSTEM_NOT_FOUND" -> "0A000",
    // The location's storage has no atomic create-if-absent, so no version can be committed there.
    "LANCE_NO_ATOMIC_COMMIT" -> "0A000",
    // A concurrent commit won (serialization_failure, as Spark and PostgreSQL report write conflicts).
    "LANCE_COMMIT_CONFLICT" -> "40001",
    // The commit may or may not have happened (transaction_resolution_unknown).
    "LANCE_COMMIT_STATE_UNKNOWN" -> "40003",
    // Creating a table where one exists (duplicate_table).
    "LANCE_TABLE_ALREADY_EXISTS" -> "42P07")

  /** The SQLSTATE of `e`: its class's, else its family's. */
  def of(e: LanceException): String = byClass.getOrElse(e.errorClass, e match {
    case _: CorruptFileException => "XX001"
    case _: UnsupportedFeatureException => "0A000"
    case _: NotFoundException => "42704"
    case _: InvalidArgumentException => "22023"
    case _ => "58030"
  })
}
