"""A cell of the matrix: one case on one vLLM version, frontend, API and grouping, and its
verdict against the case's expected answer.

Verdicts: ``match`` (the streaming client and the non-streaming body both end with the
expected answer); ``stream≠nonstream`` (the two disagree: the field, and the step where the
stream departs from the non-streaming answer); ``differs`` (they agree, on something else
than expected: the field, and the first step where the stream departs from it); ``error``
(one line); ``n/a`` (the cell cannot run, and why: no vllm-rs in that version, no Rust parser
of that name, 404 or 501 on an API).

A cell's name is ``CASE@VERSION/FRONTEND/API/GROUPING``: what ``--require`` lists and
``--against`` matches on.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from workbench.errors import WorkbenchError

MATCH, DIFFERS, STREAM, ERROR, NA = "match", "differs", "stream≠nonstream", "error", "n/a"
VERDICTS = (MATCH, DIFFERS, STREAM, ERROR, NA)
FAILING = (DIFFERS, STREAM, ERROR)
COLUMNS = ("vllm", "frontend", "api", "grouping")


def name_of(cell: Mapping[str, Any]) -> str:
    return f"{cell['case']}@{cell['vllm']}/{cell['frontend']}/{cell['api']}/{cell['grouping']}"


def verdict(expected: Any, outcome: Mapping[str, Any]) -> dict:
    """{"verdict", "field", "step", "detail", "first"} of one outcome (runs.py's) against
    ``expected`` (a case's ``Expected``)."""
    from workbench.conformance.cases import answer_of, compare

    if outcome.get("na"):
        return {"verdict": NA, "field": None, "step": None, "detail": outcome["na"], "first": None}
    if outcome.get("error"):
        return {"verdict": ERROR, "field": None, "step": None, "detail": outcome["error"], "first": None}
    for side in ("stream", "nonstream"):
        if (outcome[side] or {}).get("error"):
            return {"verdict": ERROR, "field": None, "step": None, "first": None,
                    "detail": f"{side}: {str(outcome[side]['error']).splitlines()[0][:300]}"}
    stream, nonstream = (_plain(answer_of(outcome[side])) for side in ("stream", "nonstream"))
    apart = compare(nonstream, stream)
    if apart is not None:
        field = _field(apart)
        step = first_step(outcome["steps"], nonstream, field)
        said = apart.replace(": expected ", ": non-stream ", 1).replace(", got ", ", stream ", 1)
        return {"verdict": STREAM, "field": field, "step": step, "first": _step(outcome["steps"], step),
                "detail": said}
    wrong = compare(_plain(expected), stream)
    if wrong is None:
        return {"verdict": MATCH, "field": None, "step": None, "detail": None, "first": None}
    field = _field(wrong)
    step = first_step(outcome["steps"], expected, field)
    return {"verdict": DIFFERS, "field": field, "step": step, "first": _step(outcome["steps"], step),
            "detail": wrong}


# What Responses (status) and Messages (stop_reason) end with, as chat's finish_reason: a
# case's expected answer is written in chat's words.
FINISH = {"completed": None, "incomplete": "length", "end_turn": "stop", "tool_use": "tool_calls",
          "max_tokens": "length", "stop_sequence": "stop"}


def _plain(answer: Any) -> Any:
    """An empty reasoning or content as none: a streaming client starts from "" (the opening
    chunk's content), which no client shows apart from no text at all. A Responses status or
    Messages stop_reason in chat's words (completed: tool_calls when it called, else stop)."""
    from dataclasses import replace

    finish = answer.finish_reason
    if finish in FINISH:
        finish = FINISH[finish] or ("tool_calls" if answer.tool_calls else "stop")
    return replace(answer, reasoning=answer.reasoning or None, content=answer.content or None,
                   finish_reason=finish)


def _field(line: str) -> str:
    return line.split(":", 1)[0].split("[", 1)[0].split(".", 1)[0]


def _step(steps: Sequence[Mapping], step: int | None) -> dict | None:
    return next((dict(s) for s in steps if s["step"] == step), None)


def first_step(steps: Sequence[Mapping], want: Any, field: str) -> int | None:
    """The first step whose joined stream departs from ``want`` (an ``Expected``) in ``field``:
    text that is no longer a prefix of the wanted text, a tool call that is not the wanted
    one; else the last step that sent something in that field (the answer goes wrong at the
    end), else the last step."""
    if not steps:
        return None
    joined = ""
    names: dict[int, str] = {}
    last_in_field = None
    for s in steps:
        d = s.get("delta") or {}
        if field in ("reasoning", "content"):
            part = d.get(field)
            if part:
                last_in_field = s["step"]
                joined += part
                if not (getattr(want, field) or "").startswith(joined):
                    return s["step"]
        elif field == "tool_calls":
            for c in d.get("tool_calls") or []:
                last_in_field = s["step"]
                i = c.get("index") or 0
                if i >= len(want.tool_calls):
                    return s["step"]
                if c.get("name"):
                    names[i] = names.get(i, "") + c["name"]
                    if not want.tool_calls[i][0].startswith(names[i]):
                        return s["step"]
    return last_in_field if last_in_field is not None else steps[-1]["step"]


# -- --against ------------------------------------------------------------------------------
def against(old: Sequence[Mapping], new: Sequence[Mapping]) -> list[dict]:
    """What changed per cell since ``old``: fixed (failing then, matches now), broken (matched
    then, fails now), changed (another failing verdict), new, gone. Cells match by name; when
    the two runs share no vLLM version (0.32 against 0.34), by name without the version."""
    shared = {c["vllm"] for c in old} & {c["vllm"] for c in new}

    def key(c: Mapping) -> str:
        return name_of(c) if shared else f"{c['case']}/{c['frontend']}/{c['api']}/{c['grouping']}"

    before = {key(c): c for c in old}
    now = {key(c): c for c in new}
    out = []
    for k, c in now.items():
        b = before.get(k)
        if b is None:
            out.append({"cell": k, "change": "new", "was": None, "now": c["verdict"], "name": name_of(c)})
        elif b["verdict"] != c["verdict"]:
            change = ("fixed" if c["verdict"] == MATCH and b["verdict"] in FAILING
                      else "broken" if b["verdict"] == MATCH and c["verdict"] in FAILING else "changed")
            out.append({"cell": k, "change": change, "was": b["verdict"], "now": c["verdict"], "name": name_of(c),
                        "was_detail": b.get("detail"), "detail": c.get("detail")})
    out += [{"cell": k, "change": "gone", "was": b["verdict"], "now": None, "name": name_of(b)}
            for k, b in before.items() if k not in now]
    return out


# -- --require ------------------------------------------------------------------------------
def required(lines: Iterable[str]) -> list[str]:
    """The cell names (or fnmatch patterns) of a --require file: one a line, # comments."""
    out = []
    for raw in lines:
        line = raw.split("#", 1)[0].strip()
        if line:
            out.append(line)
    if len(set(out)) != len(out):
        dup = next(n for n in out if out.count(n) > 1)
        raise WorkbenchError(f"--require: {dup!r} is listed twice")
    return out


def check_required(names: Sequence[str], cells: Sequence[Mapping]) -> list[dict]:
    """The required cells that fail (each ``{"require", "cell", "verdict", "detail"}``);
    WorkbenchError when a name matches no cell or two names match the same cell."""
    by_cell: dict[str, str] = {}
    failing = []
    for pattern in names:
        hits = [c for c in cells if fnmatch.fnmatchcase(name_of(c), pattern)]
        if not hits:
            raise WorkbenchError(f"--require: {pattern!r} names no cell of this run")
        for c in hits:
            n = name_of(c)
            if n in by_cell:
                raise WorkbenchError(f"--require: {by_cell[n]!r} and {pattern!r} both name {n}")
            by_cell[n] = pattern
            if c["verdict"] in FAILING and not c.get("allowed"):
                failing.append({"require": pattern, "cell": n, "verdict": c["verdict"], "detail": c.get("detail")})
    return failing


def undocumented(cells: Sequence[Mapping]) -> list[Mapping]:
    """Failing cells no known divergence allows, of cases some version passes."""
    return [c for c in cells if c["verdict"] in FAILING and not c.get("allowed") and not c.get("no_version_passes")]


def summary(cells: Sequence[Mapping]) -> dict[str, dict[str, dict[str, int]]]:
    """{parser: {column: {verdict: count}}}, a column being VERSION/FRONTEND/API."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for c in cells:
        col = f"{c['vllm']}/{c['frontend']}/{c['api']}"
        counts = out.setdefault(c["parser"], {}).setdefault(col, {})
        counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    return out


def counts(cells: Sequence[Mapping]) -> dict[str, int]:
    out = {v: 0 for v in VERDICTS}
    for c in cells:
        out[c["verdict"]] += 1
    return out
