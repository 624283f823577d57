"""One stream through the Python parsers and through vllm-rs's: the A/B and check's finding.

Both sides get the same token ids in the same groups. The Python side is a session of the
chosen vLLM (the installed one in-process, or a locked version's lane); the Rust side is
the Rust lane of the chosen vllm-rs. ``core.diff.compare`` pairs the rows and compares
the finals; ``findings`` turns that into check's ``frontend`` findings: per message field
whose answer differs (stream, non-stream), from which step the rows part.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

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
    from workbench.lanes.session import session_for
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
