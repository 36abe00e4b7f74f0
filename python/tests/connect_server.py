"""A local Spark Connect server with the connector jar, for the tests that run over Connect.

The server is the package's own launcher (`pyspark_lance.connect_server`, the way the docs tell
users to start one), so the tests start it exactly as a user does: offline, from pyspark's
bundled Connect server, on a free loopback port. The client is pyspark's Connect session (its
builder taken directly: the generic builder refuses a remote session beside the classic one the
other tests share).
"""

from __future__ import annotations

import contextlib
import tempfile
from typing import TYPE_CHECKING, Iterator

from pyspark_lance.connect_server import ConnectServer

if TYPE_CHECKING:  # the Connect client is imported only where a line has Connect (not 3.5's pyspark)
    from pyspark.sql.connect.session import SparkSession as ConnectSession


@contextlib.contextmanager
def serving(timeout: float = 180.0, conf: dict[str, str] | None = None, jars: list[str] = ()) -> Iterator[str]:
    """Starts the server (with more Spark `conf`, e.g. `spark.hadoop.fs.s3a.*`, and more `jars`
    beside the connector's), yields its URL (`sc://127.0.0.1:PORT`), and stops it."""
    settings = {
        "spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2", "spark.sql.session.timeZone": "UTC",
        "spark.sql.warehouse.dir": tempfile.mkdtemp(prefix="connect-warehouse-"),
        **(conf or {}),
    }
    with ConnectServer(master="local[2]", conf=settings, jars=jars).start(timeout) as server:
        yield server.url


@contextlib.contextmanager
def started(timeout: float = 180.0, conf: dict[str, str] | None = None, jars: list[str] = ()) -> Iterator[ConnectSession]:
    """Starts the server (see :func:`serving`), yields a Connect session to it, and stops both."""
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    with serving(timeout, conf, jars) as url:
        session = ConnectSession.builder.remote(url).getOrCreate()
        try:
            yield session
        finally:
            session.stop()
