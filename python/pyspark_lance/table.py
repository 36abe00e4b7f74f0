"""A Python API for a Lance table: time travel, history, tags, branches, maintenance and row changes.

Every call is a SQL statement (``spark.sql``) or a DataFrame call, never py4j, so the same code
runs in classic PySpark and over Spark Connect. The statements are the ones docs/sql.md documents:
``CALL lance.system.<procedure>(table => ..., ...)``, the metadata tables ``t.history``,
``t.fragments`` and ``t.refs``, ``VERSION AS OF`` / ``TIMESTAMP AS OF``, ``DELETE``, ``UPDATE``
and ``MERGE INTO``. Names and paths go into SQL only quoted (identifiers in backticks, strings as
escaped literals), so a name or path holding quotes, backticks or spaces is taken literally.

A table given by path is reached through a :class:`LanceCatalog` the API registers under
:data:`PATH_CATALOG` (its tables are named by their paths), which serves the metadata tables and
row-level changes by path as well.
"""

from __future__ import annotations

import datetime as _dt
import os
import uuid
from dataclasses import dataclass
from typing import Any, Mapping

from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql.types import StructType

from .progress import optional as _optional_progress
from .errors import LanceInvalidArgumentError, LanceNotFoundError, _condition, translated

__all__ = ["LanceTable", "LanceMergeBuilder", "Tags", "Branches", "PATH_CATALOG", "quote_identifier", "quote_string"]

#: The catalog through which tables given by path are named in SQL (a LanceCatalog).
PATH_CATALOG = "spark_lance_paths"
_LANCE_CATALOG = "io.sparklance.spark.catalog.LanceCatalog"
# The catalog of procedures pyspark_lance.configure registers.
_PROCEDURES = "lance.system"


def quote_identifier(part: str) -> str:
    """One SQL identifier part in backticks (a backtick inside doubled), taken literally by Spark."""
    if not isinstance(part, str) or not part:
        raise LanceInvalidArgumentError(f"an identifier must be a non-empty string, not {part!r}")
    return "`" + part.replace("`", "``") + "`"


def quote_string(value: str) -> str:
    """A SQL string literal of ``value``: Spark's literals treat ``\\`` as an escape, so it and ``'`` are escaped."""
    if not isinstance(value, str):
        raise LanceInvalidArgumentError(f"expected a string, not {type(value).__name__} {value!r}")
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _split_name(name: str) -> list[str]:
    """The parts of a multipart table name: ``db.t``, ```` `my db`.`t.x` ```` (backticks quote, ```` `` ```` is one)."""
    if not isinstance(name, str) or not name.strip():
        raise LanceInvalidArgumentError(f"a table name must be a non-empty string, not {name!r}")
    parts: list[str] = []
    current, quoted, i, closed = "", False, 0, False
    while i < len(name):
        ch = name[i]
        if quoted:
            if ch == "`":
                if i + 1 < len(name) and name[i + 1] == "`":
                    current += "`"
                    i += 1
                else:
                    quoted, closed = False, True
            else:
                current += ch
        elif ch == "`" and not current:
            quoted = True
        elif ch == ".":
            if not current:
                raise LanceInvalidArgumentError(f"table name {name!r} has an empty part")
            parts.append(current)
            current, closed = "", False
        elif closed or ch == "`" or ch.isspace():
            raise LanceInvalidArgumentError(
                f"table name {name!r}: quote a part holding {ch!r} in backticks, e.g. `my table`")
        else:
            current += ch
        i += 1
    if quoted or not current:
        raise LanceInvalidArgumentError(f"table name {name!r} is not a valid name (unclosed backtick or empty part)")
    parts.append(current)
    return parts


