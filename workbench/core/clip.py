"""The one way a value is shown clipped in a one-line message: its repr, cut with "…"."""

from __future__ import annotations

from typing import Any


def clip(value: Any, width: int = 40) -> str:
    """``repr(value)``, at most ``width`` characters (the last one "…" when cut)."""
    s = repr(value)
    return s if len(s) <= width else s[: width - 1] + "…"
