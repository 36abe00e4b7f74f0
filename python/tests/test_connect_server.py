"""The documented way to serve Lance over Spark Connect: `python -m pyspark_lance.connect_server`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import lance
import pyspark
import pytest

import pyspark_lance
from pyspark_lance.connect_server import free_port, missing_server, stop_process_group, wait_until_listening

if (missing := missing_server()) is not None:
    pytest.skip(f"Spark Connect on Spark {pyspark.__version__}: {missing}", allow_module_level=True)

from pyspark.sql.connect.session import SparkSession as ConnectSession  # noqa: E402 - needs the Connect client

PYTHON_DIR = Path(__file__).resolve().parents[1]


def cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR))
    return subprocess.run([sys.executable, "-m", "pyspark_lance.connect_server", *args], capture_output=True, text=True,
                          env=env, timeout=60, **kwargs)


def test_the_command_carries_the_jar_the_catalogs_and_the_settings() -> None:
    out = cli("--port", "15999", "--conf", "spark.driver.memory=2g", "--jars", "/opt/a.jar", "--print-command")
    assert out.returncode == 0, out.stderr
    words = out.stdout.split()
    assert words[words.index("--class") + 1] == "org.apache.spark.sql.connect.service.SparkConnectServer"
    assert words[words.index("--jars") + 1] == f"{pyspark_lance.jar_path()},/opt/a.jar"
    confs = [words[i + 1] for i, w in enumerate(words) if w == "--conf"]
    assert f"spark.sql.catalog.spark_catalog={pyspark_lance.SESSION_CATALOG}" in confs
    assert f"spark.sql.catalog.lance={pyspark_lance.PROCEDURE_CATALOG}" in confs
    assert "spark.connect.grpc.binding.port=15999" in confs and "spark.driver.memory=2g" in confs


def test_a_bad_setting_is_refused_by_name() -> None:
    out = cli("--conf", "no-equals-sign")
    assert out.returncode == 2 and "--conf takes key=value, got 'no-equals-sign'" in out.stderr


def test_a_client_writes_and_calls_procedures_through_the_started_server(tmp_path: Path) -> None:
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR))
    log = open(tmp_path / "server.log", "wb")
    server = subprocess.Popen([sys.executable, "-m", "pyspark_lance.connect_server", "--port", str(port), "--master", "local[2]",
                               "--conf", "spark.ui.enabled=false", "--conf", f"spark.sql.warehouse.dir={tmp_path / 'wh'}"],
                              env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_until_listening(server, "127.0.0.1", port, 180, str(tmp_path / "server.log"))
        spark = ConnectSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
        try:
            uri = str(tmp_path / "t.lance")
            spark.range(5).selectExpr("id", "id * 2 AS twice").write.format("lance").save(uri)
            tag = spark.sql(f"CALL lance.system.create_tag(table => '{uri}', tag => 'first')").collect()
            assert [(r.tag, r.version) for r in tag] == [("first", 1)]
        finally:
            spark.stop()
        ds = lance.dataset(uri)
        assert ds.to_table().to_pydict() == {"id": [0, 1, 2, 3, 4], "twice": [0, 2, 4, 6, 8]}
        assert ds.tags.list()["first"]["version"] == 1
    finally:
        stop_process_group(server)
        log.close()
