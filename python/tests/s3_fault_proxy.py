"""A fault-injecting HTTP proxy for the S3 tests, on 127.0.0.1 only: S3A talks to it as its
endpoint, it forwards every request byte for byte to the S3 test server (s3_server.py), and a
test tells it which requests to spoil and how:

- `LOSE`: forward the request, let the server store it and answer, then reset the client's
  connection instead of passing the answer on (the client cannot tell whether the PUT landed;
  S3A and the AWS SDK retry it, and the retry of a conditional PUT then gets 412);
- `SLOW_DOWN`: answer 503 SlowDown (an S3 XML error) without forwarding: nothing is stored;
- `CONFLICT`: answer 409 ConditionalRequestConflict without forwarding, as S3 answers a
  conditional PUT while another conditional write of the key is in flight: nothing is stored;
- `DELAY`: forward, hold the server's answer `delay` seconds (past the client's request
  timeout), then pass it on or, with `then=LOSE`, reset the connection.

Rules match a method and a regular expression on the object key (the path after the bucket)
and optionally on the query (`uploadId=` for multipart parts and completion). A rule fires on
matching requests `times` times (None: always) after letting `skip` of them through, each with
`probability` (drawn from a seeded generator: the same sequence of matches gets the same
faults). Rules and their counts are guarded by one lock: a test may add rules while S3A's
threads send requests. `proxy.requests` records every request and what happened to it.

Bounded everywhere: sockets have timeouts, heads and chunk lines a size limit, delays end at
`stop()`, and `stop()` closes every connection and joins the threads with a limit.

The request is forwarded verbatim, Host header included, so that SigV4 signatures (which cover
the Host the client sent) still verify at the server. HTTP/1.1 keep-alive, Content-Length and
chunked bodies both ways, `Expect: 100-continue`, and bodiless answers (HEAD, 1xx, 204, 304)
are handled; each client connection has its own connection to the server.
"""

from __future__ import annotations

import contextlib
import random
import re
import socket
import struct
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterator

LOSE = "lose"
SLOW_DOWN = "slow_down"
CONFLICT = "conflict"
DELAY = "delay"
KINDS = (LOSE, SLOW_DOWN, CONFLICT, DELAY)

# Object keys by the kind of Lance file (the key follows the bucket in a path-style URL).
MANIFEST = r"/_versions/[^/]+\.manifest$"
DATA = r"/data/[^/]+\.lance$"
DELETION = r"/_deletions/[^/]+$"
INDEX = r"/_indices/.+"
TRANSACTION = r"/_transactions/[^/]+$"

MAX_HEAD = 64 * 1024
MAX_LINE = 8 * 1024
IO_TIMEOUT = 60.0  # a peer silent this long is gone
MAX_DELAY = 120.0
COPY_BLOCK = 64 * 1024
SLOW_DOWN_BODY = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
                  b"<Message>Please reduce your request rate.</Message><Resource>%s</Resource>"
                  b"<RequestId>fault-proxy</RequestId></Error>")
CONFLICT_BODY = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>ConditionalRequestConflict</Code>'
                 b"<Message>A conflicting conditional operation is currently in progress against this resource."
                 b" Please try again.</Message><Resource>%s</Resource><RequestId>fault-proxy</RequestId></Error>")
# The refusals answered without forwarding: status line and body.
REFUSALS = {SLOW_DOWN: (b"503 Slow Down", SLOW_DOWN_BODY), CONFLICT: (b"409 Conflict", CONFLICT_BODY)}


@dataclass
class Rule:
    kind: str
    method: str
    path: re.Pattern
    query: re.Pattern | None
    times: int | None
    skip: int
    probability: float
    delay: float
    then: str
    rng: random.Random
    seen: int = 0  # matching requests
    fired: int = 0  # faults injected

    def matches(self, method: str, key: str, query: str) -> bool:
        return (method == self.method and self.path.search(key) is not None
                and (self.query is None or self.query.search(query) is not None))


@dataclass(frozen=True)
class Request:
    method: str
    key: str
    query: str
    status: int | None  # the server's status (None: not forwarded, or no answer)
    fault: str | None


@dataclass(eq=False)  # hashed by identity: kept in a set
class _Conn:
    sock: socket.socket
    rfile: object = field(init=False)

    def __post_init__(self) -> None:
        self.sock.settimeout(IO_TIMEOUT)
        self.rfile = self.sock.makefile("rb")

    def close(self, reset: bool = False) -> None:
        with contextlib.suppress(OSError):
            if reset:  # RST rather than FIN: the client sees "connection reset", not a clean end
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.rfile.close()
            self.sock.close()


class _Dropped(Exception):
    """The connection is to be closed (a peer went away or spoke something unexpected)."""


