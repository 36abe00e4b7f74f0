"""Python exceptions for spark-lance's error classes, the same in classic PySpark and over Spark Connect.

The connector raises every error as a Spark error with a condition (error class) such as
``LANCE_REF_ALREADY_EXISTS``. PySpark delivers it as one of its own exceptions in both modes
(``pyspark.errors.exceptions.captured.*`` in classic, ``pyspark.errors.exceptions.connect.*``
over Connect), both with ``getCondition()``. The table API (:mod:`pyspark_lance.table`) turns
those whose condition starts with ``LANCE_`` into a :class:`LanceError` subclass, so that a user
catches ``LanceNotFoundError`` rather than comparing strings; the pyspark exception stays as
``__cause__``. Spark's own errors (a SQL syntax error, ``MERGE_CARDINALITY_VIOLATION``) pass
through unchanged: catch ``pyspark.errors.PySparkException`` and read ``getCondition()``.
"""

from __future__ import annotations

import contextlib
import re
from typing import Iterator

__all__ = [
    "LanceError", "LanceNotFoundError", "LanceAlreadyExistsError", "LanceInvalidArgumentError",
    "LanceConflictError", "LanceCommitStateUnknownError", "LanceSchemaError", "LanceUnsupportedError",
    "LanceStorageError", "from_pyspark", "translated",
]


class LanceError(Exception):
    """An error of the connector: ``condition`` is its error class (``LANCE_...``), ``message``
    what went wrong and what to do (Spark's message without the JVM stack trace)."""

    def __init__(self, message: str, condition: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.condition = condition

    def getCondition(self) -> str | None:  # noqa: N802 - pyspark's name, so code that handles both reads one method
        """The error class, as pyspark's exceptions name it."""
        return self.condition


class LanceNotFoundError(LanceError):
    """A table, version, tag, branch or file that does not exist."""


class LanceAlreadyExistsError(LanceError):
    """A tag, branch or table that already exists (another writer may have just created it)."""


class LanceInvalidArgumentError(LanceError, ValueError):
    """An argument, option or name the connector refuses; nothing was changed."""


class LanceConflictError(LanceError):
    """A commit that conflicts with one committed meanwhile, or a ref still in use; nothing was
    committed. A ``LANCE_COMMIT_CONFLICT`` is retryable: run the operation again."""


class LanceCommitStateUnknownError(LanceError):
    """The store did not say whether the commit happened: read the table to find out before retrying."""


class LanceSchemaError(LanceError):
    """Data that does not fit the table's schema (types, nulls, vector sizes, value ranges)."""


class LanceUnsupportedError(LanceError):
    """A feature, encoding or file version the connector does not support (yet)."""


class LanceStorageError(LanceError):
    """The store failed or holds a file that cannot be read."""


# Each condition's class; a LANCE_ condition missing here is still a LanceError.
_CLASSES: dict[str, type[LanceError]] = {
    "LANCE_DATASET_NOT_FOUND": LanceNotFoundError,
    "LANCE_VERSION_NOT_FOUND": LanceNotFoundError,
    "LANCE_REF_NOT_FOUND": LanceNotFoundError,
    "LANCE_FILE_NOT_FOUND": LanceNotFoundError,
    "LANCE_FILE_SYSTEM_NOT_FOUND": LanceNotFoundError,
    "LANCE_REF_ALREADY_EXISTS": LanceAlreadyExistsError,
    "LANCE_TABLE_ALREADY_EXISTS": LanceAlreadyExistsError,
    "LANCE_INVALID_ARGUMENT": LanceInvalidArgumentError,
    "LANCE_INVALID_OPTION": LanceInvalidArgumentError,
    "LANCE_INVALID_NAME": LanceInvalidArgumentError,
    "LANCE_BASE_PATH_NOT_ALLOWED": LanceInvalidArgumentError,
    "LANCE_COMMIT_CONFLICT": LanceConflictError,
    "LANCE_REF_IN_USE": LanceConflictError,
    "LANCE_COMMIT_STATE_UNKNOWN": LanceCommitStateUnknownError,
    "LANCE_SCHEMA_MISMATCH": LanceSchemaError,
    "LANCE_COLUMN_TYPE_MISMATCH": LanceSchemaError,
    "LANCE_NULL_IN_NON_NULLABLE_COLUMN": LanceSchemaError,
    "LANCE_VECTOR_DIMENSION_MISMATCH": LanceSchemaError,
    "LANCE_VALUE_OUT_OF_RANGE": LanceSchemaError,
    "LANCE_REPLACE_WHERE_MISMATCH": LanceSchemaError,
    "LANCE_INVALID_COLUMN_METADATA": LanceSchemaError,
    "LANCE_UNSUPPORTED_FEATURE": LanceUnsupportedError,
    "LANCE_UNSUPPORTED_ENCODING": LanceUnsupportedError,
    "LANCE_UNSUPPORTED_FILE_VERSION": LanceUnsupportedError,
    "LANCE_NO_ATOMIC_COMMIT": LanceUnsupportedError,
    "LANCE_IO_ERROR": LanceStorageError,
    "LANCE_CORRUPT_FILE": LanceStorageError,
}


def _condition(error: BaseException) -> str | None:
    # pyspark 4 names it the condition, 3.5 the error class. Spark 3.5 also wraps an error that failed
    # a task in its job failure ("Job aborted due to stage failure: ... [LANCE_...] ..."), which
    # reaches Python without a class: the Lance class it names is the one that failed the job.
    for name in ("getCondition", "getErrorClass"):
        get = getattr(error, name, None)
        try:
            found = get() if callable(get) else None
        except Exception:  # noqa: BLE001 - an exception without a condition has none
            found = None
        if found:
            return found
    text = str(error)
    if "Job aborted due to stage failure" in text:
        named = re.search(r"\[(LANCE_[A-Z_]+)\]", text)
        return named.group(1) if named else None
    return None


def _message(error: BaseException) -> str:
    # Over Connect the text ends with the server's JVM stack trace: the user needs the first part.
    text = str(error)
    return text.split("\n\nJVM stacktrace:", 1)[0].strip()


def from_pyspark(error: BaseException) -> LanceError | None:
    """The :class:`LanceError` for a pyspark exception carrying a ``LANCE_`` condition, else None."""
    condition = _condition(error)
    if not condition or not condition.startswith("LANCE_"):
        return None
    return _CLASSES.get(condition, LanceError)(_message(error), condition)


@contextlib.contextmanager
def translated() -> Iterator[None]:
    """Raises the :class:`LanceError` of a pyspark exception raised inside (with it as the cause)."""
    try:
        yield
    except LanceError:
        raise
    except Exception as error:  # noqa: BLE001 - only Lance conditions are translated, the rest re-raised as is
        lance = from_pyspark(error)
        if lance is None:
            raise
        raise lance from error
