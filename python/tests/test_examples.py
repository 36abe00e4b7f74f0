"""Every example in examples/ runs to the end on its small data (a changed API breaks a test, not a user)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PYTHON_DIR = Path(__file__).resolve().parents[1]


def run(example: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR), PYSPARK_PYTHON=sys.executable)
    out = subprocess.run([sys.executable, str(EXAMPLES / example)], capture_output=True, text=True, env=env,
                         cwd=EXAMPLES, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_quickstart() -> None:
    out = run("quickstart.py")
    assert "Names with a score above 90: ['ada', 'barbara']" in out
    # The history: five versions, the last the compaction.
    history = [line for line in out.splitlines() if line.startswith("|      ")]
    assert [line.split("|")[2].strip() for line in history[-5:]] == ["Overwrite", "Append", "Update", "Delete", "Rewrite"]


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.py") if p.name != "quickstart.py"))
def test_example_runs(example: str) -> None:
    run(example)
