"""Every example in examples/ runs to the end on its small data, twice: in a local Spark of its
own and as a Spark Connect client of one local Connect server (a changed API breaks a test, not a
user). The tests assert the values the examples print and open what they wrote with pylance,
value by value."""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import lance
import numpy as np
import pyspark
import pytest
from pyarrow import fs as pafs

from pyspark_lance.connect_server import missing_server

import connect_server
from conftest import s3_conf

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PYTHON_DIR = Path(__file__).resolve().parents[1]
MODES = ["classic", "connect"]


@pytest.fixture(scope="module")
def bucket2(s3_server) -> str:
    """A second bucket on the S3 test server, for the multi-bucket example."""
    e = s3_server
    s3 = pafs.S3FileSystem(access_key=e.access_key, secret_key=e.secret_key, region=e.region, scheme="http",
                           endpoint_override=e.endpoint.removeprefix("http://"), allow_bucket_creation=True)
    name = f"{e.bucket}-two"
    s3.create_dir(name)
    assert s3.get_file_info(name).type == pafs.FileType.Directory
    return name


@pytest.fixture(scope="module")
def connect_url(s3_server, s3_jars) -> str:
    """One Connect server for the module, with the S3 jars and the test server's S3A settings; skipped
    on the lines whose pyspark has no Connect server (3.5), saying so."""
    if (missing := missing_server()) is not None:
        pytest.skip(f"Spark Connect on Spark {pyspark.__version__}: {missing}")
    conf = s3_conf(s3_server, s3_jars)
    jars = conf.pop("spark.jars").split(",")
    with connect_server.serving(conf=conf, jars=jars) as url:
        yield url


def run(example: str, mode: str, request, *args: str) -> str:
    remote = ["--remote", request.getfixturevalue("connect_url")] if mode == "connect" else []
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR), PYSPARK_PYTHON=sys.executable)
    out = subprocess.run([sys.executable, str(EXAMPLES / example), *remote, *args], capture_output=True, text=True,
                         env=env, cwd=EXAMPLES, timeout=600)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    return out.stdout


def lines(out: str, prefix: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(prefix)]


def test_every_example_is_tested() -> None:
    tested = {"quickstart.py", "batch_pipeline.py", "embeddings.py", "multi_bucket_s3.py", "branch_release.py"}
    assert {p.name for p in EXAMPLES.glob("*.py") if not p.name.startswith("_")} == tested


@pytest.mark.parametrize("mode", MODES)
def test_quickstart(mode, request, tmp_path) -> None:
    out = run("quickstart.py", mode, request, "--workdir", str(tmp_path))
    assert "Names with a score above 90: ['ada', 'barbara']" in out
    # The history: five versions, the last the compaction.
    history = [line for line in out.splitlines() if line.startswith("|      ")]
    assert [line.split("|")[2].strip() for line in history[-5:]] == ["Overwrite", "Append", "Update", "Delete", "Rewrite"]
    ds = lance.dataset(str(tmp_path / "people.lance"))
    assert ds.version == 5 and ds.tags.list()["release_1"]["version"] == 2
    assert sorted(ds.to_table().to_pylist(), key=lambda r: r["id"]) == [
        {"id": 1, "name": "ada", "score": 92.5}, {"id": 2, "name": "grace", "score": 88.0},
        {"id": 3, "name": "edsger", "score": 90.0}, {"id": 4, "name": "barbara", "score": 95.0}]
    assert len(ds.get_fragments()) == 1  # compacted


@pytest.mark.parametrize("mode", MODES)
def test_batch_pipeline(mode, request, tmp_path) -> None:
    out = run("batch_pipeline.py", mode, request, "--workdir", str(tmp_path))
    assert "wrote 5 clean orders of 13 raw rows" in out
    assert lines(out, "before:") == ["before: DE orders=3 total=22.75", "before: FR orders=2 total=32.00"]
    assert lines(out, "after:") == ["after: DE orders=3 total=57.75", "after: FR orders=2 total=37.00"]
    assert "versions: [1, 2, 3]" in out
    ds = lance.dataset(str(tmp_path / "orders.lance"))
    assert ds.version == 3
    assert sorted(ds.to_table().to_pylist(), key=lambda r: r["order_id"]) == [
        {"order_id": 1, "customer": "alice", "amount": 10.5, "country": "DE"},
        {"order_id": 2, "customer": "bob", "amount": 25.0, "country": "FR"},
        {"order_id": 6, "customer": "frank", "amount": 7.25, "country": "DE"},
        {"order_id": 7, "customer": "grace", "amount": 12.0, "country": "FR"},
        {"order_id": 10, "customer": "kim", "amount": 40.0, "country": "DE"}]


def _example_module(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(EXAMPLES))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(EXAMPLES))
    return module


