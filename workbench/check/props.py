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


class FirstStep:
    """``first_step`` one step at a time: the accumulated view is compared piece by piece
    with the reference's, so a stream costs its length once (re-joining and re-squashing
    everything so far on every step grew with the square of the length)."""

    def __init__(self, reference, field: str, raw: bool = False) -> None:
        reference = as_json(reference)
        self.field, self.n, self.first = field, 0, None
        self.view = (lambda s: s or "") if raw else _squash
        if field in TEXT_FIELDS:
            self.ref, self.pos = self.view(reference.get(field)), 0
        self.calls = [((r.get("name") or ""), self.view(r.get("arguments")))
                      for r in reference.get("tool_calls") or []]
        self.slots: dict = {}  # index -> [order, name so far, position in the reference's arguments]

    def add(self, d) -> None:
        self.n += 1
        if self.first is None and d and not self._still(as_json(d)):
            self.first = self.n

    def _follows(self, ref: str, piece, pos: int) -> tuple[bool, int]:
        s = self.view(piece)
        return (not s or ref.startswith(s, pos)), pos + len(s)

    def _still(self, d: dict) -> bool:
        if self.field in TEXT_FIELDS:
            if d.get(self.field) is None:
                return True
            ok, self.pos = self._follows(self.ref, d[self.field], self.pos)
            return ok
        if self.field != "tool_calls":
            return True
        for tc in d.get("tool_calls") or ():
            slot = self.slots.get(tc["index"])
            if slot is None:
                slot = self.slots[tc["index"]] = [len(self.slots), "", 0]
                if slot[0] >= len(self.calls):
                    return False
            name, args = self.calls[slot[0]]
            if tc.get("name"):
                slot[1] += tc["name"]
                if not name.startswith(slot[1]):
                    return False
            if tc.get("arguments"):
                ok, slot[2] = self._follows(args, tc["arguments"], slot[2])
                if not ok:
                    return False
        return True

    def result(self) -> int | None:
        return self.first if self.first is not None else (self.n or None)


def first_step(steps, reference: dict, field: str, raw: bool = False):
    """The first step (1-based) from which the accumulated stream can no longer match
    (``can_still_match`` turns false).

    ``steps`` is the list of per-step deltas (None where nothing was sent). When
    the stream never contradicts the reference it fell short, and the answer is
    its last step.
    """
    watch = FirstStep(reference, field, raw)
    for d in steps:
        watch.add(d)
    return watch.result()


def marker_leaks(final, markers) -> list:
    """[(field, marker)] for every parser marker found in reasoning or content."""
    final, found = as_json(final), []
    for field in TEXT_FIELDS:
        text = final.get(field) or ""
        found += [(field, m) for m in markers if m and m in text]
    return found


class Contract:
    """``contract_problems`` one step at a time, in one pass: a marker can only appear
    where the text grew, so each step looks at its own text and the few characters
    before it."""

    def __init__(self, markers) -> None:
        self.markers = list(markers)
        self.n, self.per_step, self.seen, self.last_args = 0, [], {}, {}
        self.acc = Accumulator()
        wanted = [m for m in self.markers if m]
        self._firsts = {m[0] for m in wanted}
        self._keep = max(map(len, wanted), default=1) - 1
        self._tail = dict.fromkeys(TEXT_FIELDS, "")
        self.leaks: dict = {}  # (field, marker) -> the step it first appears at

    def add(self, d) -> None:
        self.n += 1
        n, d = self.n, as_json(d)
        for tc in (d or {}).get("tool_calls") or []:
            i = tc.get("index")
            if i not in self.seen:
                if i != len(self.seen):
                    self.per_step.append({"field": "tool_calls", "step": n,
                                          "detail": f"new call has index {i}, expected {len(self.seen)}"})
                self.seen[i] = n
                for key in ("id", "name"):
                    if not tc.get(key):
                        self.per_step.append({"field": "tool_calls", "step": n,
                                              "detail": f"call {i}: first delta carries no {key}"})
            else:
                for key in ("id", "name"):
                    if tc.get(key):
                        self.per_step.append({"field": "tool_calls", "step": n,
                                              "detail": f"call {i}: {key} sent again ({tc[key]!r})"})
            if tc.get("arguments"):
                self.last_args[i] = n
        self.acc.add(d)
        for field in TEXT_FIELDS if d else ():
            if d.get(field):
                self._scan(field, self._tail[field] + d[field])

    def _scan(self, field: str, window: str) -> None:
        if not self._firsts.isdisjoint(window):
            for m in self.markers:
                if m and (field, m) not in self.leaks and m in window:
                    self.leaks[(field, m)] = self.n
        self._tail[field] = window[max(0, len(window) - self._keep):] if self._keep else ""

    def problems(self) -> list:
        problems = list(self.per_step)
        for call in self.acc.final().tool_calls:
            try:
                json.loads(call.arguments)
            except (ValueError, RecursionError):
                problems.append({"field": "tool_calls", "step": self.last_args.get(call.index, self.n),
                                 "detail": f"call {call.index}: arguments do not join to valid JSON: "
                                           f"{call.arguments!r}"})
        for field in TEXT_FIELDS:
            for marker in self.markers:
                if (field, marker) in self.leaks:
                    problems.append({"field": field, "step": self.leaks[(field, marker)],
                                     "detail": f"marker {marker!r} leaked into {field}"})
        return problems


def contract_problems(steps, markers) -> list:
    """Client-contract violations of one stream: [{"field", "step", "detail"}].

    A call's id and name arrive once, on its first delta; indices start at 0 and
    grow by one; arguments concatenate to valid JSON by the end; no parser
    marker appears in content or reasoning.
    """
    watch = Contract(markers)
    for d in steps:
        watch.add(d)
    return watch.problems()
