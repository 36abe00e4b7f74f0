"""PySpark helpers for spark-lance, a pure-JVM Lance connector for Spark.

The package carries the connector jar and adds it to a session builder, with the session
catalog that knows Lance tables and the catalog of Lance procedures; everything else is plain
Spark: ``spark.read.format("lance").load(uri)``, ``CREATE TABLE t (...) USING lance``,
``CALL lance.system.compact(table => 'db.t')``.
"""

from __future__ import annotations

import functools
import os
import re
import warnings
import zipfile
from pathlib import Path

import pyspark
from pyspark.sql import SparkSession

from .errors import LanceError
from .progress import progress
from .table import LanceTable

__all__ = ["configure", "session", "jar_path", "jar_info", "carried_jars", "pyspark_scala", "__version__", "SESSION_CATALOG", "PROCEDURE_CATALOG",
           "LanceTable", "LanceError", "progress"]

#: The session catalog that creates, replaces and time-travels Lance tables by name, and hands
#: every other table to Spark's built-in catalog.
SESSION_CATALOG = "io.sparklance.spark.catalog.LanceSessionCatalog"

#: The catalog registered as ``lance``: it holds only the Lance procedures, so that
#: ``CALL lance.system.<name>(table => 'db.t' or a path, ...)`` works whatever the session's
#: catalogs are.
PROCEDURE_CATALOG = "io.sparklance.spark.procedures.LanceProcedureCatalog"

#: The connector's SQL extensions (its planner rules; on Spark 3.5 also the CALL statement).
_EXTENSIONS = "io.sparklance.spark.LanceExtensions"


#: Where the package keeps its jars: one per Spark line and Scala binary, ``spark-lance-4.1_2.13.jar``.
_JAR_DIR = Path(__file__).resolve().parent / "jars"
_JAR_NAME = re.compile(r"spark-lance-(\d+\.\d+)_(\d+\.\d+)\.jar")


def _spark_line(version: str) -> str:
    return ".".join(version.split(".")[:2])


def carried_jars() -> dict[str, str]:
    """The connector jars this package carries, by Spark line and Scala binary: ``{"4.1_2.13": "/.../spark-lance-4.1_2.13.jar"}``.

    A release wheel carries one for every line it supports; a source checkout carries the lines built
    there (``make jar SPARK_LINE=4.1``, or ``make jars`` for all).
    """
    found = {f"{m[1]}_{m[2]}": str(jar) for jar in sorted(_JAR_DIR.glob("spark-lance-*.jar"))
             if (m := _JAR_NAME.fullmatch(jar.name))}
    return dict(sorted(found.items(), key=lambda kv: tuple(int(x) for x in re.split(r"[._]", kv[0]))))


def pyspark_scala() -> str | None:
    """The Scala binary (``2.12``, ``2.13``) of the installed Spark, from the ``scala-library`` jar among its jars;
    None when there is none to read (a pyspark without its jars)."""
    homes = [os.environ.get("SPARK_HOME"), os.path.dirname(pyspark.__file__)]
    for home in filter(None, homes):
        for lib in sorted(Path(home, "jars").glob("scala-library-*.jar")):
            if m := re.fullmatch(r"scala-library-(\d+\.\d+)\.\d+.*\.jar", lib.name):
                return m[1]
    return None


def jar_path() -> str:
    """Absolute path of the carried connector jar for the installed pyspark: its Spark line (major.minor)
    and its Scala binary.

    Raises FileNotFoundError when the package carries no jar at all (a source tree where none was
    built: ``make jar``), and RuntimeError when it carries none for this pyspark, naming the installed
    pyspark, its Scala and the lines carried.
    """
    carried = carried_jars()
    if not carried:
        raise FileNotFoundError(
            f"no spark-lance jar in {_JAR_DIR}; run `make jar` (the jar for Spark 4.2, or `make jar SPARK_LINE=4.1` "
            "for another line) in the spark-lance repository, or install a built pyspark-lance package"
        )
    line, scala = _spark_line(pyspark.__version__), pyspark_scala()
    of_line = {key: jar for key, jar in carried.items() if key.startswith(f"{line}_")}
    if scala is not None and f"{line}_{scala}" in of_line:
        return of_line[f"{line}_{scala}"]
    if scala is None and len(of_line) == 1:
        # No scala-library jar to read (an unusual install): a line built for one Scala only is unambiguous.
        return next(iter(of_line.values()))
    lines = ", ".join(f"Spark {key.replace('_', ' (Scala ')})" for key in carried)
    if scala is None:
        problem = (f"Spark {line} is carried for more than one Scala and no scala-library jar was found under SPARK_HOME "
                   f"or pyspark's jars to choose; set SPARK_HOME to the Spark installation pyspark runs")
    else:
        build = f"make jar SPARK_LINE={line}" + ("" if scala == "2.13" else f" SCALA_BINARY={scala}")
        newest = next(reversed(carried)).split("_")[0]
        problem = (f"install a pyspark of a carried line (e.g. pip install 'pyspark=={newest}.*'), "
                   f"or a pyspark-lance that carries Spark {line} for Scala {scala} (a source checkout builds a line "
                   f"its build supports with `{build}`)")
    raise RuntimeError(
        f"pyspark-lance has no jar for the installed pyspark {pyspark.__version__} (Scala {scala or 'unknown'}): "
        f"it carries {lines}; {problem}"
    )


def jar_info() -> dict[str, str]:
    """What the jar :func:`jar_path` chooses says of itself: ``version``, and the ``spark``, ``scala``, ``java``,
    ``hadoop`` and ``awsSdk`` versions it was built for."""
    return dict(_read_info(jar_path()))


@functools.lru_cache(maxsize=None)
def _read_info(jar: str) -> dict[str, str]:
    with zipfile.ZipFile(jar) as z:
        props = z.read("io/sparklance/version.properties").decode("utf-8")
    return dict(line.split("=", 1) for line in props.splitlines() if "=" in line)


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
    jar = jar_path()  # raises when the package carries no jar for this pyspark
    if SparkSession.getActiveSession() is not None:
        warnings.warn(
            "a SparkSession is already running in this process: getOrCreate() will return it, and the jar and "
            "catalogs configure() sets do not apply to it. Call configure() before the first session starts "
            "(or stop the running one first).",
            stacklevel=2,
        )
    existing = builder._options.get("spark.jars")  # noqa: SLF001 - the builder keeps its options there
    jars = jar if not existing else f"{existing},{jar}"
    builder = builder.config("spark.jars", jars)
    if "spark.sql.catalog.spark_catalog" not in builder._options:  # noqa: SLF001
        builder = builder.config("spark.sql.catalog.spark_catalog", SESSION_CATALOG)
    if "spark.sql.catalog.lance" not in builder._options:  # noqa: SLF001
        builder = builder.config("spark.sql.catalog.lance", PROCEDURE_CATALOG)
    # A session pyspark 3.5 starts applies only the extensions spark.sql.extensions names, not those
    # the jar registers (Spark 4 applies both): name ours, whose parser gives 3.5 its CALL statement.
    if _spark_line(pyspark.__version__) == "3.5":
        named = [e for e in builder._options.get("spark.sql.extensions", "").split(",") if e.strip()]  # noqa: SLF001
        if _EXTENSIONS not in named:
            builder = builder.config("spark.sql.extensions", ",".join(named + [_EXTENSIONS]))
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