def _literal(value: Any) -> str:
    """A SQL literal for a procedure argument or a condition's constant."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value}L"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return quote_string(value)
    if isinstance(value, _dt.datetime):
        return f"TIMESTAMP {quote_string(value.isoformat(sep=' '))}"
    if isinstance(value, Mapping):
        items = ", ".join(f"{_literal(k)}, {_literal(v)}" for k, v in value.items())
        return f"map({items})"
    raise LanceInvalidArgumentError(f"cannot pass {type(value).__name__} {value!r} to SQL")


def _version(value: Any, what: str = "version") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise LanceInvalidArgumentError(f"{what} must be a non-negative int, not {value!r}")
    return value


def _expr(value: Any, what: str) -> str:
    """A SQL expression the caller wrote (a condition or an assignment): it is SQL by design."""
    if not isinstance(value, str) or not value.strip():
        raise LanceInvalidArgumentError(f"{what} must be a SQL expression string, not {value!r}")
    return value


@dataclass(frozen=True)
class _Ref:
    """How SQL names the table (``sql``) and what a procedure's ``table`` argument gets (``arg``)."""
    sql: str
    arg: str
    display: str


class LanceTable:
    """A Lance table, by path (:meth:`for_path`) or by name in a catalog (:meth:`for_name`)."""

    def __init__(self, spark: SparkSession, ref: _Ref) -> None:
        self._spark = spark
        self._ref = ref

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def for_path(cls, spark: SparkSession, uri: str) -> "LanceTable":
        """The table at ``uri`` (a local folder, ``file:``, ``s3a://``, ``hdfs://``...). A relative
        local path is made absolute on the client. Raises :class:`LanceNotFoundError` when no Lance
        table is there."""
        if not isinstance(uri, str) or not uri.strip():
            raise LanceInvalidArgumentError(f"uri must be a non-empty string, not {uri!r}")
        if "://" not in uri and not uri.startswith("file:"):
            uri = os.path.abspath(uri)
        uri = uri.rstrip("/") or uri
        if spark.conf.get(f"spark.sql.catalog.{PATH_CATALOG}", None) is None:
            spark.conf.set(f"spark.sql.catalog.{PATH_CATALOG}", _LANCE_CATALOG)
            # Paths name their own folders; the warehouse holds nothing but must be given.
            spark.conf.set(f"spark.sql.catalog.{PATH_CATALOG}.warehouse", os.path.dirname(uri) or uri)
        with translated():
            # Opening the path by the data source says LANCE_DATASET_NOT_FOUND when no table is
            # there (the catalog would only say it finds no such name).
            spark.read.format("lance").load(uri).schema
        return cls(spark, _Ref(f"{PATH_CATALOG}.{quote_identifier(uri)}", uri, uri))

    @classmethod
    def for_name(cls, spark: SparkSession, name: str) -> "LanceTable":
        """The table ``name`` as the session resolves it (``t``, ``db.t``, ``catalog.db.t``;
        parts quoted with backticks may hold any character)."""
        quoted = ".".join(quote_identifier(p) for p in _split_name(name))
        table = cls(spark, _Ref(quoted, quoted, name))
        try:
            with translated():
                spark.sql(f"SELECT * FROM {quoted}").schema
        except Exception as error:
            # Spark's own error names the table among suggestions and a stack trace: say it plainly.
            if _condition(error) == "TABLE_OR_VIEW_NOT_FOUND":
                raise LanceNotFoundError(f"no table {name!r} in the session's catalogs (for a table by path, use "
                                         "LanceTable.for_path)", "TABLE_OR_VIEW_NOT_FOUND") from error
            raise
        table.version
        return table

    def __repr__(self) -> str:
        return f"LanceTable({self._ref.display!r})"

    # -- running SQL ---------------------------------------------------------------------------

    def _sql(self, statement: str) -> DataFrame:
        with translated():
            return self._spark.sql(statement)

    def _collect(self, statement: str) -> list[Row]:
        with translated():
            return self._spark.sql(statement).collect()

    def _call(self, procedure: str, **args: Any) -> list[Row]:
        given = {"table": self._ref.arg, **{k: v for k, v in args.items() if v is not None}}
        rendered = ", ".join(f"{k} => {_literal(v)}" for k, v in given.items())
        return self._collect(f"CALL {_PROCEDURES}.{procedure}({rendered})")

    def _below(self, suffix: str) -> str:
        return f"{self._ref.sql}.{quote_identifier(suffix)}"

    # -- reading -------------------------------------------------------------------------------

    def to_df(self, version: int | None = None, tag: str | None = None, branch: str | None = None,
              timestamp: str | _dt.datetime | None = None) -> DataFrame:
        """The table's rows: the latest version of the main line, or of ``branch``, or the given
        ``version`` (of ``branch``, or of the main line), ``tag``, or the version as of
        ``timestamp`` (a datetime, or a string Spark reads as a timestamp in the session time zone).
        At most one of ``version``, ``tag`` and ``timestamp``."""
        if sum(x is not None for x in (version, tag, timestamp)) > 1:
            raise LanceInvalidArgumentError("give at most one of version, tag and timestamp")
        if tag is not None and branch is not None:
            raise LanceInvalidArgumentError("a tag names its own branch: give tag or branch, not both")
        source = self._below(f"branch_{branch}") if branch is not None else self._ref.sql
        if version is not None:
            source += f" VERSION AS OF {_version(version)}"
        elif tag is not None:
            source += f" VERSION AS OF {quote_string(tag)}"
        elif timestamp is not None:
            if isinstance(timestamp, _dt.datetime):
                source += f" TIMESTAMP AS OF {_literal(timestamp)}"
            else:
                source += f" TIMESTAMP AS OF {quote_string(timestamp)}"
        df = self._sql(f"SELECT * FROM {source}")
        with translated():
            df.schema  # analysis errors (a missing version or branch) surface here, in both modes
        return df

    @property
    def version(self) -> int:
        """The latest version of the main line."""
        return int(self._collect(f"SELECT max(version) AS v FROM {self._below('history')}")[0]["v"])

    @property
    def schema(self) -> StructType:
        """The latest version's schema, as Spark reads it."""
        return self.to_df().schema

    def history(self) -> DataFrame:
        """One row per version of the main line, oldest first: ``version``, ``timestamp``,
        ``operation``, ``read_version``, ``rows``, ``rows_added``, ``rows_removed``,
        ``fragments``, ``transaction_properties``, ``tags``, ``writer``."""
        return self._sql(f"SELECT * FROM {self._below('history')} ORDER BY version")

    def fragments(self) -> DataFrame:
        """The latest version's fragments: ``id``, ``files``, ``physical_rows``, ``deleted_rows``,
        ``rows``, ``bytes``, ``deletion_file``."""
        return self._sql(f"SELECT * FROM {self._below('fragments')} ORDER BY id")

    def detail(self) -> dict[str, Any]:
        """A summary of the latest version: ``version``, ``rows`` (live), ``fragments``, ``files``
        (data and deletion files), ``bytes`` (of the data files), ``schema`` (a StructType),
        ``config`` (the table config, as ``SHOW TBLPROPERTIES`` lists it), ``indices`` (one dict per
        index segment: ``name``, ``uuid``, ``columns``, ``type``, ``dataset_version``, ``fragments``)."""
        agg = self._collect(
            "SELECT count(*) AS fragments, coalesce(sum(rows), 0) AS rows, "
            "coalesce(sum(size(files) + CASE WHEN deletion_file IS NULL THEN 0 ELSE 1 END), 0) AS files, "
            f"coalesce(sum(bytes), 0) AS bytes FROM {self._below('fragments')}")[0]
        config = {r["key"]: r["value"] for r in self._collect(f"SHOW TBLPROPERTIES {self._ref.sql}")}
        indices = [r.asDict() for r in self._collect(f"SELECT * FROM {self._below('indices')} ORDER BY name, uuid")]
        return {"version": self.version, "rows": int(agg["rows"]), "fragments": int(agg["fragments"]),
                "files": int(agg["files"]), "bytes": int(agg["bytes"]), "schema": self.schema, "config": config,
                "indices": indices}

    # -- refs ----------------------------------------------------------------------------------

    @property
    def tags(self) -> "Tags":
        """The table's tags: ``list()``, ``create(...)``, ``delete(...)``."""
        return Tags(self)

    @property
    def branches(self) -> "Branches":
        """The table's branches: ``list()``, ``create(...)``, ``delete(...)``."""
        return Branches(self)

    # -- maintenance ---------------------------------------------------------------------------

    def restore(self, version: int | None = None, tag: str | None = None) -> int:
        """Commits a new version whose content is that of ``version`` (or of ``tag``); returns the new version."""
        if (version is None) == (tag is None):
            raise LanceInvalidArgumentError("restore takes exactly one of version and tag")
        row = self._call("restore", version=None if version is None else _version(version), tag=tag)[0]
        return int(row["new_version"])

    def compact(self, target_rows_per_fragment: int | None = None, max_rows_per_group: int | None = None,
                materialize_deletions: bool | None = None,
                materialize_deletions_threshold: float | None = None, progress: bool = False) -> Row:
        """Rewrites small fragments (and fragments with many deleted rows) into larger ones, as
        pylance's ``compact_files``; arguments default as there. Returns the procedure's row:
        ``fragments_removed``, ``fragments_added``, ``files_removed``, ``files_added``, ``rows``, ``version``.
        ``progress=True`` shows a progress bar of its Spark jobs (:func:`pyspark_lance.progress`)."""
        with _optional_progress(self._spark, progress):
            return self._call("compact", target_rows_per_fragment=target_rows_per_fragment,
                              max_rows_per_group=max_rows_per_group, materialize_deletions=materialize_deletions,
                              materialize_deletions_threshold=None if materialize_deletions_threshold is None
                              else float(materialize_deletions_threshold))[0]

    def cleanup(self, older_than: str | _dt.datetime | _dt.timedelta | None = None,
                retain_versions: int | None = None, dry_run: bool = False, override: bool = False,
                progress: bool = False) -> Row:
        """Removes versions older than ``older_than`` (a duration such as ``'30 days'`` or a
        timedelta, or a timestamp) and the files no kept version names; see docs/sql.md's Cleanup
        section for what is kept and the 7-day floor. Returns ``versions_removed``,
        ``files_removed``, ``bytes_removed``, ``dry_run``, ``files``. ``progress=True`` shows a
        progress bar of its Spark jobs (:func:`pyspark_lance.progress`)."""
        if older_than is not None and not isinstance(older_than, (str, _dt.timedelta, _dt.datetime)):
            raise TypeError(f"older_than must be a duration string such as '30 days', a timedelta or a datetime, "
                            f"not {type(older_than).__name__} {older_than!r}")
        if retain_versions is not None:
            _version(retain_versions, "retain_versions")
        if isinstance(older_than, _dt.timedelta):
            older_than = f"{int(older_than.total_seconds())} seconds"
        elif isinstance(older_than, _dt.datetime):
            older_than = older_than.isoformat(sep=" ")
        with _optional_progress(self._spark, progress):
            return self._call("cleanup", older_than=older_than, retain_versions=retain_versions,
                              dry_run=bool(dry_run), override=bool(override))[0]

    def clone(self, target: str, version: int | None = None, tag: str | None = None,
              branch: str | None = None) -> "LanceTable":
        """A shallow clone at ``target`` (an empty or new folder) of the latest version, or of
        ``version``/``tag``/``branch``; no data file is copied. Returns the clone."""
        if not isinstance(target, str) or not target.strip():
            raise LanceInvalidArgumentError(f"target must be a non-empty path, not {target!r}")
        if "://" not in target and not target.startswith("file:"):
            target = os.path.abspath(target)
        self._call("clone", target=target, version=None if version is None else _version(version),
                   tag=tag, branch=branch)
        return LanceTable.for_path(self._spark, target)

    def add_bases(self, bases: Mapping[str, str], is_dataset_root: bool = False) -> list[Row]:
        """Adds base paths (``{name: path}``) new writes can target; returns one row per base."""
        if not isinstance(bases, Mapping) or not bases:
            raise LanceInvalidArgumentError("bases must be a non-empty dict of name to path")
        return self._call("add_bases", bases=dict(bases), is_dataset_root=bool(is_dataset_root))

    # -- row changes ---------------------------------------------------------------------------

    def delete(self, condition: str | None = None) -> None:
        """Deletes the rows matching ``condition`` (a SQL expression; None deletes every row)."""
        where = "" if condition is None else f" WHERE {_expr(condition, 'condition')}"
        self._collect(f"DELETE FROM {self._ref.sql}{where}")

    def update(self, condition: str | None = None, set: Mapping[str, str] | None = None) -> None:  # noqa: A002 - delta-spark's name
        """Sets columns (``{column: SQL expression}``) in the rows matching ``condition`` (None: all rows)."""
        if not set:
            raise LanceInvalidArgumentError("update needs set={column: expression}")
        assignments = ", ".join(f"{quote_identifier(c)} = {_expr(e, f'set[{c!r}]')}" for c, e in set.items())
        where = "" if condition is None else f" WHERE {_expr(condition, 'condition')}"
        self._collect(f"UPDATE {self._ref.sql} SET {assignments}{where}")

    def merge(self, source: DataFrame, condition: str, source_alias: str = "source",
              target_alias: str = "target") -> "LanceMergeBuilder":
        """Starts a MERGE of ``source`` into this table on ``condition`` (naming the two sides by
        ``target_alias`` and ``source_alias``); add clauses, then ``execute()``."""
        if not isinstance(source, DataFrame):
            raise TypeError(f"the merge source must be a DataFrame, not {type(source).__name__}; "
                            "e.g. spark.createDataFrame(rows, schema)")
        return LanceMergeBuilder(self, source, _expr(condition, "condition"), source_alias, target_alias)


