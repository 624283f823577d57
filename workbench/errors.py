"""The one exception type the workbench raises for bad input.

Every user-facing entry point (CLI, widget) catches ``WorkbenchError`` and shows
its message as one line; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class WorkbenchError(Exception):
    """Bad input or an unusable environment, explained in one line."""

    exit_code = 2


def close_matches(name: str, choices: Iterable[str], n: int = 3) -> str:
    """' (did you mean: a, b?)' or '' — for unknown-name messages."""
    matches = difflib.get_close_matches(name, list(choices), n=n, cutoff=0.5)
    return f" (did you mean: {', '.join(matches)}?)" if matches else ""