@pytest.mark.parametrize("mode", MODES)
def test_embeddings(mode, request, tmp_path) -> None:
    out = run("embeddings.py", mode, request, "--workdir", str(tmp_path))
    assert "pylance sees 2000 rows, vector type fixed_size_list<item: float>[32]" in out
    for how in ("brute force (numpy)", "flat search (pylance)", "indexed search (pylance)"):
        assert f"{how}: nearest id=1234" in out
    assert "index: [('IVF_FLAT', 2000)] at version 2" in out
    assert "Spark reads 2000 rows after the index, vector 1234 unchanged: True" in out
    # What Spark wrote, value by value: the vectors the example made, as float32, by id.
    ds = lance.dataset(str(tmp_path / "items.lance"))
    table = ds.to_table().sort_by("id")
    assert table["id"].to_pylist() == list(range(2000))
    written = np.stack(table["vector"].combine_chunks().flatten().to_numpy().reshape(2000, 32))
    assert np.array_equal(written, _example_module("embeddings").make_vectors())
    assert [(i.index_type, i.field_names, i.num_rows_indexed) for i in ds.describe_indices()] == [("IVF_FLAT", ["vector"], 2000)]


def _objects(out: str, which: str) -> tuple[int, int, dict]:
    """(objects, data files, files per folder) from an example's line about `which` bucket."""
    line = lines(out, f"{which} ")[0]
    counts, folders = line.split(": ", 1)[1].split("; per folder ")
    objects, data = (int(part.split()[0]) for part in counts.split(", "))
    return objects, data, ast.literal_eval(folders)


@pytest.mark.parametrize("mode", MODES)
def test_multi_bucket_s3(mode, request, s3_server, s3_jars, bucket2) -> None:
    e = s3_server
    prefix = f"example-{mode}"
    jars = ["--jars", s3_jars] if mode == "classic" else []
    out = run("multi_bucket_s3.py", mode, request, "--endpoint", e.endpoint, "--access-key", e.access_key,
              "--secret-key", e.secret_key, "--region", e.region, "--bucket", e.bucket, "--bucket2", bucket2,
              "--prefix", prefix, *jars)
    assert "added bases: [(2, 'recent')]" in out
    _, data, folders = _objects(out, "bucket")
    assert data == 2 and folders["events.lance/data"] == 2 and folders["events.lance/_transactions"] == 4
    objects2, data2, folders2 = _objects(out, "bucket2")
    assert (objects2, data2, folders2) == (3, 3, {"events_archive": 2, "events_recent": 1})
    assert f"read back: 12 rows, ids {list(range(12))}, version 4" in out
    # pylance reads every version from both buckets.
    uri = f"s3://{e.bucket}/{prefix}/events.lance"
    for version, ids in ((1, range(6)), (2, range(10)), (3, range(10)), (4, range(12))):
        ds = lance.dataset(uri, version=version, storage_options=e.pylance_options())
        assert sorted(ds.to_table().to_pylist(), key=lambda r: r["id"]) == [
            {"id": i, "name": f"event-{i}"} for i in ids], f"version {version}"


@pytest.mark.parametrize("mode", MODES)
def test_branch_release(mode, request, tmp_path) -> None:
    out = run("branch_release.py", mode, request, "--workdir", str(tmp_path))
    assert "checks passed on candidate: tag release-1 -> candidate version 3" in out
    assert "checks failed on hotfix: 1 row(s) with nulls; branch deleted" in out
    assert "main: 5 rows at version 1" in out
    assert "branches: ['candidate']" in out
    uri = str(tmp_path / "prices.lance")
    ds = lance.dataset(uri)
    assert ds.version == 1 and ds.count_rows() == 5  # main untouched
    assert {k: (v["branch"], v["version"]) for k, v in ds.tags.list().items()} == {"release-1": ("candidate", 3)}
    assert sorted(ds.branches.list()) == ["candidate"]
    released = lance.dataset(uri, version="release-1").to_table().to_pylist()
    assert sorted(released, key=lambda r: r["sku"]) == [
        {"sku": 1, "name": "apple", "price": 1.32, "stock": 50}, {"sku": 2, "name": "pear", "price": 0.99, "stock": 20},
        {"sku": 3, "name": "plum", "price": 2.5, "stock": 0}, {"sku": 4, "name": "fig", "price": 3.0, "stock": 7},
        {"sku": 5, "name": "kiwi", "price": 0.6, "stock": 100}, {"sku": 6, "name": "mango", "price": 2.2, "stock": 12},
        {"sku": 7, "name": "lime", "price": 0.4, "stock": 80}]
    assert "tree/hotfix" not in {str(p.relative_to(tmp_path / "prices.lance")) for p in (tmp_path / "prices.lance").glob("tree/*")}


def test_embeddings_without_pylance_says_how_to_install(tmp_path) -> None:
    # An interpreter without `lance`: a None in sys.modules is how Python marks a module as absent.
    (tmp_path / "sitecustomize.py").write_text("import sys\nsys.modules['lance'] = None\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(PYTHON_DIR)]))
    out = subprocess.run([sys.executable, str(EXAMPLES / "embeddings.py")], capture_output=True, text=True, env=env,
                         cwd=EXAMPLES, timeout=120)
    assert out.returncode == 1
    assert "pip install pylance" in out.stderr
