"""Shared fixtures: one local SparkSession with the connector jar, and the golden datasets."""

from __future__ import annotations

import json
import os
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
