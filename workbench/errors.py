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

    def _render_traceback_(self) -> list[str]:
        """IPython shows this one line in a notebook cell instead of a traceback
        (``wb.step()``, ``Workbench(...)`` called from a cell)."""
        return [f"{type(self).__name__}: {self}"]


class LaneFailed(RuntimeError):
    """A version lane's worker raised something other than a WorkbenchError: a bug, not bad
    input. ``str()`` is one line (the lane, the op, the exception); ``worker_traceback`` is
    the worker's own traceback, which the CLI's boundary keeps in a file and the widget's
    banner shows under the line."""

    exit_code = 2

    def __init__(self, message: str, worker_traceback: str = "") -> None:
        super().__init__(message)
        self.worker_traceback = worker_traceback


def close_matches(name: str, choices: Iterable[str], n: int = 3) -> str:
    """' (did you mean: a, b?)' or '' — for unknown-name messages."""
    matches = difflib.get_close_matches(name, list(choices), n=n, cutoff=0.5)
    return f" (did you mean: {', '.join(matches)}?)" if matches else ""
