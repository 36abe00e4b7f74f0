"""A local Spark Connect server with the connector jar, for the tests that run over Connect.

pyspark's own jars hold the Connect server (`spark-connect_2.13`), so it starts offline:
`spark-submit --class SparkConnectServer` with our jar and the confs `pyspark_lance.configure`
sets, listening on a free loopback port. The client is pyspark's Connect session (its builder
taken directly: the generic builder refuses a remote session beside the classic one the other
tests share).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import tempfile
import time
from typing import Iterator

import pyspark
from pyspark.sql.connect.session import SparkSession as ConnectSession

import pyspark_lance


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(timeout: float = 180.0, conf: dict[str, str] | None = None, jars: list[str] = ()) -> Iterator[str]:
    """Starts the server (with more Spark `conf`, e.g. `spark.hadoop.fs.s3a.*`, and more `jars`
    beside the connector's), yields its URL (`sc://127.0.0.1:PORT`), and stops it."""
    home = os.path.dirname(pyspark.__file__)
    port = _free_port()
    conf = {
        "spark.connect.grpc.binding.address": "127.0.0.1", "spark.connect.grpc.binding.port": str(port),
        "spark.driver.host": "127.0.0.1", "spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2",
        "spark.sql.session.timeZone": "UTC", "spark.sql.warehouse.dir": tempfile.mkdtemp(prefix="connect-warehouse-"),
        "spark.sql.catalog.spark_catalog": pyspark_lance.SESSION_CATALOG,
        "spark.sql.catalog.lance": pyspark_lance.PROCEDURE_CATALOG,
        **(conf or {}),
    }
    cmd = [os.path.join(home, "bin", "spark-submit"), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
           "--master", "local[2]", "--jars", ",".join([pyspark_lance.jar_path(), *jars])]
    for key, value in conf.items():
        cmd += ["--conf", f"{key}={value}"]
    log = tempfile.NamedTemporaryFile(prefix="connect-server-", suffix=".log", delete=False)
    env = {**os.environ, "SPARK_HOME": home, "SPARK_LOCAL_IP": "127.0.0.1"}
    server = subprocess.Popen(cmd + ["spark-internal"], env=env, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"the Connect server exited ({server.returncode}); see {log.name}")
            try:
                with socket.create_connection(("127.0.0.1", port), 1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the Connect server did not listen within {timeout}s; see {log.name}")
                time.sleep(0.5)
        yield f"sc://127.0.0.1:{port}"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


@contextlib.contextmanager
def started(timeout: float = 180.0, conf: dict[str, str] | None = None, jars: list[str] = ()) -> Iterator[ConnectSession]:
    """Starts the server (see :func:`serving`), yields a Connect session to it, and stops both."""
    with serving(timeout, conf, jars) as url:
        session = ConnectSession.builder.remote(url).getOrCreate()
        try:
            yield session
        finally:
            session.stop()
