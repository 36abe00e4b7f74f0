"""Shared fixtures: one local SparkSession with the connector jar, and the golden datasets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from s3_server import Endpoint, S3Server
from sessions import make_session

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(os.environ.get("SPARK_LANCE_GOLDEN", REPO / "target" / "golden"))


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


# The jars the README tells S3 users to add: hadoop-aws of Spark's Hadoop and the slim AWS SDK
# modules. Spark resolves them from the Maven repository once, into an Ivy home of their own
# under the user's cache (resolving in eight processes at once races on Ivy's files); the
# writers then get the resolved jars as plain `spark.jars`.
S3_PACKAGES = ",".join([
    "org.apache.hadoop:hadoop-aws:3.5.0", "software.amazon.awssdk:s3:2.35.4",
    "software.amazon.awssdk:s3-transfer-manager:2.35.4", "software.amazon.awssdk:sts:2.35.4"])
S3_IVY = Path.home() / ".cache" / "spark-lance" / "ivy-s3"


@pytest.fixture(scope="session")
def s3_jars() -> str:
    jars = S3_IVY / "jars"
    if not any(jars.glob("*.jar")):
        conf = {"spark.jars.packages": S3_PACKAGES, "spark.jars.excludes": "software.amazon.awssdk:bundle",
                "spark.jars.ivy": str(S3_IVY)}
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
    """A Connect session to a local Connect server with the connector (started once)."""
    import connect_server
    with connect_server.started() as session:
        yield session


@pytest.fixture(params=["classic", "connect"])
def any_spark(request):
    """The classic session, then a Connect session: a test using it runs in both modes."""
    return request.getfixturevalue("spark" if request.param == "classic" else "connect_spark")
