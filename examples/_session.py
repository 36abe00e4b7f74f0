"""How every example gets its Spark session: a local one with the connector, or a Spark Connect
client when the command line says `--remote sc://host:port` (the same example code runs both ways).

Over Spark Connect the server must have been started with the connector jar and its catalogs
(see `python -m pyspark_lance.connect_server`); paths in the examples are then read and written
by the server, so give a work folder both can see.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from pyspark.sql import SparkSession


def arguments(description: str) -> argparse.ArgumentParser:
    """The options every example takes; an example adds its own before parsing."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--remote", help="a Spark Connect server, sc://host:port (default: a local Spark)")
    parser.add_argument("--workdir", help="the folder the example writes into (default: a new temporary folder)")
    return parser


def workdir(args: argparse.Namespace, name: str) -> str:
    """`--workdir`, or a new temporary folder (kept, so that the tables can be looked at after)."""
    if args.workdir:
        return os.path.abspath(args.workdir)
    folder = tempfile.mkdtemp(prefix=f"spark-lance-{name}-")
    print(f"work folder: {folder}")
    return folder


def session(args: argparse.Namespace, app_name: str, conf: dict[str, str] | None = None) -> SparkSession:
    """A Spark Connect session to `args.remote`, or a local session with the connector and `conf`."""
    if args.remote:
        return SparkSession.builder.remote(args.remote).getOrCreate()
    import pyspark_lance

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = pyspark_lance.session(app_name=app_name, master="local[2]", conf={
        "spark.driver.host": "127.0.0.1",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.warehouse.dir": tempfile.mkdtemp(prefix="spark-lance-warehouse-"),
        **(conf or {}),
    })
    spark.sparkContext.setLogLevel("ERROR")
    return spark
