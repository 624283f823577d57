"""mypy is clean on workbench/core (settings in pyproject.toml: vLLM and the other heavy
libraries are not followed, so this takes seconds; its cache is .mypy_cache/, per checkout)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_is_clean_on_the_core():
    out = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(ROOT / ".mypy_cache")],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no issues found" in out.stdout and "source files" in out.stdout
