"""The workbench's cache folder: ``$WORKBENCH_CACHE``, else ``<repo>/.cache`` (tokenizers, models,
wheels, lanes' trees)."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def cache_dir() -> Path:
    return Path(os.environ.get("WORKBENCH_CACHE") or REPO_ROOT / ".cache")
