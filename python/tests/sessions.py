"""The SparkSession settings every test session shares."""

from __future__ import annotations

import os
import sys
import tempfile

import pyspark
from pyspark.sql import SparkSession

import pyspark_lance

#: The installed pyspark's Spark line, e.g. (4, 1): a test of a feature some lines lack asserts what each line gives.
SPARK_LINE = tuple(int(part) for part in pyspark.__version__.split(".")[:2])


def make_session(master: str, app: str, conf: dict[str, str] | None = None) -> SparkSession:
    """A session on `master` with the connector jar (and its session catalog), loopback networking,
    no UI, UTC, a warehouse in a temporary folder, and `conf`."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = (
        SparkSession.builder.master(master)
        .appName(app)
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", tempfile.mkdtemp(prefix="spark-warehouse-"))
    )
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    return pyspark_lance.configure(builder).getOrCreate()
