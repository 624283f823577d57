"""One stream through the Python parsers and through vllm-rs's: the A/B and check's finding.

Both sides get the same token ids in the same groups. The Python side is a session of the
chosen vLLM (the installed one in-process, or a locked version's lane); the Rust side is
the Rust lane of the chosen vllm-rs. ``core.diff.compare`` pairs the rows and compares
the finals; ``findings`` turns that into check's ``frontend`` findings: per message field
whose answer differs (stream, non-stream), from which step the rows part; ``diagnosis``
into doctor's, naming the implementation each difference lives in.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbench.core import diff
from workbench.core.parsers import ParserSpec
from workbench.core.messages import SEVERE, WARNING, Difference
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.core.deltas import Delta
    from workbench.core.session import Setup

FRONTEND = "frontend"  # a finding's kind: the Python and Rust frontends disagree


@dataclass(frozen=True)
class Side:
    """One side of an A/B: parser names, and which implementation of which version runs them
    (``rust``: vllm-rs, ``version`` its binary's; else vLLM's Python parsers, ``version`` a
    locked lane or None for the installed vLLM)."""

    spec: ParserSpec
    version: str | None = None
    rust: bool = False

    def label(self) -> str:
        from workbench.lanes import versions

        if self.rust:
            from workbench.rustfe import lane

            return f"vllm-rs {self.version or lane.default_version()} {self.spec.label()}"
        return f"python {self.version or versions.installed()} {self.spec.label()}"


def compare(setup: Setup, a: Side, b: Side, *, text: str | None = None, deltas: Sequence[Delta] | None = None,
            chunking: str | None = None, prompt_token_ids: Sequence[int] | None = None) -> diff.DiffResult:
    """Each side fed the same token ids in the same groups (its own session's delta texts)."""
    from workbench.core import faces
    from workbench.core.session import Session
    from workbench.lanes import versions
    from workbench.lanes.lane_session import session_for
    from workbench.rustfe import lane

    if (text is None) == (deltas is None):
        raise WorkbenchError("diff needs exactly one of text or deltas")
    results, faced = [], []
    for side in (a, b):
        side_setup = dataclasses.replace(setup, parser=side.spec)
        in_process = side.rust or versions.is_installed(side.version)
        if not in_process and setup.api != "chat":
            raise WorkbenchError(f"a Python side on vLLM {side.version} compares the chat face; for {setup.api} "
                                 f"compare with the installed version's parsers")
        session = (Session(side_setup, prompt_token_ids=list(prompt_token_ids) if prompt_token_ids else None)
                   if in_process else session_for(side_setup, side.version, prompt_token_ids))
        if text is not None:
            ds = session.deltas_from_text(text, chunking)
        else:
            assert deltas is not None
            ds = session.regroup(list(deltas), chunking) if chunking else list(deltas)
        if side.rust:
            result = lane.run(session, ds, side.version)
            results.append(result)
            faced.append(result.face)
        else:
            result = session.replay(ds)
            results.append(result)
            faced.append(faces.run(session, result) if in_process else None)
    return diff.compare(results[0], results[1], a.label(), b.label(), faced[0], faced[1])


def findings(result: diff.DiffResult) -> list[Difference]:
    """check's findings for a Python-vs-Rust A/B: one per final field that differs (the
    stream's and the non-stream's answer, an error), else one warning when only the rows
    differ (the same message, chunked otherwise)."""
    out = []
    first = result.first_step
    at = next((s for s in result.steps if s.step == first), None)
    where = (f"; the rows part from step {first} ({', '.join(at.output)})" if at is not None else "")
    for mode, fields in result.final.items():
        for d in fields:
            if d.same:
                continue
            detail = f"{mode}: {result.label_a} answers {d.a!r}, {result.label_b} {d.b!r}{where}"
            out.append(Difference(FRONTEND, d.field, first, d.a, d.b, SEVERE, detail, chunking="token",
                                  extra={"mode": mode, "a": result.label_a, "b": result.label_b,
                                         "grouping": "token"}))
    if not out and first is not None and at is not None:
        out.append(Difference(FRONTEND, None, first, at.a, at.b, WARNING,
                              f"both end with the same message, but the rows part from step {first} "
                              f"({', '.join(at.output)}): {result.label_a} and {result.label_b} send it in "
                              f"other chunks", chunking="token",
                              extra={"a": result.label_a, "b": result.label_b, "grouping": "token"}))
    return out


def _where(field: str, py: dict, rs: dict) -> str:
    """Which implementation a field's difference lives in, from each side's two answers."""
    ps, pn, rs_, rn = (d.get(field) for d in (py["stream"], py["nonstream"], rs["stream"], rs["nonstream"]))
    if ps != pn and rs_ == rn == pn:
        return "the Python streaming parser (parse_delta): its non-streaming answer and both of vllm-rs's agree"
    if ps != pn and rs_ == rn == ps:
        return "the Python non-streaming parser (parse): its stream and both of vllm-rs's agree"
    if rs_ != rn and ps == pn in (rs_, rn):
        return f"vllm-rs's {'stream' if rn == ps else 'non-streaming answer'}: its other answer and both of Python's agree"
    if ps != pn or rs_ != rn:
        odd = " and ".join(n for n, bad in (("Python's", ps != pn), ("vllm-rs's", rs_ != rn)) if bad)
        return f"both: {odd} two answers disagree with each other, and no answer of one side is the other's"
    return "both: each implementation agrees with itself, and they parse this text differently"


def diagnosis(result: diff.DiffResult) -> Any:
    """doctor's finding for a Python-vs-Rust A/B (A Python, B vllm-rs), or None when they agree:
    from which step they part, which fields, and in which implementation each difference lives;
    the Rust parsers by the names vllm-rs uses."""
    from workbench.diagnosis.report import PROBLEM, Diagnosis
    from workbench.core.diff import normalise

    if result.same:
        return None
    rust = result.b.parser
    names = f'tool parser "{rust["tool_parser"] or "-"}", reasoning parser "{rust["reasoning_parser"] or "-"}"'
    py = {m: normalise(getattr(result.a, f"{m}_final").to_dict()) for m in ("stream", "nonstream")}
    rs = {m: normalise(getattr(result.b, f"{m}_final").to_dict()) for m in ("stream", "nonstream")}
    fields = sorted({d.field for ds in result.final.values() for d in ds if not d.same and d.field})
    where = {f: _where(f, py, rs) for f in fields}
    if fields:
        message = (f"{result.label_a} and {result.label_b} ({names}) answer differently: "
                   + "; ".join(f"{f}: {w}" for f, w in where.items()))
    else:
        message = (f"{result.label_a} and {result.label_b} ({names}) end with the same message but send it in "
                   f"other chunks from step {result.first_step}")
    return Diagnosis("frontends_differ", PROBLEM, message,
                     fix=f"`workbench diff --a SPEC --b SPEC@rust@{rust['version']}` shows both, step by step",
                     evidence={"first_step": result.first_step, "fields": fields, "where": where,
                               "vllm_rs": {"version": rust["version"], "tool_parser": rust["tool_parser"],
                                           "reasoning_parser": rust["reasoning_parser"]}})
