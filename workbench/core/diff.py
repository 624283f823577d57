"""A/B: the same stream through two parsers, row by row.

Each side is its own Session (its own composed parser, adjusted request and
detokenizer settings), fed the same token ids in the same groups (or the same
recorded deltas). Rows are paired by step. ``first_step`` is the first step
whose client-visible output differs (delta text, DeltaMessage, SSE chunk sent,
finish_reason, error); ``first_machine_step`` is the first step whose state
machine differs (states before/after, events), when both sides run the same
engine roles. Random tool-call ids (``chatcmpl-tool-<hex>``) are normalised.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from itertools import zip_longest
from typing import TYPE_CHECKING

from workbench.core.deltas import Delta
from workbench.core.messages import FIELDS, FINAL, SEVERE, STEP, Difference
from workbench.core.parsers import ParserSpec
from workbench.core.rows import Row
from workbench.core.session import Result, Session, Setup
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from typing import Any

OUTPUT_FIELDS = ("text", "delta", "sse", "finish_reason", "error")
MACHINE_FIELDS = ("states_before", "states", "events")
FINAL_FIELDS = FIELDS + ("error",)
_RANDOM_ID = re.compile(r"chatcmpl-tool-[0-9a-f]+")


def normalise(value: Any):
    """``value`` with random tool-call ids replaced, for comparison."""
    if isinstance(value, str):
        return _RANDOM_ID.sub("chatcmpl-tool-*", value)
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: normalise(v) for k, v in value.items() if k != "logs"}
    return value


@dataclass
class DiffResult:
    label_a: str
    label_b: str
    a: Result
    b: Result
    steps: list[Difference]  # one per step (kind "step"): the rows' compared fields, a and b
    first_step: int | None
    first_machine_step: int | None
    machine_comparable: bool
    final: dict[str, list[Difference]]  # "stream"|"nonstream" -> one per field (kind "final")

    @property
    def finals_same(self) -> bool:
        return all(d.same for ds in self.final.values() for d in ds)

    @property
    def same(self) -> bool:
        return self.first_step is None and self.first_machine_step is None and self.finals_same

    def to_dict(self) -> dict:
        return {"a": {"label": self.label_a, "parser": self.a.parser},
                "b": {"label": self.label_b, "parser": self.b.parser},
                "same": self.same, "first_step": self.first_step,
                "first_machine_step": self.first_machine_step,
                "machine_comparable": self.machine_comparable,
                "final": {mode: {d.field: {"a": d.a, "b": d.b, "same": d.same} for d in ds}
                          for mode, ds in self.final.items()},
                "steps": [s.to_dict() for s in self.steps]}


def _view(row: Row | None) -> dict | None:
    """What is compared of a row (its JSON, tool-call ids normalised)."""
    if row is None:
        return None
    d = row.to_dict(chunk=False)
    return {"text": row.text, "token_ids": row.token_ids, "phase": d["phase"],
            **{f: normalise(d[f]) for f in OUTPUT_FIELDS + MACHINE_FIELDS if f != "text"}}


def compare(a: Result, b: Result, label_a: str = "A", label_b: str = "B") -> DiffResult:
    roles = lambda r: [sorted(x.states_before) for x in r.rows]  # noqa: E731
    comparable = roles(a) == roles(b) and any(x.states_before for x in a.rows)
    steps, first, first_machine = [], None, None
    for n, (ra, rb) in enumerate(zip_longest(a.rows, b.rows), 1):
        va, vb = _view(ra), _view(rb)
        if va is None or vb is None:
            output, machine = list(OUTPUT_FIELDS), comparable
        else:
            output = [f for f in OUTPUT_FIELDS if va[f] != vb[f]]
            machine = comparable and any(va[f] != vb[f] for f in MACHINE_FIELDS)
        steps.append(Difference(STEP, None, n, va, vb, severity=SEVERE if output or machine else None,
                                fields=tuple(output), machine=machine))
        if output and first is None:
            first = n
        if machine and first_machine is None:
            first_machine = n
    final = {mode: _fields(getattr(a, mode + "_final"), getattr(b, mode + "_final"))
             for mode in ("stream", "nonstream")}
    return DiffResult(label_a, label_b, a, b, steps, first, first_machine, comparable, final)


def _fields(fa, fb) -> list[Difference]:
    """A's final message against B's, field by field (random ids normalised)."""
    ja, jb = fa.to_dict(), fb.to_dict()
    out = []
    for f in FINAL_FIELDS:
        if f in ja or f in jb:
            x, y = normalise(ja.get(f)), normalise(jb.get(f))
            out.append(Difference(FINAL, f, None, x, y, severity=None if x == y else SEVERE))
    return out


def run(setup: Setup, spec_a: ParserSpec, spec_b: ParserSpec, *, text: str | None = None,
        deltas: list[Delta] | None = None, chunking: str | None = None,
        prompt_token_ids: list[int] | None = None) -> DiffResult:
    """``text`` is tokenized once per side (same ids, same groups); ``deltas`` (a
    recording) are fed to both as recorded, or regrouped per side with ``chunking``."""
    if (text is None) == (deltas is None):
        raise WorkbenchError("diff needs exactly one of text or deltas")
    results = []
    for spec in (spec_a, spec_b):
        session = Session(dataclasses.replace(setup, parser=spec), prompt_token_ids=prompt_token_ids)
        if text is not None:
            ds = session.deltas_from_text(text, chunking)
        else:
            assert deltas is not None  # exactly one of text and deltas, checked above
            ds = session.regroup(deltas, chunking) if chunking else deltas
        results.append(session.replay(ds))
    return compare(results[0], results[1], spec_a.label(), spec_b.label())