class Tags:
    """The tags of a table (Lance's ``_refs/tags``)."""

    def __init__(self, table: LanceTable) -> None:
        self._table = table

    def list(self) -> dict[str, int]:
        """Every tag's name and version."""
        rows = self._table._collect(f"SELECT name, version FROM {self._table._below('refs')} WHERE type = 'tag'")
        return {r["name"]: int(r["version"]) for r in rows}

    def create(self, tag: str, version: int | None = None, branch: str | None = None, replace: bool = False) -> int:
        """Tags ``version`` (None: the latest) of ``branch`` (None: the main line); ``replace`` moves
        an existing tag. Returns the tagged version. :class:`LanceAlreadyExistsError` when taken."""
        row = self._table._call("create_tag", tag=tag, version=None if version is None else _version(version),
                                branch=branch, replace=bool(replace))[0]
        return int(row["version"])

    def delete(self, tag: str) -> None:
        """Deletes the tag (the version stays)."""
        self._table._call("delete_tag", tag=tag)


class Branches:
    """The branches of a table (Lance's ``_refs/branches`` and ``tree/``)."""

    def __init__(self, table: LanceTable) -> None:
        self._table = table

    def list(self) -> dict[str, dict[str, Any]]:
        """Every branch's name, with ``parent_branch`` (None: the main line) and ``parent_version``."""
        rows = self._table._collect(
            f"SELECT name, version, branch FROM {self._table._below('refs')} WHERE type = 'branch'")
        return {r["name"]: {"parent_branch": r["branch"], "parent_version": int(r["version"])} for r in rows}

    def create(self, branch: str, version: int | None = None, from_branch: str | None = None,
               tag: str | None = None) -> int:
        """Creates ``branch`` from ``version`` (None: the latest) of ``from_branch`` (None: the
        main line), or from ``tag``. Returns the branch's first version."""
        row = self._table._call("create_branch", branch=branch,
                                version=None if version is None else _version(version),
                                from_branch=from_branch, tag=tag)[0]
        return int(row["version"])

    def delete(self, branch: str) -> None:
        """Deletes the branch and its versions (refused while a branch or tag depends on it)."""
        self._table._call("delete_branch", branch=branch)


