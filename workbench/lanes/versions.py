"""Which vLLM versions exist for the workbench: the installed one, and the lock's lanes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workbench.errors import WorkbenchError

REPO_ROOT = Path(__file__).resolve().parents[2]
LOCK_FILE = REPO_ROOT / "setup" / "vllm-lanes.lock"
LANE_ENV = "WORKBENCH_IN_LANE"  # set in a lane worker's environment: the version it runs


@dataclass(frozen=True)
class LaneVersion:
    version: str
    wheel: str  # the wheel's file name, as pip download saves it
    sha256: str
    # the sha256 of the extracted tree's and vllm-rs folder's manifests (lanes/manifest.py),
    # kept here, outside the cache; None: computed from the wheel on first use
    tree: str | None = None
    vllm_rs: str | None = None


def installed() -> str:
    from workbench.core.vllm_version import vllm_version

    return vllm_version()


def locked(path: Path | None = None) -> dict[str, LaneVersion]:
    """The lock's versions; a malformed line fails with its line number."""
    path = path or LOCK_FILE
    out: dict[str, LaneVersion] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise WorkbenchError(f"lane lock {path}: {e.strerror}") from None
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        extra = dict(p.partition("=")[::2] for p in parts[3:])
        if len(parts) < 3 or len(parts[2]) != 64 or set(extra) - {"tree", "vllm-rs"} \
                or any(len(v) != 64 for v in extra.values()):
            raise WorkbenchError(f"lane lock {path.name} line {n}: expected VERSION WHEEL SHA256 "
                                 f"[tree=SHA256] [vllm-rs=SHA256]")
        out[parts[0]] = LaneVersion(*parts[:3], tree=extra.get("tree"), vllm_rs=extra.get("vllm-rs"))
    return out


def listed() -> list[str]:
    """Every version a --vllm flag accepts, the installed one first."""
    here = installed()
    return [here] + [v for v in locked() if v != here]


def check(version: str) -> str:
    """``version`` if it is installed or locked, else a WorkbenchError naming the listed ones."""
    version = version.strip()
    names = listed()
    if version not in names:
        shown = ", ".join(f"{v} (installed)" if i == 0 else v for i, v in enumerate(names))
        raise WorkbenchError(f"unknown vLLM version {version!r}; listed: {shown} "
                             f"(add a line to setup/vllm-lanes.lock for another)")
    return version


def in_lane() -> str | None:
    """The version whose lane this process is, or None in the user's own process."""
    import os

    return os.environ.get(LANE_ENV) or None


def is_installed(version: str | None) -> bool:
    return version is None or version == installed()


def parse_list(text: str) -> list[str]:
    """'0.32.0,0.33.0' -> checked versions, in order, without repeats."""
    out: list[str] = []
    for part in text.split(","):
        if part.strip():
            v = check(part)
            if v not in out:
                out.append(v)
    if not out:
        raise WorkbenchError("--vllm needs at least one version")
    return out
