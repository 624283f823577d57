"""The lane tree's manifest: every extracted file's sha256, checked on every lane start.

Written last at extraction (it is the tree's ``.complete`` marker) from the files just
taken out of the hash-checked wheel; ``problem(root, wheel_sha256)`` then finds any
change before a worker may import from the tree: a file changed, missing or added
(anything on a lane's ``sys.path`` could run, a ``sitecustomize.py`` at its root first
of all), a symlink, or a manifest for another wheel. ``__pycache__`` folders are removed
instead: the worker runs with PYTHONDONTWRITEBYTECODE, so only verified source is
compiled, and a planted .pyc is never read. About 0.2 s for 0.33.0's 3,600 files (48 MB).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from workbench.core.tokenizers.wheels import sha256_file

NAME = ".complete"
MAX_BYTES = 16 << 20  # the manifest itself (0.33.0's is about 400 KB)


def _walk(root: Path):
    """(relative path, path) of every file under ``root``, and every symlink as such."""
    for folder, dirs, files in os.walk(root):
        for d in [d for d in dirs if d == "__pycache__"]:
            shutil.rmtree(Path(folder) / d, ignore_errors=True)
            dirs.remove(d)
        for name in dirs + files:
            p = Path(folder) / name
            if p.is_symlink() or name in files:
                yield p.relative_to(root).as_posix(), p


def write(root: Path, wheel_sha256: str) -> None:
    files = {rel: sha256_file(p) for rel, p in _walk(root) if rel != NAME}
    (root / NAME).write_text(json.dumps({"wheel_sha256": wheel_sha256, "files": files}, indent=0) + "\n")


def problem(root: Path, wheel_sha256: str) -> str | None:
    """Why the tree at ``root`` must not run (None: it is the wheel's, file for file)."""
    from workbench.core import door

    if not (root / NAME).is_file():
        return "no manifest (not extracted, interrupted, or extracted by an older workbench)"
    try:
        manifest = door.read_json(root / NAME, "lane manifest", max_bytes=MAX_BYTES)
    except door.InputError as e:
        return f"its manifest is unreadable ({e})"
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict) or manifest.get("wheel_sha256") != wheel_sha256:
        return "its manifest is not the locked wheel's"
    seen = set()
    for rel, p in _walk(root):
        if rel == NAME:
            continue
        if p.is_symlink() or not p.is_file():
            return f"{rel} is {'a symlink' if p.is_symlink() else 'not a regular file'}"
        if rel not in files:
            return f"{rel} is not from the wheel"
        if sha256_file(p) != files[rel]:
            return f"{rel} differs from the wheel"
        seen.add(rel)
    missing = next((rel for rel in files if rel not in seen), None)
    return f"{missing} is missing" if missing else None
