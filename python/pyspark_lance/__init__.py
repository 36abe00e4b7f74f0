"""PySpark helpers for spark-lance, a pure-JVM Lance connector for Spark.

The package carries the connector jar and adds it to a session builder; everything else
is plain Spark: ``spark.read.format("lance").load(uri)``.
"""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession

__all__ = ["configure", "jar_path"]


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
    """Adds the connector jar to ``builder`` (before ``getOrCreate()``).

    Any jars already set with ``spark.jars`` are kept.
    """
    if not isinstance(builder, SparkSession.Builder):
        raise TypeError(
            "configure() takes a SparkSession.Builder, e.g. "
            "pyspark_lance.configure(SparkSession.builder).getOrCreate()"
        )
    existing = builder._options.get("spark.jars")  # noqa: SLF001 - the builder keeps its options there
    jars = jar_path() if not existing else f"{existing},{jar_path()}"
    return builder.config("spark.jars", jars)
