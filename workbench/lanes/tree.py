"""A locked vLLM version's pure-Python tree under .cache/vllm/<version>/.

The wheel is fetched with ``pip download --no-deps``, its sha256 checked against the
lock, and only ``vllm/**`` Python files and small data files are extracted (no
compiled extensions: a lane parses, it never runs a kernel). Extraction goes to a
temporary folder that is renamed into place at the end, so a half-extracted tree
is never used; the ``.complete`` marker (the wheel's sha256) is written last. The
tree's manifest (``manifest.py``: every file's sha256) is checked on every use: a tree
that is not the wheel's, file for file, is never run; it is extracted again from the
hash-checked wheel.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.tokenizers.wheels import fetch_wheel
from workbench.lanes import manifest
from workbench.lanes.versions import LaneVersion, check, locked
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Callable

DATA_SUFFIXES = (".py", ".json", ".jinja", ".typed")
# The dist-info lets importlib.metadata inside a lane report the lane's version.
DIST_FILES = ("METADATA", "top_level.txt")
MARKER = manifest.MARKER


def cache_root() -> Path:
    from workbench.core.tokenizers import cache_dir

    return cache_dir() / "vllm"


def tree_path(version: str) -> Path:
    return cache_root() / version


def _wanted(name: str) -> bool:
    if name.startswith("vllm/"):
        return name.endswith(DATA_SUFFIXES) and "/third_party/" not in name
    head, _, tail = name.partition("/")
    return head.endswith(".dist-info") and tail in DIST_FILES


def _wheel(entry: LaneVersion) -> Path:
    from workbench.core.tokenizers import cache_dir

    return fetch_wheel("vllm", entry.version, entry.sha256, cache_dir() / "wheels")


def manifest_sha256(entry: LaneVersion) -> str:
    """What the tree's manifest must hash to: the lock's ``tree=``, else the wheel's own."""
    return manifest.expected_sha256(entry.sha256, entry.tree, "tree", lambda: _wheel(entry),
                                    lambda names: {n: n for n in names if _wanted(n)})


def extract(wheel: Path, entry: LaneVersion) -> Path:
    """Extract ``wheel``'s Python tree to tree_path(version), atomically."""
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    final = tree_path(entry.version)
    tmp = Path(tempfile.mkdtemp(prefix=f".{entry.version}.", dir=root))
    try:
        try:
            with zipfile.ZipFile(wheel) as zf:
                for info in zf.infolist():
                    if _wanted(info.filename) and not info.is_dir():
                        zf.extract(info, tmp)
        except (zipfile.BadZipFile, OSError) as e:
            raise WorkbenchError(f"{wheel.name}: cannot extract: {e}") from None
        if not (tmp / "vllm" / "__init__.py").is_file():
            raise WorkbenchError(f"{wheel.name}: no vllm/__init__.py inside")
        written = manifest.write(tmp, entry.sha256)
        if written != manifest_sha256(entry):
            raise WorkbenchError(f"vllm lane {entry.version}: the tree extracted from {wheel.name} has manifest "
                                 f"sha256 {written}, not the {manifest_sha256(entry)} setup/vllm-lanes.lock states")
        _replace(tmp, final, entry)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return final


def _replace(tmp: Path, final: Path, entry: LaneVersion) -> None:
    manifest.put_in_place(tmp, final, entry.sha256, lambda: manifest_sha256(entry), f"vllm lane {entry.version}")


def ensure(version: str, progress: Callable[[str], None] | None = None) -> Path:
    """The extracted tree of a locked version, fetching and extracting it if needed."""
    version = check(version)
    entry = locked().get(version)
    if entry is None:
        raise WorkbenchError(f"vLLM {version} is the installed version; it needs no lane")
    from workbench.core.writing import terminal

    tell = progress or (lambda msg: terminal.say("{}", msg, err=True))
    why = manifest.problem(tree_path(version), entry.sha256, lambda: manifest_sha256(entry))
    if why is None:
        return tree_path(version)
    if tree_path(version).exists():
        tell(f"vllm lane {version}: the tree under {tree_path(version)} is not the wheel's ({why}): "
            f"extracting it again")
    from workbench.core.tokenizers import cache_dir

    wheels = cache_dir() / "wheels"
    cached = (wheels / entry.wheel).is_file()
    tell(f"vllm lane {version}: {'checking' if cached else 'downloading'} {entry.wheel}"
        f"{'' if cached else ' from PyPI (about 340 MB, once; cached in .cache/wheels/)'}")
    wheel = fetch_wheel("vllm", version, entry.sha256, wheels)
    tell(f"vllm lane {version}: extracting its Python tree to {tree_path(version)}")
    return extract(wheel, entry)


def main(argv: list[str]) -> int:
    """python -m workbench.lanes.tree fetch [VERSION...]: fetch and extract locked versions."""
    from workbench.core.writing import terminal

    if not argv or argv[0] != "fetch":
        terminal.say("usage: python -m workbench.lanes.tree fetch [VERSION...]", err=True)
        return 2
    try:
        for v in argv[1:] or list(locked()):
            terminal.say("vllm lane {}: {}", v, ensure(v))
    except WorkbenchError as e:
        terminal.say("lanes: error: {}", e, err=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
