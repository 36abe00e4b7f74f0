"""A command_proc.py application driven from a test: one Spark application of its own settings
that runs commands sent one at a time (the S3 fault tests, the kill tests)."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

COMMANDS = Path(__file__).with_name("command_proc.py")
COMMAND_TIMEOUT_S = 240


class Commands:
    """A command_proc.py application; `run` sends one command and waits for its answer."""

    def __init__(self, conf: dict, log: Path):
        self.log = log
        with open(log, "w") as err:
            # A session of its own: `kill` takes the Python process and its Spark JVM together.
            self.proc = subprocess.Popen([sys.executable, str(COMMANDS), json.dumps(conf)], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True,
                                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(l) for l in self.proc.stdout], daemon=True).start()

    def ready(self) -> "Commands":
        assert self._next(300, "ready") == "ready", self.log.read_text()[-3000:]
        return self

    def _next(self, timeout: float, what: str) -> str:
        try:
            return self.lines.get(timeout=timeout).strip()
        except queue.Empty:
            raise AssertionError(f"no {what} from the Spark application in {timeout} s: "
                                 f"{self.log.read_text()[-3000:]}") from None

    def send(self, command: dict) -> None:
        """Sends a command without waiting for its answer."""
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()

    def answer(self, timeout: float = COMMAND_TIMEOUT_S) -> dict:
        return json.loads(self._next(timeout, "answer"))

    def run(self, command: dict) -> dict:
        self.send(command)
        return self.answer()

    def write(self, query: str, uri: str, mode: str, **options: str) -> dict:
        return self.run({"write": {"query": query, "uri": uri, "mode": mode, "options": options}})

    def sql(self, statement: str) -> dict:
        return self.run({"sql": statement})

    def kill(self) -> None:
        """SIGKILL the application and its JVM at once (its whole process group)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(30)

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(60)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(10)
