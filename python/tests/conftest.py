"""Shared fixtures: one local SparkSession with the connector jar, and the golden datasets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyspark
import pytest
from pyspark.sql import SparkSession

import pyspark_lance
from pyspark_lance.connect_server import missing_server
from s3_server import Endpoint, S3Server
from sessions import make_session

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(os.environ.get("SPARK_LANCE_GOLDEN", REPO / "target" / "golden"))

# The cross-line subset (`pytest -m lines`; `make test-python-line SPARK_LINE=4.1` runs it with that
# line's pyspark and jar): golden reads judged by pylance, writes read back by pylance (every type),
# SQL DDL and DML, concurrent writers, metadata tables, procedures (CALL), refs, the table API
# (over Connect too where pyspark bundles the server) and the wheel installed alone. The S3 tests
# are left to the full suite: they fetch the line's hadoop-aws from Maven.
LINES_MODULES = {"test_read_golden", "test_write", "test_types", "test_sql", "test_dml", "test_concurrent_writes",
                 "test_refs", "test_table_api", "test_table_errors", "test_errors", "test_connect_server", "test_wheel"}


# The tests that start many Spark applications (minutes each): `make test` leaves them out of the
# other lines' subset (`-m "lines and not heavy"`) to stay within CI's time; `make test-lines` runs them.
HEAVY_TESTS = {"test_eight_applications_append_ten_times_each",
               "test_writers_killed_at_random_points_leave_a_table_at_a_committed_version",
               "test_concurrent_merges_into_a_primary_key_table_insert_no_key_twice",
               "test_updates_killed_at_random_points_leave_whole_versions"}


def _pyspark_35_names() -> None:
    """What pyspark 4 names differently, for the tests on pyspark 3.5: an error's condition is its
    error class there, and a DataFrame collects to Arrow through its private _collect_as_arrow."""
    from pyspark.errors import PySparkException
    from pyspark.sql import DataFrame
    from pyspark.sql.pandas.types import to_arrow_schema

    if not hasattr(PySparkException, "getCondition"):
        PySparkException.getCondition = lambda self: self.getErrorClass()
    if not hasattr(DataFrame, "toArrow"):
        def to_arrow(df):
            import pyarrow as pa
            return pa.Table.from_batches(df._collect_as_arrow(), schema=to_arrow_schema(df.schema))  # noqa: SLF001
        DataFrame.toArrow = to_arrow


_pyspark_35_names()


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "lines: the cross-line subset, run with every Spark line's pyspark and jar")
    config.addinivalue_line("markers", "heavy: starts many Spark applications; left out of make test's other lines")


def pytest_collection_modifyitems(items) -> None:
    for item in items:
        if item.module.__name__ in LINES_MODULES and "s3_server" not in item.fixturenames:
            item.add_marker(pytest.mark.lines)
        if item.originalname in HEAVY_TESTS:
            item.add_marker(pytest.mark.heavy)


@pytest.fixture(scope="session")
def spark() -> SparkSession:
    session = make_session("local[2]", "pyspark-lance-tests")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def s3_server() -> Endpoint:
    """A local S3 server (SeaweedFS) for the whole session, with one empty bucket."""
    with S3Server.started() as endpoint:
        yield endpoint


@pytest.fixture(scope="session")
def golden() -> Path:
    if not (GOLDEN / "index.json").is_file():
        pytest.fail(f"golden datasets missing under {GOLDEN}: run `make golden` first")
    return GOLDEN


def dataset_info(golden: Path, name: str) -> dict:
    return json.loads((golden / name / "info.json").read_text())


def s3_packages(hadoop: str, sdk: str) -> tuple[str, str]:
    """The jars the docs tell S3 users to add, as Maven coordinates and exclusions: hadoop-aws of
    Spark's Hadoop with the AWS SDK it was built with (the jar records both). SDK v2 (Hadoop 3.4 on)
    comes as the slim modules instead of its bundle; SDK v1 (Hadoop 3.3, Spark 3.5) is hadoop-aws's
    own dependency."""
    if sdk.startswith("1."):
        return f"org.apache.hadoop:hadoop-aws:{hadoop}", ""
    return (",".join([f"org.apache.hadoop:hadoop-aws:{hadoop}", f"software.amazon.awssdk:s3:{sdk}",
                      f"software.amazon.awssdk:s3-transfer-manager:{sdk}", f"software.amazon.awssdk:sts:{sdk}"]),
            "software.amazon.awssdk:bundle")


# Spark resolves the S3 jars from the Maven repository once per Hadoop release, into an Ivy home
# of their own under the user's cache (resolving in eight processes at once races on Ivy's files);
# the writers then get the resolved jars as plain `spark.jars`.
S3_CACHE = Path.home() / ".cache" / "spark-lance"


@pytest.fixture(scope="session")
def s3_jars() -> str:
    info = pyspark_lance.jar_info()
    ivy = S3_CACHE / f"ivy-s3-{info['hadoop']}"
    jars = ivy / "jars"
    if not any(jars.glob("*.jar")):
        packages, excludes = s3_packages(info["hadoop"], info["awsSdk"])
        conf = {"spark.jars.packages": packages, "spark.jars.ivy": str(ivy)}
        if excludes:
            conf["spark.jars.excludes"] = excludes
        code = ("import json, sys; from sessions import make_session; "
                "make_session('local[1]', 'resolve-s3-jars', json.loads(sys.argv[1])).stop()")
        subprocess.run([sys.executable, "-c", code, json.dumps(conf)], check=True, timeout=900,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, capture_output=True)
    return ",".join(str(j) for j in sorted(jars.glob("*.jar")))


def s3_conf(endpoint, jars: str) -> dict[str, str]:
    conf = {f"spark.hadoop.{k}": v for k, v in endpoint.hadoop_conf().items()}
    conf["spark.jars"] = jars
    return conf


@pytest.fixture(scope="session")
def connect_spark():
    """A Connect session to a local Connect server with the connector (started once); skipped on the
    lines whose pyspark has no Connect server (3.5), saying so."""
    if (missing := missing_server()) is not None:
        pytest.skip(f"Spark Connect on Spark {pyspark.__version__}: {missing}")
    import connect_server
    with connect_server.started() as session:
        yield session


@pytest.fixture(params=["classic", "connect"])
def any_spark(request):
    """The classic session, then a Connect session: a test using it runs in both modes."""
    return request.getfixturevalue("spark" if request.param == "classic" else "connect_spark")
