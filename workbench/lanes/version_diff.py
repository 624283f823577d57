"""A/B across vLLM versions: ``hermes+qwen3@0.32.0`` vs ``hermes+qwen3@0.33.0``.

Each side is a Session of its version (in-process for the installed one, a lane
for others) fed the same stream, and ``core.diff.compare`` pairs the rows. A
spec without ``@VERSION`` is the installed version. With the same parser on both
sides and two versions, ``across_versions`` says what each version's own answers show
(check's findings on one replay: the stream against that version's non-streaming
answer, a parser method that raised; cosmetic ones left out, as doctor does) with
``lanes.fixed_in.timeline``'s verdict per finding: "fixed in 0.33.0", "new in 0.34.0".
``differences`` reads the other way round: the same A/B run in each version (`diff --vllm
A,B,C`, cli/diff_matrix.py), each way it differs with the timeline of where it appears,
goes ("fixed in V": A and B agree from V on) or comes back.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from workbench.core import diff
from workbench.core.parsers import ParserSpec
from workbench.core.session import Setup
from workbench.errors import WorkbenchError
from workbench.lanes import versions
from workbench.lanes.lane_session import session_for

if TYPE_CHECKING:
    from collections.abc import Sequence
    from workbench.core.deltas import Delta
    from workbench.core.session import Result

_AT_VERSION = re.compile(r"^(.*)@(\d+(?:\.\d+)*\S*)$")


def split_version(text: str) -> tuple[str, str | None]:
    """'hermes+qwen3@0.33.0' -> ('hermes+qwen3', '0.33.0'); no suffix -> (text, None)."""
    m = _AT_VERSION.match(text.strip())
    return (m.group(1), versions.check(m.group(2))) if m else (text.strip(), None)


def label(spec: ParserSpec, version: str | None) -> str:
    return spec.label() + (f"@{version}" if version else "")


def run(setup: Setup, a: tuple[ParserSpec, str | None], b: tuple[ParserSpec, str | None], *,
        text: str | None = None, deltas: Sequence[Delta] | None = None, chunking: str | None = None,
        prompt_token_ids: Sequence[int] | None = None) -> diff.DiffResult:
    if (text is None) == (deltas is None):
        raise WorkbenchError("diff needs exactly one of text or deltas")
    results = []
    for spec, version in (a, b):
        session = session_for(dataclasses.replace(setup, parser=spec), version, prompt_token_ids)
        if text is not None:
            ds = session.deltas_from_text(text, chunking)
        else:
            ds = session.regroup(deltas, chunking) if chunking else deltas
        results.append(session.replay(ds))
    res = diff.compare(results[0], results[1], label(*a), label(*b))
    here = versions.installed()
    if a[0] == b[0] and (a[1] or here) != (b[1] or here):
        res.across_versions = across({a[1] or here: results[0], b[1] or here: results[1]})
    return res


def findings_of(result: Result) -> set[tuple[str, str]]:
    """(kind, field) of check's findings on one replay that need no other run: its stream
    against its own non-streaming answer, a parser method that raised; not the cosmetic."""
    from workbench.check import compare

    found = compare.errors(result.rows, "as fed") + compare.stream_vs_nonstream(result, "as fed")
    return {(f.kind, f.field or "") for f in found if not f.cosmetic}


def across(results: dict[str, Result]) -> list[dict]:
    """Per finding of any version's replay: {"kind", "field", "in": version -> bool, "verdict"
    (the timeline's text), "fixed_in", "back_in", "new_in"}, versions oldest first."""
    from workbench.lanes import fixed_in

    found = {v: findings_of(r) for v, r in results.items()}
    order = fixed_in.ordered(found)
    out = []
    for key in dict.fromkeys(k for v in order for k in sorted(found[v])):
        t = fixed_in.timeline({v: key in found[v] for v in order})
        out.append({"kind": key[0], "field": key[1], "in": {v: key in found[v] for v in order}, "verdict": t["text"],
                    "fixed_in": t["fixed_in"], "back_in": t["back_in"], "new_in": t["new_in"]})
    return out


def verdicts(across: list[dict]) -> list[str]:
    """``across`` in lines: "stream_vs_nonstream tool_calls: fixed in 0.33.0" (the CLI's diff
    and the widget's A/B say it so). Only the two versions compared are read: a listed one
    between them is named, with the command that reads every version."""
    from workbench.lanes.fixed_in import ordered, version_key

    if not across:
        return ["in neither version does the stream differ from its own non-streaming answer"]
    lines = [f"{f['kind']} {f['field']}: {f['verdict']}" for f in across]
    read = ordered(across[0]["in"])
    between = [v for v in ordered(versions.listed())
               if v not in read and version_key(read[0]) < version_key(v) < version_key(read[-1])]
    if between:
        every = ",".join(ordered([*across[0]["in"], *between]))
        lines.append(f"{', '.join(between)} not compared: check --vllm {every} reads every version")
    return lines


def _ways(d: dict) -> dict[tuple[str, str], dict]:
    """How one version's A/B (diff's ``to_dict()``) differs: (kind, field) -> what differs."""
    out: dict[tuple[str, str], dict] = {}
    if d["first_step"] is not None:
        fields = dict.fromkeys(f for s in d["steps"] for f in s["output"])
        out["step", "output"] = {"first_step": d["first_step"], "fields": list(fields)}
    if d["machine_comparable"] and d["first_machine_step"] is not None:
        out["step", "machine"] = {"first_step": d["first_machine_step"]}
    for mode, fields in d["final"].items():
        for name, f in fields.items():
            if not f["same"]:
                out["final", f"{mode} {name}"] = {"a": f["a"], "b": f["b"]}
    return out


def differences(per: dict[str, dict]) -> tuple[list[dict], dict]:
    """(per way the A/B differs in any version: {"kind" ("step" | "final"), "field" ("output",
    "machine", "stream tool_calls", ...), "in": version -> what differs there or None, "note"
    (the timeline's events, "" when every version agrees), "fixed_in", "back_in", "new_in"};
    the timeline of A and B differing at all), from ``per``: version -> diff's ``to_dict()``."""
    from workbench.lanes import fixed_in

    order = fixed_in.ordered(per)
    ways = {v: _ways(per[v]) for v in order}
    rows = []
    for key in dict.fromkeys(k for v in order for k in ways[v]):
        t = fixed_in.timeline({v: key in ways[v] for v in order})
        rows.append({"kind": key[0], "field": key[1], "in": {v: ways[v].get(key) for v in order},
                     "note": ", ".join(t["events"]), "fixed_in": t["fixed_in"], "back_in": t["back_in"],
                     "new_in": t["new_in"]})
    overall = fixed_in.timeline({v: not per[v]["same"] for v in order})
    if not overall["changes"]:
        overall["text"] = f"A and B {'differ' if not per[order[0]]['same'] else 'agree'} in every version"
    return rows, overall
