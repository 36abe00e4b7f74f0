"""Shared fixtures: one local SparkSession with the connector jar, and the golden datasets."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

import pyspark_lance

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(os.environ.get("SPARK_LANCE_GOLDEN", REPO / "target" / "golden"))


@pytest.fixture(scope="session")
def spark() -> SparkSession:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("pyspark-lance-tests")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
    )
    session = pyspark_lance.configure(builder).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def golden() -> Path:
    if not (GOLDEN / "index.json").is_file():
        pytest.fail(f"golden datasets missing under {GOLDEN}: run `make golden` first")
    return GOLDEN


def dataset_info(golden: Path, name: str) -> dict:
    return json.loads((golden / name / "info.json").read_text())
