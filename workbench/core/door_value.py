"""The door for a value handed over in memory (a notebook's ``Workbench(messages=...)``),
as ``door_parse.py`` is for a text: before anything walks it, its shape is checked in
one pass without recursion, and refused in one line: no cycle (a list that holds
itself never ends a walk), at most ``MAX_JSON_DEPTH`` deep (a 100,000-deep list is a
RecursionError in every walker after this one), at most ``MAX_VALUE_ITEMS`` entries,
and only JSON's types (str keys; str, int, float, bool, None, lists and dicts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.core import limits
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from typing import Any

_PLAIN = (str, int, float, bool, type(None))


def check_value(value: Any, what: str) -> None:
    """``value`` is JSON-shaped within the limits, or one line naming what is wrong."""
    stack: list[tuple[Any, int, bool]] = [(value, 0, False)]
    on_path: set[int] = set()
    items = 0
    while stack:
        v, depth, leaving = stack.pop()
        if leaving:
            on_path.discard(id(v))
            continue
        if isinstance(v, _PLAIN):
            continue
        if not isinstance(v, (list, tuple, dict)):
            raise WorkbenchError(f"{what}: holds a {type(v).__name__} at depth {depth}, which is not JSON "
                                 "(str, int, float, bool, None, lists and dicts)")
        if id(v) in on_path:
            raise WorkbenchError(f"{what}: holds itself (a {type(v).__name__} inside itself at depth {depth}), "
                                 "which no walk of it ever ends")
        if depth >= limits.MAX_JSON_DEPTH:
            raise WorkbenchError(f"{what}: nested more than {limits.MAX_JSON_DEPTH} deep")
        items += len(v)
        if items > limits.MAX_VALUE_ITEMS:
            raise WorkbenchError(f"{what}: more than {limits.MAX_VALUE_ITEMS:,} entries in all")
        if isinstance(v, dict):
            bad = next((k for k in v if not isinstance(k, str)), None)
            if bad is not None:
                raise WorkbenchError(f"{what}: a key {bad!r:.40} at depth {depth} is not a string, as JSON's are")
        on_path.add(id(v))
        stack.append((v, depth, True))
        stack.extend((c, depth + 1, False) for c in (v.values() if isinstance(v, dict) else v))
