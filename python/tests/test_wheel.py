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
import pytest

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
    carried = pyspark_lance.carried_jars()
    with zipfile.ZipFile(wheel) as z:
        jars = {n for n in z.namelist() if n.startswith("pyspark_lance/jars/")}
        metadata = z.read(f"pyspark_lance-{version}.dist-info/METADATA").decode()
    # Every jar this tree carries, each under its line's name (a release wheel: all five lines).
    assert jars == {f"pyspark_lance/jars/spark-lance-{key}.jar" for key in carried}
    assert f"Version: {version}" in metadata
    lines = [tuple(int(x) for x in key.split("_")[0].split(".")) for key in carried]
    (low, low_minor), (high, high_minor) = min(lines), max(lines)
    assert f"Requires-Dist: pyspark<{high}.{high_minor + 1},>={low}.{low_minor}" in metadata, metadata

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
    line = ".".join(pyspark.__version__.split(".")[:2])
    assert got["jar"].endswith(f"/spark-lance-{line}_{pyspark_lance.pyspark_scala()}.jar"), got["jar"]
    assert any("already running" in w for w in got["warned"]), got["warned"]


def _jars_of(monkeypatch, folder: Path, *keys: str) -> None:
    """The package as if it carried jars for `keys` ("3.5_2.12"), in `folder`: files named as `make jar`
    names them (choosing one reads no more than the name)."""
    folder.mkdir(exist_ok=True)
    for key in keys:
        (folder / f"spark-lance-{key}.jar").write_bytes(b"")
    monkeypatch.setattr(pyspark_lance, "_JAR_DIR", folder)


def _spark_home(monkeypatch, folder: Path, scala: str) -> None:
    """A SPARK_HOME whose jars are of Scala `scala` (as a Spark distribution's are)."""
    (folder / "jars").mkdir(parents=True)
    (folder / "jars" / f"scala-library-{scala}.jar").write_bytes(b"")
    monkeypatch.setenv("SPARK_HOME", str(folder))


def test_the_jar_of_the_installed_line_and_scala_is_chosen(monkeypatch, tmp_path: Path) -> None:
    # What this pyspark really bundles: 2.12 for pyspark 3.5, 2.13 for 4.x.
    monkeypatch.delenv("SPARK_HOME", raising=False)
    bundled = pyspark_lance.pyspark_scala()
    assert bundled == ("2.12" if pyspark.__version__.startswith("3.") else "2.13")

    jars = tmp_path / "jars"
    _jars_of(monkeypatch, jars, "3.5_2.12", "3.5_2.13", "4.0_2.13", "4.1_2.13", "4.2_2.13")
    assert list(pyspark_lance.carried_jars()) == ["3.5_2.12", "3.5_2.13", "4.0_2.13", "4.1_2.13", "4.2_2.13"]
    monkeypatch.setattr(pyspark, "__version__", "3.5.9")
    _spark_home(monkeypatch, tmp_path / "spark-2.12", "2.12.18")
    assert pyspark_lance.jar_path() == str(jars / "spark-lance-3.5_2.12.jar")
    _spark_home(monkeypatch, tmp_path / "spark-2.13", "2.13.8")
    assert pyspark_lance.jar_path() == str(jars / "spark-lance-3.5_2.13.jar")
    monkeypatch.setattr(pyspark, "__version__", "4.1.4")
    assert pyspark_lance.jar_path() == str(jars / "spark-lance-4.1_2.13.jar")


def test_a_pyspark_of_no_carried_line_is_refused_by_name(monkeypatch, tmp_path: Path) -> None:
    from pyspark.sql import SparkSession

    _jars_of(monkeypatch, tmp_path / "jars", "3.5_2.12", "4.0_2.13", "4.1_2.13", "4.2_2.13")
    _spark_home(monkeypatch, tmp_path / "spark", "2.13.17")
    carried = "Spark 3.5 (Scala 2.12), Spark 4.0 (Scala 2.13), Spark 4.1 (Scala 2.13), Spark 4.2 (Scala 2.13)"
    for version in ("3.4.4", "4.3.0"):
        monkeypatch.setattr(pyspark, "__version__", version)
        with pytest.raises(RuntimeError) as e:
            pyspark_lance.configure(SparkSession.builder)
        assert f"no jar for the installed pyspark {version} (Scala 2.13)" in str(e.value)
        assert f"it carries {carried}" in str(e.value)
        assert "pip install 'pyspark==4.2.*'" in str(e.value)
    # A 3.5 of Scala 2.13 where only the 2.12 jar is carried: the build command names the Scala.
    monkeypatch.setattr(pyspark, "__version__", "3.5.9")
    with pytest.raises(RuntimeError, match=r"pyspark 3\.5\.9 \(Scala 2\.13\).*make jar SPARK_LINE=3\.5`"):
        pyspark_lance.jar_path()


def test_a_dev_tree_with_one_line_built_names_the_missing_one(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SPARK_HOME", raising=False)
    _jars_of(monkeypatch, tmp_path / "jars", "4.2_2.13")
    monkeypatch.setattr(pyspark, "__version__", "4.1.4")
    # (The installed pyspark's own Scala stays: 2.12 under pyspark 3.5, hence its SCALA_BINARY.)
    with pytest.raises(RuntimeError, match=r"it carries Spark 4\.2 \(Scala 2\.13\);.*`make jar SPARK_LINE=4\.1( SCALA_BINARY=2\.12)?`"):
        pyspark_lance.jar_path()
    _jars_of(monkeypatch, tmp_path / "empty")
    with pytest.raises(FileNotFoundError, match="no spark-lance jar in .*empty; run `make jar`"):
        pyspark_lance.jar_path()


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


def _fake_jar(path: Path, version: str, spark: str, scala: str) -> None:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("io/sparklance/version.properties", f"version={version}\nspark={spark}\nscala={scala}\n")


@pytest.mark.parametrize("jars, message", [
    ({"spark-lance-4.2_2.13.jar": ("0.1.0", "4.2.0", "2.13"), "spark-lance-4.1_2.13.jar": ("0.0.9", "4.1.3", "2.13")},
     "the carried jars have different versions (spark-lance-4.1_2.13.jar 0.0.9, spark-lance-4.2_2.13.jar 0.1.0)"),
    ({"spark-lance-4.1_2.13.jar": ("0.1.0", "4.2.0", "2.13")},
     "spark-lance-4.1_2.13.jar is built for Spark 4.2.0 and Scala 2.13, not what its name says"),
    ({"spark-lance.jar": ("0.1.0", "4.2.0", "2.13")}, "spark-lance.jar under"),
])
def test_building_a_wheel_of_inconsistent_jars_fails(tmp_path: Path, jars: dict, message: str) -> None:
    import shutil

    src = tmp_path / "python"
    shutil.copytree(PYTHON_DIR, src, ignore=shutil.ignore_patterns("jars", "tests", "build", "*.egg-info"))
    (src / "pyspark_lance" / "jars").mkdir()
    for name, (version, spark, scala) in jars.items():
        _fake_jar(src / "pyspark_lance" / "jars" / name, version, spark, scala)
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w",
                          str(tmp_path / "dist"), str(src)], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode != 0
    assert message in run.stdout + run.stderr, run.stdout + run.stderr
    assert not (tmp_path / "dist").exists() or not list((tmp_path / "dist").glob("*.whl"))