def _read_head(conn: _Conn) -> bytes | None:
    """One message head (start line and headers, up to the blank line); None at a clean end."""
    lines = []
    size = 0
    while True:
        line = conn.rfile.readline(MAX_LINE + 1)
        if not line:
            if lines:
                raise _Dropped("end of stream inside a head")
            return None
        if len(line) > MAX_LINE or not line.endswith(b"\n"):
            raise _Dropped("head line too long or cut")
        if not lines and line in (b"\r\n", b"\n"):
            continue  # stray empty line between messages (RFC 9112 section 2.2)
        lines.append(line)
        size += len(line)
        if size > MAX_HEAD:
            raise _Dropped("head too large")
        if line in (b"\r\n", b"\n"):
            return b"".join(lines)


def _headers(head: bytes) -> dict[str, str]:
    out = {}
    for line in head.split(b"\r\n")[1:]:
        if b":" in line:
            name, value = line.split(b":", 1)
            out[name.decode("latin-1").strip().lower()] = value.decode("latin-1").strip()
    return out


def _read_exact(conn: _Conn, n: int) -> bytes:
    data = conn.rfile.read(n)
    if len(data) != n:
        raise _Dropped("end of stream inside a body")
    return data


def _discard(data: bytes) -> None:
    pass


def _copy_body(src: _Conn, send: Callable[[bytes], None], headers: dict[str, str], until_close: bool) -> None:
    """Reads one message body from `src` and hands it, verbatim and in pieces, to `send`."""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        while True:
            line = src.rfile.readline(MAX_LINE + 1)
            if not line.endswith(b"\n") or len(line) > MAX_LINE:
                raise _Dropped("bad chunk size line")
            send(line)
            size = int(line.split(b";", 1)[0].strip(), 16)
            if size == 0:
                for _ in range(256):  # trailers, then the blank line
                    trailer = src.rfile.readline(MAX_LINE + 1)
                    if not trailer.endswith(b"\n"):
                        raise _Dropped("bad trailer")
                    send(trailer)
                    if trailer in (b"\r\n", b"\n"):
                        return
                raise _Dropped("too many trailers")
            left = size + 2  # the chunk and its CRLF
            while left:
                data = _read_exact(src, min(left, COPY_BLOCK))
                send(data)
                left -= len(data)
    elif "content-length" in headers:
        left = int(headers["content-length"])
        while left:
            data = _read_exact(src, min(left, COPY_BLOCK))
            send(data)
            left -= len(data)
    elif until_close:
        while data := src.rfile.read1(COPY_BLOCK):
            send(data)


def _status(head: bytes) -> int:
    parts = head.split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/"):
        raise _Dropped("not an HTTP response")
    return int(parts[1])


