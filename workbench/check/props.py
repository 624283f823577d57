"""The properties `workbench check` asserts, as pure functions over the message model.

No imports beyond the standard library and core/messages.py: ``workbench export``
pastes both files into every exported pytest file, so the exported test asserts
exactly what ``check`` found. A *step* is the client-side view of one chunk, a
``MessageDelta`` (or None when nothing was sent); a *final* is what a client holds at
the end, a ``Final``. Either may also come as its JSON (an exported test holds JSON).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from workbench.core.messages import (COSMETIC, FIELDS, SEVERE, STREAM_VS_NONSTREAM, TEXT_FIELDS,
                                     Accumulator, Difference, Final, MessageDelta, as_json)

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

_WS = re.compile(r"\s+")


def accumulate(deltas: Iterable[MessageDelta | dict | None]) -> Final:
    """The Final a streaming client joins from ``deltas`` (reasoning, content, tool_calls)."""
    acc = Accumulator()
    for d in deltas:
        acc.add(d)
    return acc.final()


def norm_text(value: Any) -> str:
    """Normalised view of a text field: None == "", whitespace runs and ends ignored."""
    return " ".join((value or "").split())


def parsed_args(arguments):
    try:
        return json.loads(arguments) if arguments else {}
    except (TypeError, ValueError, RecursionError):
        return {"<invalid JSON>": _WS.sub(" ", str(arguments)).strip()}


def calls_raw(final: dict) -> list:
    return [{"name": c.get("name"), "arguments": c.get("arguments")} for c in final.get("tool_calls") or []]


def calls_norm(final: dict) -> list:
    return [{"name": c.get("name"), "arguments": parsed_args(c.get("arguments"))}
            for c in final.get("tool_calls") or []]


def raw_view(final, field: str):
    final = as_json(final)
    return calls_raw(final) if field == "tool_calls" else final.get(field)


def norm_view(final, field: str):
    final = as_json(final)
    if field == "tool_calls":
        return calls_norm(final)
    if field == "finish_reason":
        return final.get(field)
    return norm_text(final.get(field))


def differences(final, reference, fields=FIELDS, kind=STREAM_VS_NONSTREAM, equal=False) -> list:
    """One Difference per field of ``final`` against ``reference`` (two Finals) that differs:
    severity "error" when the normalised views differ, "cosmetic" when only the raw ones do;
    a and b are the raw views. ``equal``: every field, severity None where they agree."""
    final, reference = as_json(final), as_json(reference)
    out = []
    for field in fields:
        if field not in final or field not in reference:
            continue
        a, b = raw_view(final, field), raw_view(reference, field)
        na, nb = norm_view(final, field), norm_view(reference, field)
        severity = SEVERE if na != nb else COSMETIC if a != b else None
        if severity is not None or equal:
            norm = {"stream": na, "nonstream": nb} if (na, nb) != (a, b) else None
            out.append(Difference(kind, field, None, a, b, severity, normalised=norm))
    return out


def _squash(value: Any) -> str:
    return _WS.sub("", value or "")


def can_still_match(acc: dict, reference: dict, field: str, raw: bool = False) -> bool:
    """Whether a stream accumulated so far can still end as ``reference[field]``."""
    view = (lambda s: s or "") if raw else _squash
    if field in TEXT_FIELDS:
        return view(reference.get(field)).startswith(view(acc.get(field)))
    if field == "tool_calls":
        ref = reference.get("tool_calls") or []
        got = acc.get("tool_calls") or []
        if len(got) > len(ref):
            return False
        for g, r in zip(got, ref):
            if g.get("name") and not (r.get("name") or "").startswith(g["name"]):
                return False
            if not view(r.get("arguments")).startswith(view(g.get("arguments"))):
                return False
        return True
    return True


def first_step(steps, reference: dict, field: str, raw: bool = False):
    """The first step (1-based) from which the accumulated stream can no longer match.

    ``steps`` is the list of per-step deltas (None where nothing was sent). When
    the stream never contradicts the reference it fell short, and the answer is
    its last step.
    """
    acc, reference = Accumulator(), as_json(reference)
    for n, d in enumerate(steps, 1):
        acc.add(d)
        if d is not None and not can_still_match(acc.to_dict(), reference, field, raw):
            return n
    return len(steps) or None


def marker_leaks(final, markers) -> list:
    """[(field, marker)] for every parser marker found in reasoning or content."""
    final, found = as_json(final), []
    for field in TEXT_FIELDS:
        text = final.get(field) or ""
        found += [(field, m) for m in markers if m and m in text]
    return found


def contract_problems(steps, markers) -> list:
    """Client-contract violations of one stream: [{"field", "step", "detail"}].

    A call's id and name arrive once, on its first delta; indices start at 0 and
    grow by one; arguments concatenate to valid JSON by the end; no parser
    marker appears in content or reasoning.
    """
    problems, seen, last_args_step = [], {}, {}
    steps = [as_json(d) for d in steps]
    for n, d in enumerate(steps, 1):
        for tc in (d or {}).get("tool_calls") or []:
            i = tc.get("index")
            if i not in seen:
                if i != len(seen):
                    problems.append({"field": "tool_calls", "step": n,
                                     "detail": f"new call has index {i}, expected {len(seen)}"})
                seen[i] = n
                for key in ("id", "name"):
                    if not tc.get(key):
                        problems.append({"field": "tool_calls", "step": n,
                                         "detail": f"call {i}: first delta carries no {key}"})
            else:
                for key in ("id", "name"):
                    if tc.get(key):
                        problems.append({"field": "tool_calls", "step": n,
                                         "detail": f"call {i}: {key} sent again ({tc[key]!r})"})
            if tc.get("arguments"):
                last_args_step[i] = n
    final = accumulate(steps)
    for call in final.tool_calls:
        try:
            json.loads(call.arguments)
        except (ValueError, RecursionError):
            problems.append({"field": "tool_calls", "step": last_args_step.get(call.index, len(steps)),
                             "detail": f"call {call.index}: arguments do not join to valid JSON: "
                                       f"{call.arguments!r}"})
    for field, marker in marker_leaks(final, markers):
        acc, step = Accumulator(), None
        for n, d in enumerate(steps, 1):
            acc.add(d)
            if marker in (getattr(acc.final(), field) or ""):
                step = n
                break
        problems.append({"field": field, "step": step, "detail": f"marker {marker!r} leaked into {field}"})
    return problems
