"""The fault proxy itself (s3_fault_proxy.py), driven by pyarrow's S3 client with its retries
off, so that each fault reaches the caller: requests pass through unchanged (signatures verify,
multipart uploads complete), and each fault does what it says: a lost answer after the object is
stored, a 503 SlowDown with nothing stored, an answer held past the client's timeout."""

from __future__ import annotations

import http.client
import time

import pytest
from pyarrow import fs as pafs

from s3_fault_proxy import CONFLICT, DELAY, LOSE, SLOW_DOWN, FaultProxy

BIG = 11 * 1024 * 1024  # past pyarrow's first part (10 MiB): a multipart upload


def _fs(endpoint: str, s3, request_timeout: float = 10) -> pafs.S3FileSystem:
    return pafs.S3FileSystem(access_key=s3.access_key, secret_key=s3.secret_key, region=s3.region, scheme="http",
                             endpoint_override=endpoint.removeprefix("http://"), request_timeout=request_timeout,
                             connect_timeout=5, retry_strategy=pafs.AwsStandardS3RetryStrategy(0),
                             allow_delayed_open=True)  # a small file is then one PUT, as a manifest is


def _put(fs: pafs.S3FileSystem, path: str, data: bytes) -> None:
    with fs.open_output_stream(path) as out:
        out.write(data)


def _get(fs: pafs.S3FileSystem, path: str) -> bytes | None:
    try:
        with fs.open_input_stream(path) as f:
            return f.read()
    except FileNotFoundError:
        return None


@pytest.fixture(scope="module")
def proxy(s3_server):
    with FaultProxy.started(s3_server.endpoint) as p:
        yield p


@pytest.fixture()
def clean(proxy):
    proxy.clear()
    yield proxy
    proxy.clear()


def test_requests_pass_through_unchanged(s3_server, clean):
    via, direct = _fs(clean.endpoint, s3_server), _fs(s3_server.endpoint, s3_server)
    root = f"{s3_server.bucket}/selftest/pass"
    big = bytes(range(256)) * (BIG // 256)
    _put(via, f"{root}/small.bin", b"hello")
    _put(via, f"{root}/big.bin", big)
    assert _get(direct, f"{root}/small.bin") == b"hello"
    assert _get(via, f"{root}/big.bin") == big
    assert via.get_file_info(f"{root}/small.bin").size == 5  # a HEAD: no body to wait for
    assert sorted(i.base_name for i in via.get_file_info(pafs.FileSelector(root))) == ["big.bin", "small.bin"]
    via.delete_file(f"{root}/small.bin")  # a 204
    assert _get(direct, f"{root}/small.bin") is None
    seen = {(r.method, r.key, "uploadId=" in r.query) for r in clean.requests}
    assert ("PUT", "/selftest/pass/big.bin", True) in seen and ("POST", "/selftest/pass/big.bin", True) in seen
    assert all(r.fault is None and r.status < 400 for r in clean.requests if "pass/" in r.key)


def test_a_lost_answer_comes_after_the_object_is_stored(s3_server, clean):
    via, direct = _fs(clean.endpoint, s3_server), _fs(s3_server.endpoint, s3_server)
    rule = clean.fail(LOSE, r"/selftest/lost\.bin$")
    with pytest.raises(OSError):
        _put(via, f"{s3_server.bucket}/selftest/lost.bin", b"stored")
    assert rule.fired == 1
    assert _get(direct, f"{s3_server.bucket}/selftest/lost.bin") == b"stored"
    assert [(r.status, r.fault) for r in clean.requests if r.key.endswith("lost.bin")] == [(200, LOSE)]
    _put(via, f"{s3_server.bucket}/selftest/lost.bin", b"again")  # `times=1`: the next one passes
    assert rule.fired == 1 and _get(direct, f"{s3_server.bucket}/selftest/lost.bin") == b"again"


def test_slow_down_stores_nothing(s3_server, clean):
    via, direct = _fs(clean.endpoint, s3_server), _fs(s3_server.endpoint, s3_server)
    rule = clean.fail(SLOW_DOWN, r"/selftest/slow\.bin$", times=None)
    with pytest.raises(OSError, match="SlowDown|503|reduce"):
        _put(via, f"{s3_server.bucket}/selftest/slow.bin", b"never")
    assert rule.fired == 1
    assert _get(direct, f"{s3_server.bucket}/selftest/slow.bin") is None
    assert [(r.status, r.fault) for r in clean.requests if r.key.endswith("slow.bin")] == [(None, SLOW_DOWN)]


def test_conflict_stores_nothing(s3_server, clean):
    via, direct = _fs(clean.endpoint, s3_server), _fs(s3_server.endpoint, s3_server)
    rule = clean.fail(CONFLICT, r"/selftest/conflict\.bin$", times=None)
    with pytest.raises(OSError, match="ConditionalRequestConflict|409"):
        _put(via, f"{s3_server.bucket}/selftest/conflict.bin", b"never")
    assert rule.fired >= 1
    assert _get(direct, f"{s3_server.bucket}/selftest/conflict.bin") is None
    assert {(r.status, r.fault) for r in clean.requests if r.key.endswith("conflict.bin")} == {(None, CONFLICT)}


def test_an_answer_held_past_the_client_timeout(s3_server, clean):
    """pyarrow has no request timeout on Linux, so a plain HTTP client sends this request
    (unsigned: the server answers 403, which is the answer held)."""
    host, port = clean.endpoint.removeprefix("http://").split(":")
    rule = clean.fail(DELAY, r"/selftest/late\.bin$", delay=3)
    conn = http.client.HTTPConnection(host, int(port), timeout=1)
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        conn.request("PUT", f"/{s3_server.bucket}/selftest/late.bin", body=b"late")
        conn.getresponse()
    conn.close()
    assert time.monotonic() - started < 3, "the client gave up before the answer came"
    # Held, then passed on to a client that waits long enough: it arrives, the server's own.
    clean.fail(DELAY, r"/selftest/later\.bin$", delay=1.5)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    started = time.monotonic()
    conn.request("PUT", f"/{s3_server.bucket}/selftest/later.bin", body=b"later")
    response = conn.getresponse()
    assert response.status == 403 and b"AccessDenied" in response.read()
    conn.close()
    assert time.monotonic() - started >= 1.5
    assert rule.fired == 1
    assert [(r.key, r.status, r.fault) for r in clean.requests] == [
        ("/selftest/late.bin", 403, DELAY), ("/selftest/later.bin", 403, DELAY)]


def test_faults_on_a_multipart_completion_and_probability(s3_server, clean):
    via, direct = _fs(clean.endpoint, s3_server), _fs(s3_server.endpoint, s3_server)
    rule = clean.fail(LOSE, r"/selftest/multi\.bin$", method="POST", query=r"uploadId=")
    big = b"m" * BIG
    with pytest.raises(OSError):
        _put(via, f"{s3_server.bucket}/selftest/multi.bin", big)
    assert rule.fired == 1 and _get(direct, f"{s3_server.bucket}/selftest/multi.bin") == big
    # A probability fires on about that share of the matches, the same ones for the same seed.
    some = clean.fail(SLOW_DOWN, r"/selftest/p/", method="HEAD", times=None, probability=0.5)
    for i in range(40):
        try:
            via.get_file_info(f"{s3_server.bucket}/selftest/p/{i}")
        except OSError:
            pass
    assert some.seen == 40 and 10 <= some.fired <= 30
