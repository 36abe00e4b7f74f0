"""A local Spark Connect server with the connector, for clients that only speak Connect.

A Connect client ignores ``spark.jars``: the jar and the catalogs must be on the server. pyspark's
own jars hold the Connect server (``SparkConnectServer``), so this starts it offline with
pyspark's ``spark-submit``, our jar and the catalogs :func:`pyspark_lance.configure` sets::

    python -m pyspark_lance.connect_server --port 15002 --conf spark.driver.memory=4g

then, in any client: ``SparkSession.builder.remote("sc://127.0.0.1:15002").getOrCreate()``.
From Python (tests, notebooks)::

    with ConnectServer(conf={...}) as server:
        spark = SparkSession.builder.remote(server.url).getOrCreate()

On a cluster, give the same ``--jars`` and ``--conf`` to the Connect server your platform starts.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import pyspark

from . import PROCEDURE_CATALOG, SESSION_CATALOG, jar_path, pyspark_scala

#: pyspark's Connect server entry point (in its bundled spark-connect jar).
SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"


def missing_server() -> str | None:
    """Why the installed pyspark cannot start a Connect server (a sentence), or None when it can.

    pyspark bundles the server from Spark 4.0 on; pyspark 3.5's jars hold only the client's protocol,
    the server is the separate spark-connect package."""
    if list(Path(pyspark.__file__).parent.glob("jars/spark-connect_*.jar")):
        return None
    scala = pyspark_scala() or "<scala>"
    return (f"pyspark {pyspark.__version__} does not bundle the Spark Connect server (pyspark bundles it from Spark 4.0); "
            f"start one with spark-submit --packages org.apache.spark:spark-connect_{scala}:{pyspark.__version__} "
            f"--class {SERVER_CLASS}, our jar (pyspark_lance.jar_path()) in --jars and the catalogs of "
            "pyspark_lance.configure()")


def command(port: int = 15002, host: str = "127.0.0.1", master: str = "local[*]",
            conf: Mapping[str, str] | None = None, jars: Sequence[str] = ()) -> list[str]:
    """The ``spark-submit`` command line that starts the server: our jar (and ``jars``, e.g. hadoop-aws),
    our catalogs, ``conf`` on top. Raises RuntimeError when the package carries no jar for the installed
    pyspark, or when that pyspark has no Connect server (:func:`missing_server`)."""
    jar = jar_path()
    if (missing := missing_server()) is not None:
        raise RuntimeError(missing)
    settings = {
        "spark.connect.grpc.binding.address": host,
        "spark.connect.grpc.binding.port": str(port),
        "spark.sql.catalog.spark_catalog": SESSION_CATALOG,
        "spark.sql.catalog.lance": PROCEDURE_CATALOG,
        **(conf or {}),
    }
    cmd = [os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-submit"), "--class", SERVER_CLASS,
           "--master", master, "--jars", ",".join([jar, *jars])]
    for key, value in settings.items():
        cmd += ["--conf", f"{key}={value}"]
    return cmd + ["spark-internal"]


def _environment() -> dict[str, str]:
    # spark-submit finds pyspark's jars through SPARK_HOME; a SPARK_HOME of another install would mix Sparks.
    return {**os.environ, "SPARK_HOME": os.path.dirname(pyspark.__file__)}


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on now (the server binds it moments later)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def wait_until_listening(process: subprocess.Popen[bytes], host: str, port: int, timeout: float, log: str) -> None:
    """Returns once `process` (a server starting) accepts connections on host:port; raises RuntimeError
    naming `log` when it exits first or does not listen within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the Spark Connect server exited with {process.returncode}; its log: {log}")
        try:
            with socket.create_connection((host, port), 1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Spark Connect server did not listen on sc://{host}:{port} within {timeout:.0f} s; "
                                   f"its log: {log}") from None
            time.sleep(0.5)


def stop_process_group(process: subprocess.Popen[bytes], grace: float = 30.0) -> None:
    """Stops a server started in a session of its own, and everything it started (Spark's JVM)."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


class ConnectServer:
    """A Connect server in a child process, stopped (with its Spark) by :meth:`stop` or on leaving a ``with`` block.

    ``port=None`` picks a free port; ``jars`` go on the server's classpath beside ours. The server's output goes to ``log`` (a file path; a temporary
    file by default), named in the error when it fails to start.
    """

    def __init__(self, port: int | None = None, host: str = "127.0.0.1", master: str = "local[*]",
                 conf: Mapping[str, str] | None = None, jars: Sequence[str] = (), log: str | None = None) -> None:
        self.host = host
        self.port = port if port is not None else free_port(host)
        self.log = log or tempfile.NamedTemporaryFile(prefix="spark-lance-connect-", suffix=".log", delete=False).name
        self._command = command(self.port, host, master, {"spark.driver.host": host, **(conf or {})}, jars)
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The address a client connects to: ``SparkSession.builder.remote(server.url)``."""
        return f"sc://{self.host}:{self.port}"

    def start(self, timeout: float = 180.0) -> "ConnectServer":
        """Starts the server and waits until it accepts connections (raises RuntimeError naming the log if not)."""
        out: IO[bytes] = open(self.log, "ab")  # noqa: SIM115 - the child keeps writing after this returns
        try:
            self._process = subprocess.Popen(self._command, env={**_environment(), "SPARK_LOCAL_IP": self.host},
                                             stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        finally:
            out.close()
        try:
            wait_until_listening(self._process, self.host, self.port, timeout, self.log)
        except RuntimeError:
            self.stop()
            raise
        return self

    def stop(self, grace: float = 30.0) -> None:
        """Stops the server and the Spark it runs (its whole process group)."""
        process, self._process = self._process, None
        if process is not None:
            stop_process_group(process, grace)

    def __enter__(self) -> "ConnectServer":
        return self.start() if self._process is None else self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def _conf_pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--conf takes key=value, got {text!r}")
    return key, value


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m pyspark_lance.connect_server``: runs the server in the foreground until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m pyspark_lance.connect_server",
                                     description="Start a local Spark Connect server with the spark-lance connector.")
    parser.add_argument("--port", type=int, default=15002, help="port to listen on (default 15002)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    parser.add_argument("--conf", type=_conf_pair, action="append", default=[], metavar="KEY=VALUE",
                        help="a Spark setting for the server, repeatable")
    parser.add_argument("--jars", default="", help="more jars for the server, comma-separated (e.g. hadoop-aws for s3a)")
    parser.add_argument("--print-command", action="store_true", help="print the spark-submit command and exit")
    args = parser.parse_args(argv)
    cmd = command(args.port, args.host, args.master, {"spark.driver.host": args.host, **dict(args.conf)},
                  [j for j in args.jars.split(",") if j])
    if args.print_command:
        print(shlex.join(cmd))
        return 0
    print(f"spark-lance: Spark Connect server on sc://{args.host}:{args.port} (Ctrl-C stops it)", file=sys.stderr)
    os.execve(cmd[0], cmd, {**_environment(), "SPARK_LOCAL_IP": args.host})


if __name__ == "__main__":
    sys.exit(main())
