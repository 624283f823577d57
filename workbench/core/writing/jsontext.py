"""JSON for stdout and for files (``--json``, recordings, results lines): strict (no
``NaN``/``Infinity``: they become ``null``), and no character a terminal or an editor
would act on left raw. ``json.dumps`` escapes C0 only; DEL, C1, the bidi controls and
U+2028/9 are escaped here as ``\\uXXXX``, so the text parses back to the same value.
"""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

_RAW = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def safe(text: str) -> str:
    """JSON text with the characters ``json.dumps`` leaves raw escaped (inside strings
    only: outside them JSON holds none of these)."""
    return _RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if _RAW.search(text) else text


def dumps(value: Any, indent: int | None = None, *, compact: bool = False) -> str:
    """``value`` as strict, safe JSON text; non-finite floats become null; ``compact``:
    no spaces after separators (one line per record)."""
    seps = (",", ":") if compact else None
    try:
        text = json.dumps(value, ensure_ascii=False, default=str, allow_nan=False, indent=indent, separators=seps)
    except ValueError:
        text = json.dumps(_finite(value), ensure_ascii=False, default=str, allow_nan=False, indent=indent,
                          separators=seps)
    return safe(text)


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
