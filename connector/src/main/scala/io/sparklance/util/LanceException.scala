package io.sparklance.util

/**
 * The one error family of spark-lance. Every user-facing failure is a [[LanceException]]
 * with a stable error class (tests and callers match on the class, never the text) and a
 * message that says what was wrong, where (path, version, field, byte offset) and what the
 * user can do. The subclasses only exist so that callers can catch a family by type.
 * The spark layer hands these to Spark as `SparkThrowable`s that keep the class and
 * carry its SQLSTATE (spark.LanceSparkException). Credentials written into a URI never
 * reach the message or the causes ([[Redaction]]).
 */
class LanceException(val errorClass: String, message: String, cause: Throwable = null)
    extends RuntimeException(s"[$errorClass] ${Redaction(message)}", Redaction.cause(cause)) {

  /** The SQLSTATE Spark reports for this error (see [[ErrorStates]]). */
  def sqlState: String = ErrorStates.of(this)

  /** The message without the leading `[CLASS] `, credentials redacted. */
  def detail: String = Redaction(message)
}

/** A file whose bytes do not follow the format: truncated, bit-flipped, inconsistent. */
final class CorruptFileException(errorClass: String, message: String, cause: Throwable = null)
    extends LanceException(errorClass, message, cause)

/** Valid input that uses a feature, version, type or encoding this reader does not handle. */
final class UnsupportedFeatureException(errorClass: String, message: String, cause: Throwable = null)
    extends LanceException(errorClass, message, cause)

/** A dataset, version, tag, branch or file that does not exist. */
final class NotFoundException(errorClass: String, message: String, cause: Throwable = null)
    extends LanceException(errorClass, message, cause)

/** A read or write option, argument or schema that is not acceptable. */
final class InvalidArgumentException(errorClass: String, message: String, cause: Throwable = null)
    extends LanceException(errorClass, message, cause)

/**
 * A commit lost to a concurrent one that Lance's conflict rules do not let it rebase onto
 * (rust/lance/src/io/commit/conflict_resolver.rs). `retryable`: running the whole write again
 * (re-reading the table) can succeed; otherwise the two changes cannot both apply. Nothing of
 * the losing commit is in the table; its data files are unreferenced.
 */
final class CommitConflictException(message: String, val retryable: Boolean, val otherVersion: Option[Long])
    extends LanceException("LANCE_COMMIT_CONFLICT", message)

/**
 * A commit whose outcome could not be established: the manifest write failed in a way that
 * leaves open whether it happened, and reading the table back did not tell. Nothing was deleted.
 */
final class CommitStateUnknownException(message: String, cause: Throwable)
    extends LanceException("LANCE_COMMIT_STATE_UNKNOWN", message, cause)

/**
 * A store's write that failed before anything of the file could become visible (its temporary
 * file could not be created or written, the folder refused it): unlike other write errors it
 * leaves no doubt that the file is absent, so a commit that meets it has definitely not happened.
 */
final class NothingWrittenException(message: String, cause: Throwable)
    extends LanceException("LANCE_IO_ERROR", message, cause)
