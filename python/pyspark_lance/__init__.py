"""PySpark helpers for spark-lance, a pure-JVM Lance connector for Spark.

The package carries the connector jar and adds it to a session builder, with the session
catalog that knows Lance tables; everything else is plain Spark:
``spark.read.format("lance").load(uri)``, ``CREATE TABLE t (...) USING lance``.
"""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession

__all__ = ["configure", "jar_path", "SESSION_CATALOG", "PROCEDURE_CATALOG"]

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
    existing = builder._options.get("spark.jars")  # noqa: SLF001 - the builder keeps its options there
    jars = jar_path() if not existing else f"{existing},{jar_path()}"
    builder = builder.config("spark.jars", jars)
    if "spark.sql.catalog.spark_catalog" not in builder._options:  # noqa: SLF001
        builder = builder.config("spark.sql.catalog.spark_catalog", SESSION_CATALOG)
    if "spark.sql.catalog.lance" not in builder._options:  # noqa: SLF001
        builder = builder.config("spark.sql.catalog.lance", PROCEDURE_CATALOG)
    return builder