class LanceMergeBuilder:
    """Clauses of a MERGE, in delta-spark's style::

        (table.merge(updates, "target.id = source.id")
              .whenMatchedUpdate(set={"name": "source.name"})
              .whenNotMatchedInsertAll()
              .execute())

    The source DataFrame is registered as a temporary view for the statement (dropped after),
    which works over Spark Connect as in classic PySpark.
    """

    def __init__(self, table: LanceTable, source: DataFrame, condition: str, source_alias: str,
                 target_alias: str) -> None:
        self._table, self._source, self._condition = table, source, condition
        self._source_alias, self._target_alias = source_alias, target_alias
        self._clauses: list[str] = []

    def _add(self, clause: str) -> "LanceMergeBuilder":
        self._clauses.append(clause)
        return self

    @staticmethod
    def _and(condition: str | None) -> str:
        return "" if condition is None else f" AND {_expr(condition, 'condition')}"

    @staticmethod
    def _set(values: Mapping[str, str]) -> str:
        if not values:
            raise LanceInvalidArgumentError("give the columns to set: {column: SQL expression}")
        return ", ".join(f"{quote_identifier(c)} = {_expr(e, f'set[{c!r}]')}" for c, e in values.items())

    def whenMatchedUpdate(self, set: Mapping[str, str], condition: str | None = None) -> "LanceMergeBuilder":  # noqa: N802, A002
        """Matched rows (and ``condition``): set the columns to the expressions."""
        return self._add(f"WHEN MATCHED{self._and(condition)} THEN UPDATE SET {self._set(set)}")

    def whenMatchedUpdateAll(self, condition: str | None = None) -> "LanceMergeBuilder":  # noqa: N802
        """Matched rows (and ``condition``): every column from the source's column of that name."""
        return self._add(f"WHEN MATCHED{self._and(condition)} THEN UPDATE SET *")

    def whenMatchedDelete(self, condition: str | None = None) -> "LanceMergeBuilder":  # noqa: N802
        """Matched rows (and ``condition``): delete them."""
        return self._add(f"WHEN MATCHED{self._and(condition)} THEN DELETE")

    def whenNotMatchedInsert(self, values: Mapping[str, str], condition: str | None = None) -> "LanceMergeBuilder":  # noqa: N802
        """Source rows matching no target row (and ``condition``): insert ``{column: expression}``."""
        if not values:
            raise LanceInvalidArgumentError("give the values to insert: {column: SQL expression}")
        columns = ", ".join(quote_identifier(c) for c in values)
        exprs = ", ".join(_expr(e, f"values[{c!r}]") for c, e in values.items())
        return self._add(f"WHEN NOT MATCHED{self._and(condition)} THEN INSERT ({columns}) VALUES ({exprs})")

    def whenNotMatchedInsertAll(self, condition: str | None = None) -> "LanceMergeBuilder":  # noqa: N802
        """Source rows matching no target row (and ``condition``): insert them whole."""
        return self._add(f"WHEN NOT MATCHED{self._and(condition)} THEN INSERT *")

    def whenNotMatchedBySourceUpdate(self, set: Mapping[str, str], condition: str | None = None) -> "LanceMergeBuilder":  # noqa: N802, A002
        """Target rows no source row matches (and ``condition``): set the columns."""
        return self._add(f"WHEN NOT MATCHED BY SOURCE{self._and(condition)} THEN UPDATE SET {self._set(set)}")

    def whenNotMatchedBySourceDelete(self, condition: str | None = None) -> "LanceMergeBuilder":  # noqa: N802
        """Target rows no source row matches (and ``condition``): delete them."""
        return self._add(f"WHEN NOT MATCHED BY SOURCE{self._and(condition)} THEN DELETE")

    def execute(self) -> None:
        """Runs the MERGE: one Lance commit, or none when no row changes."""
        if not self._clauses:
            raise LanceInvalidArgumentError("a merge needs at least one when... clause")
        view = f"lance_merge_source_{uuid.uuid4().hex}"
        with translated():
            self._source.createOrReplaceTempView(view)
        try:
            self._table._collect(
                f"MERGE INTO {self._table._ref.sql} AS {quote_identifier(self._target_alias)} "
                f"USING {quote_identifier(view)} AS {quote_identifier(self._source_alias)} "
                f"ON {self._condition} " + " ".join(self._clauses))
        finally:
            self._table._spark.catalog.dropTempView(view)
