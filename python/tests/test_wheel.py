"""The pip package as a user gets it: the wheel built from this tree, installed into a fresh
virtualenv beside pyspark, used from a process with no other configuration (no PYTHONPATH, no
SPARK_HOME, no network needed)."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pyspark

import pyspark_lance

PYTHON_DIR = Path(__file__).resolve().parents[1]

USE = textwrap.dedent("""
    import json, sys, warnings
    from pyspark.sql import SparkSession
    import pyspark_lance
    spark = pyspark_lance.session(app_name="wheel test", master="local[1]",
                                  conf={"spark.ui.enabled": "false", "spark.driver.host": "127.0.0.1"})
    uri = sys.argv[1]
    spark.range(5).selectExpr("id", "id * 2 AS twice").write.format("lance").save(uri)
    spark.sql(f"CALL lance.system.create_tag(table => '{uri}', tag => 'first', version => 1)")
    rows = sorted(tuple(r) for r in spark.read.format("lance").load(uri).collect())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pyspark_lance.configure(SparkSession.builder)
    print(json.dumps({"version": pyspark_lance.__version__, "rows": rows, "jar": pyspark_lance.jar_path(),
                      "warned": [str(w.message) for w in caught]}))
""")


def test_the_wheel_installs_and_works_alone(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(dist),
                    str(PYTHON_DIR)], check=True, cwd=tmp_path)
    version = pyspark_lance.jar_info()["version"]
    wheel = dist / f"pyspark_lance-{version}-py3-none-any.whl"
    assert wheel.is_file(), f"expected {wheel.name}, got {[p.name for p in dist.iterdir()]}"
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        assert "pyspark_lance/jars/spark-lance.jar" in names
        metadata = z.read(f"pyspark_lance-{version}.dist-info/METADATA").decode()
    assert f"Version: {version}" in metadata
    assert "Requires-Dist: pyspark" in metadata

    # The user's environment: none of this checkout's paths (its build leaves metadata pip would take as installed).
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPARK_HOME", "PYSPARK_SUBMIT_ARGS")}
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-index", "--no-deps", str(wheel)], check=True, env=env)
    # pyspark (and py4j) beside it, taken from this environment rather than downloaded again.
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "pyspark_here.pth").write_text(str(Path(sysconfig.get_paths()["purelib"])) + "\n")

    env["PYSPARK_PYTHON"] = str(py)
    out = subprocess.run([str(py), "-c", USE, str(tmp_path / "t.lance")], capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    import json
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["version"] == version
    assert got["rows"] == [[i, 2 * i] for i in range(5)]
    assert got["jar"].startswith(str(site)), "the jar is the installed package's"
    assert any("already running" in w for w in got["warned"]), got["warned"]


def test_a_pyspark_of_another_line_is_refused(monkeypatch) -> None:
    from pyspark.sql import SparkSession

    monkeypatch.setattr(pyspark, "__version__", "3.5.3")
    try:
        pyspark_lance.configure(SparkSession.builder)
    except RuntimeError as e:
        assert "built for Spark 4.2" in str(e) and "3.5.3" in str(e)
    else:
        raise AssertionError("configure() accepted pyspark 3.5.3 for a jar built for Spark 4.2")


def test_building_a_wheel_without_the_jar_fails(tmp_path: Path) -> None:
    # A copy of the package sources without jars/.
    import shutil

    src = tmp_path / "python"
    shutil.copytree(PYTHON_DIR, src, ignore=shutil.ignore_patterns("jars", "tests", "build", "*.egg-info"))
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w",
                          str(tmp_path / "dist"), str(src)], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode != 0
    assert "the connector jar is missing" in run.stdout + run.stderr
    assert not (tmp_path / "dist").exists() or not list((tmp_path / "dist").glob("*.whl"))
