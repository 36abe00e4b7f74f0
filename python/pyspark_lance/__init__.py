"""PySpark helpers for spark-lance, a pure-JVM Lance connector for Spark.

The package carries the connector jar and adds it to a session builder, with the session
catalog that knows Lance tables and the catalog of Lance procedures; everything else is plain
Spark: ``spark.read.format("lance").load(uri)``, ``CREATE TABLE t (...) USING lance``,
``CALL lance.system.compact(table => 'db.t')``.
"""

from __future__ import annotations

import functools
import warnings
import zipfile
from pathlib import Path

import pyspark
from pyspark.sql import SparkSession

from .errors import LanceError
from .progress import progress
from .table import LanceTable

__all__ = ["configure", "session", "jar_path", "jar_info", "__version__", "SESSION_CATALOG", "PROCEDURE_CATALOG",
           "LanceTable", "LanceError", "progress"]

#: The session catalog that creates, replaces and time-travels Lance tables by name, and hands
#: every other table to Spark's built-in catalog.
SESSION_CATALOG = "io.sparklance.spark.catalog.LanceSessionCatalog"

#: The catalog registered as ``lance``: it holds only the Lance procedures, so that
#: ``CALL lance.system.<name>(table => 'db.t' or a path, ...)`` works whatever the session's
#: catalogs are.
PROCEDURE_CATALOG = "io.sparklance.spark.procedures.LanceProcedureCatalog"


def jar_path() -> str:
    """Absolute path of the bundled connector jar.

    Raises FileNotFoundError when the package was installed from a source tree without
    the jar (build it with ``make jar`` in the repository).
    """
    jar = Path(__file__).resolve().parent / "jars" / "spark-lance.jar"
    if not jar.is_file():
        raise FileNotFoundError(
            f"the spark-lance jar is missing at {jar}; run `make jar` in the spark-lance "
            "repository (or install a built pyspark-lance package)"
        )
    return str(jar)


@functools.lru_cache(maxsize=1)
def jar_info() -> dict[str, str]:
    """What the bundled jar says of itself: ``version``, and the ``spark`` and ``scala`` versions it was built for."""
    with zipfile.ZipFile(jar_path()) as z:
        props = z.read("io/sparklance/version.properties").decode("utf-8")
    return dict(line.split("=", 1) for line in props.splitlines() if "=" in line)


def _spark_line(version: str) -> str:
    return ".".join(version.split(".")[:2])


def _check_spark_line() -> None:
    """Fails when the installed pyspark is not of the Spark line (major.minor) the jar was built for."""
    built_for = jar_info().get("spark", "")
    if _spark_line(built_for) != _spark_line(pyspark.__version__):
        raise RuntimeError(
            f"the spark-lance jar {jar_info().get('version')} is built for Spark {_spark_line(built_for)} "
            f"(Scala {jar_info().get('scala')}) but the installed pyspark is {pyspark.__version__}; install "
            f"pyspark {_spark_line(built_for)}.x, or a pyspark-lance built for Spark {_spark_line(pyspark.__version__)}"
        )


def configure(builder: SparkSession.Builder) -> SparkSession.Builder:
    """Adds the connector jar and its session catalog to ``builder`` (before ``getOrCreate()``).

    Any jars already set with ``spark.jars`` are kept. The session catalog
    (``spark.sql.catalog.spark_catalog``) is set unless the builder already names one: a session
    that also uses Delta or Iceberg's session catalog keeps it, and Lance tables are then read
    and written through the DataFrame API or a ``LanceCatalog``. The procedure catalog
    ``lance`` is registered unless the builder already names a catalog ``lance``.
    """
    if not isinstance(builder, SparkSession.Builder):
        raise TypeError(
            "configure() takes a SparkSession.Builder, e.g. "
            "pyspark_lance.configure(SparkSession.builder).getOrCreate()"
        )
    _check_spark_line()
    if SparkSession.getActiveSession() is not None:
        warnings.warn(
            "a SparkSession is already running in this process: getOrCreate() will return it, and the jar and "
            "catalogs configure() sets do not apply to it. Call configure() before the first session starts "
            "(or stop the running one first).",
            stacklevel=2,
        )
    existing = builder._options.get("spark.jars")  # noqa: SLF001 - the builder keeps its options there
    jars = jar_path() if not existing else f"{existing},{jar_path()}"
    builder = builder.config("spark.jars", jars)
    if "spark.sql.catalog.spark_catalog" not in builder._options:  # noqa: SLF001
        builder = builder.config("spark.sql.catalog.spark_catalog", SESSION_CATALOG)
    if "spark.sql.catalog.lance" not in builder._options:  # noqa: SLF001
        builder = builder.config("spark.sql.catalog.lance", PROCEDURE_CATALOG)
    return builder


def session(app_name: str = "spark-lance", master: str = "local[*]", conf: dict[str, str] | None = None,
            **more_conf: str) -> SparkSession:
    """A local SparkSession with the connector, for notebooks and scripts on one machine.

    ``conf`` (or keyword arguments, for keys that are Python names) adds Spark settings, e.g.
    ``pyspark_lance.session(conf={"spark.driver.memory": "4g"})``. On a cluster, configure the
    builder your platform gives instead: ``pyspark_lance.configure(SparkSession.builder)``.
    """
    builder = SparkSession.builder.appName(app_name).master(master)
    for key, value in {**(conf or {}), **more_conf}.items():
        builder = builder.config(key, value)
    return configure(builder).getOrCreate()


def __getattr__(name: str) -> str:
    # The package's version is its jar's, read when asked for (a source tree may not have the jar yet).
    if name == "__version__":
        return jar_info()["version"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
