"""The table API on the S3 test server through s3a (classic PySpark only: a Connect server would
need the s3a jars and confs at its start too), with pylance reading the result from the server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import lance

from conftest import s3_conf

HERE = Path(__file__).resolve().parent


def test_table_api_on_s3a(s3_server, s3_jars):
    key = "pytest/table_api_s3"
    run = subprocess.run([sys.executable, str(HERE / "table_api_s3_proc.py"), f"s3a://{s3_server.bucket}/{key}",
                          json.dumps(s3_conf(s3_server, s3_jars))], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["version"] == 3 and got["history"] == [1, 2, 3] and got["tag"] == 1
    assert got["rows"] == [[0, "r0"], [1, "r1"], [2, "r2"], [10, "s0"], [11, "s1"], [12, "s2"]]
    assert got["tags"] == {"first": 1}
    # Versions 4 (delete) and 5 (update) leave 3 + 1 fragments; the compaction makes one (version 6).
    assert got["compacted"][1:] == [1, 6]
    assert got["dry"] == [True, 4]  # versions 2 to 5: version 1 is tagged, 6 is the latest
    assert got["final"] == [[0, "r0"], [1, "r1"], [2, "r2"], [11, "eleven"], [12, "s2"]]
    assert got["first"] == [0, 10]

    ds = lance.dataset(f"s3://{s3_server.bucket}/{key}", storage_options=s3_server.pylance_options())
    assert ds.version == 6 and len(ds.get_fragments()) == 1
    assert [v["version"] for v in ds.versions()] == [1, 2, 3, 4, 5, 6]
    assert {n: t["version"] for n, t in ds.tags.list().items()} == {"first": 1}
    t = ds.to_table().to_pydict()
    assert sorted(zip(t["id"], t["name"])) == [(0, "r0"), (1, "r1"), (2, "r2"), (11, "eleven"), (12, "s2")]
