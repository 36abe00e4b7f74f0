"""The S3 test server speaks S3 as pylance needs it: signed requests, path-style addressing and
the conditional PUT (`If-None-Match: *`) that pylance commits manifests with."""

from __future__ import annotations

import lance
import pyarrow as pa
import pytest


def test_pylance_commits_versions_on_the_test_server(s3_server):
    uri = f"s3://{s3_server.bucket}/pytest/server_check"
    options = s3_server.pylance_options()
    lance.write_dataset(pa.table({"x": [1, 2, 3]}), uri, storage_options=options)
    lance.write_dataset(pa.table({"x": [4]}), uri, mode="append", storage_options=options)
    ds = lance.dataset(uri, storage_options=options)
    assert ds.version == 2
    assert sorted(ds.to_table()["x"].to_pylist()) == [1, 2, 3, 4]


def test_unsigned_or_wrongly_signed_requests_are_refused(s3_server):
    options = dict(s3_server.pylance_options(), aws_secret_access_key="not-the-secret")
    with pytest.raises(OSError):
        lance.write_dataset(pa.table({"x": [1]}), f"s3://{s3_server.bucket}/pytest/refused", storage_options=options)
