"""The workbench's cache folder: ``$WORKBENCH_CACHE``, else ``<repo>/.cache`` (tokenizers, models,
wheels, lanes' trees)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def cache_dir() -> Path:
    return Path(os.environ.get("WORKBENCH_CACHE") or REPO_ROOT / ".cache")


def write_folder(folder: Path, files: dict[str, bytes]) -> None:
    """``folder`` holding exactly ``files`` (name -> bytes), replacing what it held."""
    # Beside the target, then renamed: an interrupted build never leaves a folder that
    # looks complete.
    tmp = folder.with_name(f".{folder.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        for file, data in files.items():
            (tmp / file).write_bytes(data)
        if folder.exists():
            shutil.rmtree(folder)
        tmp.rename(folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