class FaultProxy:
    def __init__(self, upstream: str, seed: int = 28):
        host, port = upstream.removeprefix("http://").rstrip("/").rsplit(":", 1)
        self.upstream = (host, int(port))
        self._seed = seed
        self._lock = threading.Lock()
        self._rules: list[Rule] = []
        self._requests: list[Request] = []
        self._stop = threading.Event()
        self._conns: set[_Conn] = set()
        self._threads: list[threading.Thread] = []
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self._listener.settimeout(0.2)
        self.endpoint = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._accepting = threading.Thread(target=self._accept, name="fault-proxy-accept", daemon=True)
        self._accepting.start()

    # ---- rules ---------------------------------------------------------------------------

    def fail(self, kind: str, match: str, method: str = "PUT", query: str | None = None, times: int | None = 1,
             skip: int = 0, probability: float = 1.0, delay: float = 0.0, then: str = "forward") -> Rule:
        """Adds a rule (see the module's doc); returns it, whose `fired` counts the faults."""
        if kind not in KINDS:
            raise ValueError(f"unknown fault {kind!r}: one of {KINDS}")
        if kind == DELAY and not 0 < delay <= MAX_DELAY:
            raise ValueError(f"a delay needs 0 < delay <= {MAX_DELAY} s, not {delay}")
        if then not in ("forward", LOSE):
            raise ValueError(f"then is 'forward' or {LOSE!r}, not {then!r}")
        with self._lock:
            rule = Rule(kind, method, re.compile(match), re.compile(query) if query else None, times, skip,
                        probability, delay, then, random.Random(self._seed + len(self._rules)))
            self._rules.append(rule)
        return rule

    def clear(self) -> None:
        """Removes every rule and forgets the recorded requests."""
        with self._lock:
            self._rules.clear()
            self._requests.clear()

    @property
    def requests(self) -> list[Request]:
        with self._lock:
            return list(self._requests)

    def fired(self) -> Counter:
        """Faults injected so far, by kind."""
        with self._lock:
            return Counter({k: sum(r.fired for r in self._rules if r.kind == k) for k in KINDS})

    def _choose(self, method: str, key: str, query: str) -> Rule | None:
        with self._lock:
            for rule in self._rules:
                if not rule.matches(method, key, query):
                    continue
                rule.seen += 1
                if rule.seen <= rule.skip or (rule.times is not None and rule.fired >= rule.times):
                    continue
                if rule.probability < 1.0 and rule.rng.random() >= rule.probability:
                    continue
                rule.fired += 1
                return rule
        return None

    def _record(self, request: Request) -> None:
        with self._lock:
            if len(self._requests) < 100_000:
                self._requests.append(request)

    # ---- serving -------------------------------------------------------------------------

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                sock, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            t = threading.Thread(target=self._serve, args=(sock,), name="fault-proxy-conn", daemon=True)
            with self._lock:
                self._threads = [x for x in self._threads if x.is_alive()]
                self._threads.append(t)
            t.start()

    def _track(self, conn: _Conn) -> _Conn:
        with self._lock:
            self._conns.add(conn)
        return conn

    def _serve(self, sock: socket.socket) -> None:
        client = self._track(_Conn(sock))
        server: _Conn | None = None
        try:
            while not self._stop.is_set():
                head = _read_head(client)
                if head is None:
                    return
                if server is None:
                    server = self._track(_Conn(socket.create_connection(self.upstream, timeout=IO_TIMEOUT)))
                if not self._exchange(client, server, head):
                    return
        except (_Dropped, OSError, ValueError):
            return
        finally:
            for c in (client, server):
                if c is not None:
                    c.close()
                    with self._lock:
                        self._conns.discard(c)

    def _exchange(self, client: _Conn, server: _Conn, head: bytes) -> bool:
        """One request and its answer; False when the client connection is to be closed."""
        start = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
        if len(start) != 3:
            raise _Dropped("bad request line")
        method, target = start[0], start[1]
        path, _, query = target.partition("?")
        key = "/" + path.lstrip("/").partition("/")[2]  # the object key, after the bucket
        headers = _headers(head)
        rule = self._choose(method, key, query)

        if rule is not None and rule.kind in REFUSALS:
            if "100-continue" not in headers.get("expect", "").lower():
                _copy_body(client, _discard, headers, until_close=False)  # read it, so the answer is heard
            status, template = REFUSALS[rule.kind]
            body = template % path.encode("latin-1")
            client.sock.sendall(b"HTTP/1.1 %s\r\nContent-Type: application/xml\r\n"
                                b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (status, len(body), body))
            self._record(Request(method, key, query, None, rule.kind))
            return False

        server.sock.sendall(head)
        if "100-continue" in headers.get("expect", "").lower():
            answer = _read_head(server)
            if answer is not None and _status(answer) == 100:
                client.sock.sendall(answer)
                _copy_body(client, server.sock.sendall, headers, until_close=False)
                answer = _read_head(server)
            elif answer is not None:
                # A final answer to the head alone: the client will not send the body, and the
                # server may not read it, so neither connection is reusable after this answer.
                self._answer(client, server, method, key, query, answer, rule, keep=False)
                return False
        else:
            _copy_body(client, server.sock.sendall, headers, until_close=False)
            answer = _read_head(server)
        while answer is not None and 100 <= _status(answer) < 200:
            client.sock.sendall(answer)  # an interim answer (a stray 100) passes through
            answer = _read_head(server)
        if answer is None:
            raise _Dropped("server closed before answering")
        keep = "close" not in headers.get("connection", "").lower()
        return self._answer(client, server, method, key, query, answer, rule, keep)

    def _answer(self, client: _Conn, server: _Conn, method: str, key: str, query: str, answer: bytes,
                rule: Rule | None, keep: bool) -> bool:
        """Passes the server's answer on, or spoils it as `rule` says."""
        status = _status(answer)
        answer_headers = _headers(answer)
        bodiless = method == "HEAD" or status in (204, 304) or 100 <= status < 200
        until_close = not bodiless and "content-length" not in answer_headers \
            and "chunked" not in answer_headers.get("transfer-encoding", "").lower()
        keep = keep and not until_close and "close" not in answer_headers.get("connection", "").lower()
        if rule is None:
            client.sock.sendall(answer)
            if not bodiless:
                _copy_body(server, client.sock.sendall, answer_headers, until_close)
            self._record(Request(method, key, query, status, None))
            return keep
        # The fault: read the whole answer first, so that the server has finished the request.
        body = bytearray()
        if not bodiless:
            _copy_body(server, body.extend, answer_headers, until_close)
        self._record(Request(method, key, query, status, rule.kind))
        if rule.kind == DELAY:
            self._stop.wait(rule.delay)
            if rule.then == "forward" and not self._stop.is_set():
                client.sock.sendall(answer + bytes(body))  # to a client that may have gone: then OSError
                return keep
        client.close(reset=True)
        return False

    def stop(self) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):
            self._listener.close()
        self._accepting.join(5)
        with self._lock:
            conns = list(self._conns)
            threads = list(self._threads)
        for c in conns:
            c.close()
        deadline = time.monotonic() + 10
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))

    @classmethod
    @contextlib.contextmanager
    def started(cls, upstream: str, seed: int = 28) -> Iterator["FaultProxy"]:
        proxy = cls(upstream, seed)
        try:
            yield proxy
        finally:
            proxy.stop()

