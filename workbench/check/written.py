"""How the model wrote a call's JSON, read in the text itself: valid, unfinished (running to
the end of the text), or invalid. The doctor tells a parser that cut a value the model wrote
whole from JSON the model broke (model_output) this way, never from what a parser returned.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from workbench.core.messages import Final

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence


def valid_json(text: str | None) -> bool:
    try:
        json.loads(text or "")
    except (ValueError, RecursionError):  # the model's own text, as a client would test it
        return False
    return True


def written_json(text: str, arguments: str | None) -> str | None:
    """How the model wrote a call's (invalid) ``arguments``, found in ``text``: "valid" (a JSON
    value starts there: the parser lost part of it), "unfinished" (it runs to the end of
    the text), "invalid" (the model's JSON is broken), or None (not found as written)."""
    probe = (arguments or "").strip()[:40]
    if len(probe) < 2 or probe not in text:
        return None
    at = text.index(probe)
    if probe[0] not in '[{"-0123456789tfn' or _inside_valid(text, at, len(probe)):
        return "valid"  # no JSON value starts there: the parser cut a value the model wrote whole
    try:
        json.JSONDecoder().raw_decode(text, at)
    except RecursionError:
        return "invalid"
    except json.JSONDecodeError as e:
        tail = text[e.pos:].strip()
        return "unfinished" if e.pos >= len(text.rstrip()) or not tail or e.msg.startswith("Unterminated") \
            else "invalid"
    return "valid"


def _inside_valid(text: str, at: int, size: int, tries: int = 64) -> bool:
    """Whether ``text[at:at + size]`` lies inside a valid JSON object or array that starts
    before it (the body the model wrote, of which a parser sent a piece)."""
    starts = [i for i in range(at - 1, -1, -1) if text[i] in "[{"][:tries]
    for start in starts:
        try:
            _, end = json.JSONDecoder().raw_decode(text, start)
        except (ValueError, RecursionError):
            continue
        if end >= at + size:
            return True
    return False


def _decoded(text: str, at: int) -> str:
    """"valid", "unfinished" (runs to the end of the text) or "invalid": the JSON value at ``at``."""
    try:
        json.JSONDecoder().raw_decode(text, at)
    except RecursionError:
        return "invalid"
    except json.JSONDecodeError as e:
        end = len(text.rstrip())
        return "unfinished" if e.pos >= end or e.msg.startswith("Unterminated") else "invalid"
    return "valid"


def json_after(text: str, starts: Iterable[str]) -> list[tuple[int, str]]:
    """For each start marker followed (after whitespace) by ``{`` or ``[``: (where, how the model
    wrote that JSON), in text order. Formats whose call body is JSON (Hermes, Mistral...)."""
    out = []
    for m in starts:
        i = text.find(m)
        while i >= 0:
            j = i + len(m)
            k = len(text) - len(text[j:].lstrip())
            if k < len(text) and text[k] in "[{":
                out.append((i, _decoded(text, k)))
            i = text.find(m, j)
    return sorted(out)


def invalid_written(text: str, finals: Sequence[Final], starts: Iterable[str] = ()) -> list[str]:
    """Tool-call JSON the model itself wrote invalid: a call's arguments (in either mode) as
    written, or the body after a tool-call marker."""
    out = [f"the JSON after the tool-call marker at char {i}" for i, state in json_after(text, starts)
           if state == "invalid"]
    for f in finals:
        for c in Final.of(f).tool_calls:
            if not valid_json(c.arguments) and written_json(text, c.arguments) == "invalid":
                out.append(repr(c.arguments[:80]))
    return list(dict.fromkeys(out))
