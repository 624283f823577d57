"""One stream as `check` keeps it: never its rows.

Each row is read as it comes and dropped: what the client ends with, the first delta
that raised, the client-contract problems (``props.Contract``) and, against a
reference, the step from which each field can no longer match (``props.FirstStep``).
So check's memory does not grow with the stream's rows (a 30,000-delta stream held
one set of rows for the source, one for the baseline and one per probe in flight).
The Responses and Messages faces are built over a stream's rows
(``core/faces``), so with ``--api responses|messages`` the rows are kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.check import api_faces, compare, props, timing
from workbench.core.messages import MESSAGE_FIELDS, Difference, Final
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from workbench.core.deltas import Delta
    from workbench.core.faces.face import Face
    from workbench.core.rows import Row
    from workbench.core.session import Session


@dataclass
class Seen:
    final: Final  # what the client ends with: the joined chunks, or that API's SDK object
    error: tuple[int, str] | None  # the first delta that raised: (step, error)
    problems: list[dict]  # props.contract_problems of the chunks
    steps: int
    firsts: dict = field(default_factory=dict)  # (field, raw) -> props.FirstStep, against a reference
    rows: list[Row] | None = None  # only where a face is built over them
    face: Face | None = None
    bursts: list[dict] = field(default_factory=list)  # timing.bursts of the rows
    nonstream: Final | None = None  # the reference it was watched against
    text: str = ""  # the model output (the deltas' text joined)
    token_ids: list[int] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)  # each delta's text length, by step

    @property
    def stream_final(self) -> Final:
        return self.final

    @property
    def nonstream_final(self) -> Final | None:
        return self.nonstream

    def first_step(self, fld: str, raw: bool) -> int | None:
        watch = self.firsts.get((fld, raw))
        return watch.result() if watch is not None else (self.steps or None)

    def errors(self, chunking: str) -> list[Difference]:
        return [] if self.error is None else [compare.error(*self.error, chunking)]


def stream(session: Session, deltas: Sequence[Delta]) -> tuple[list, Final]:
    """Rows and accumulated stream of fresh parser instances fed ``deltas`` (no non-stream);
    with ``--api responses|messages`` the stream is what that API's SDK ends with."""
    rows, final, _ = stream_face(session, deltas)
    return rows, final


def stream_face(session: Session, deltas: Sequence[Delta]) -> tuple[list, Final, object]:
    """``stream`` plus the API face (None for chat)."""
    run = session.stream()
    for d in deltas:
        run.feed(d)
    if session.api == "chat":
        return run.rows, run.result.final(), None
    final, face = api_faces.stream(session, run)
    return run.rows, final, face


def nonstream(session: Session, deltas: Sequence[Delta]) -> Final:
    """The non-streaming answer over ``deltas``' text and ids, as ``Session.replay`` gives it."""
    if not deltas:
        raise WorkbenchError("no deltas to replay")
    ids = [t for d in deltas for t in d.token_ids]
    return session.nonstream("".join(d.text for d in deltas), ids, deltas[-1].finish_reason or "stop")


def watch(session: Session, deltas: Sequence[Delta], markers: Sequence[str], reference: Final | None = None) -> Seen:
    """Feed ``deltas`` to fresh parser instances and keep only what check reports."""
    keep = session.api != "chat"
    run = session.stream(keep_rows=keep)
    contract = props.Contract(markers)
    firsts = {}
    if reference is not None:
        ref = compare.final_of(reference).to_dict()
        firsts = {(f, raw): props.FirstStep(ref, f, raw) for f in MESSAGE_FIELDS for raw in (False, True)}
    watchers = [contract, *firsts.values()]
    bursts, lengths = timing.Bursts(), []
    error = None
    for d in deltas:
        r = run.feed(d)
        step = r.delta.to_dict() if r.sse and r.error is None and r.delta is not None else None
        for w in watchers:
            w.add(step)
        bursts.add(r)
        lengths.append(len(r.text))
        if r.error and error is None:
            error = (r.step, r.error)
    seen = Seen(run.result.final(), error, contract.problems(), run.steps, firsts, bursts=bursts.result(),
                nonstream=reference, text=run.text, token_ids=run.token_ids, lengths=lengths)
    if keep:
        seen.final, seen.face = api_faces.stream(session, run)
        seen.rows = run.rows
    return seen
