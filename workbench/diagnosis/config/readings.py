"""How the text at a config's failing step reads: a terminal that fired inside a call's open
JSON arguments (the call ends in the middle of its own JSON), the text right after a
terminal that goes on like the rest of its marker (a terminal spelled shorter than the
marker), and a terminal that never fired while something close to it is in the text."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.diagnosis.config.segments import Fired, Segment


def open_json(args: str) -> bool:
    """Whether JSON text is still open at its end: inside a string, or braces not closed."""
    depth, in_string, escaped = 0, False, False
    for c in args:
        if in_string:
            escaped, in_string = (False, True) if escaped else (c == "\\", c != '"')
        elif c == '"':
            in_string = True
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
    return in_string or depth > 0


def terminals_in_arguments(segs: Sequence[Segment]) -> list[tuple[Fired, str]]:
    """(the terminal, the arguments so far) for each terminal that ended a call's arguments
    while their JSON was still open."""
    out, args = [], ""
    for seg in segs:
        if seg.fired is None:
            args = args + seg.text if seg.state == "TOOL_ARGS" else ""
            continue
        f = seg.fired
        if f.state == "TOOL_ARGS" and f.transition and f.to != "TOOL_ARGS" and args.lstrip()[:1] in ("{", "[") \
                and open_json(args):
            out.append((f, args))
        if f.to != "TOOL_ARGS" or f.state != "TOOL_ARGS":
            args = ""
    return out


def marker_tail(segs: Sequence[Segment], step: int) -> tuple[Fired, str] | None:
    """The terminal whose matched text is followed, in the content at ``step``, by more marker
    characters (``<</call`` then ``>>``): a terminal spelled shorter than the marker."""
    for prev, seg in zip(segs, segs[1:]):
        if prev.fired is None or seg.fired is not None or seg.step < step or not prev.fired.transition \
                or seg.state not in ("CONTENT", "REASONING"):
            continue
        tail = ""
        for c in seg.text:
            if c.isalnum() or c.isspace():
                break
            tail += c
        if tail and any(not c.isalnum() for c in prev.fired.value):
            return prev.fired, tail
    return None


def near_misses(config: object, text: str, state: str, near: str) -> list[tuple[str, str, str]]:
    """(terminal, its literal, the text that nearly matches it) for each terminal with a
    transition out of ``state`` whose literal is nowhere in ``text`` but something close is
    in ``near`` (the text around the failing step)."""
    out = []
    for (src, name), _ in config.transitions.items():  # type: ignore[attr-defined]
        if src.name != state:
            continue
        literal = config.terminal_literal(name) or config.token_id_terminals.get(name)  # type: ignore[attr-defined]
        if not literal or literal in text:
            continue
        best, best_ratio = "", 0.0
        for size in (len(literal) - 1, len(literal), len(literal) + 1):
            for i in range(0, max(len(near) - size + 1, 0)):
                ratio = difflib.SequenceMatcher(None, literal, near[i:i + size]).ratio()
                if ratio > best_ratio:
                    best, best_ratio = near[i:i + size], ratio
        if best_ratio >= 0.8:
            out.append((name, literal, best))
    return out
