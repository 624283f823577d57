"""A/B: the same stream through two parsers (or two APIs), row by row.

Each side is its own Session (its own composed parser, adjusted request and
detokenizer settings), fed the same token ids in the same groups (or the same
recorded deltas). Rows are paired by step. ``first_step`` is the first step
whose client-visible output differs (delta text, DeltaMessage, SSE chunk sent,
finish_reason, error); ``first_machine_step`` is the first step whose state
machine differs (states before/after, events), when both sides run the same
engine roles. Random tool-call ids (``chatcmpl-tool-<hex>``; vllm-rs's ``call_<hex>``)
are normalised.

Each side reads the stream through an API (``Setup.api``, or ``api_b`` for side B).
On Responses or Messages a step compares that API's events (made-up ids masked)
instead of the chat chunk, and the final answers are what that API's client ends
with (the SDK's object) and its non-streaming body. Two *different* APIs compare what
each client received per step (``faces.visible``: reasoning, content, tool-call name and
arguments) and what it ends with (the finish in one vocabulary, arguments as JSON).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from itertools import zip_longest
from typing import TYPE_CHECKING

from workbench.core.deltas import Delta
from workbench.core.messages import FIELDS, FINAL, SEVERE, STEP, Difference, Final
from workbench.core.parsers import ParserSpec
from workbench.core.rows import Row
from workbench.core.session import Result, Session, Setup
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.core.run_spec import RunSpec
    from typing import Any
    from workbench.core.faces.face import Face

OUTPUT_FIELDS = ("text", "delta", "sse", "finish_reason", "error")
FACE_FIELDS = ("text", "delta", "events", "finish_reason", "error")  # both sides on one other API
ACROSS_FIELDS = ("text", "visible", "error")  # two APIs
MACHINE_FIELDS = ("states_before", "states", "events")
FINAL_FIELDS = FIELDS + ("error",)
_RANDOM_ID = re.compile(r"chatcmpl-tool-[0-9a-f]+|\bcall_[0-9a-f]{24}\b")


def normalise(value: Any) -> Any:
    """``value`` with random tool-call ids replaced, for comparison."""
    if isinstance(value, str):
        return _RANDOM_ID.sub("(made-up id)", value)
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
    api_a: str = "chat"
    api_b: str = "chat"
    # the same parser on two vLLM versions: each finding's timeline (lanes/version_diff.across)
    across_versions: list[dict] | None = None

    @property
    def finals_same(self) -> bool:
        return all(d.same for ds in self.final.values() for d in ds)

    @property
    def same(self) -> bool:
        return self.first_step is None and self.first_machine_step is None and self.finals_same

    def to_dict(self) -> dict:
        out = {"a": {"label": self.label_a, "parser": self.a.parser, "api": self.api_a},
               "b": {"label": self.label_b, "parser": self.b.parser, "api": self.api_b},
               "same": self.same, "first_step": self.first_step,
               "first_machine_step": self.first_machine_step,
               "machine_comparable": self.machine_comparable,
               "final": {mode: {d.field: {"a": d.a, "b": d.b, "same": d.same, **d.extra} for d in ds}
                         for mode, ds in self.final.items()},
               "steps": [s.to_dict() for s in self.steps]}
        if self.across_versions is not None:
            out["across_versions"] = self.across_versions
        return out


def _view(row: Row | None, events: list | None = None, visible: dict | None = None) -> dict | None:
    """What is compared of a row (its JSON, tool-call ids normalised; an API's events, or
    what its client received)."""
    if row is None:
        return None
    d = row.to_dict(chunk=False)
    view = {"text": row.text, "token_ids": row.token_ids, "phase": d["phase"],
            **{f: normalise(d[f]) for f in OUTPUT_FIELDS + MACHINE_FIELDS if f != "text"}}
    if events is not None:
        view["events"] = events
    if visible is not None:
        view["visible"] = visible
    return view


def _side(result: Result, face: Face | None) -> tuple[list, list]:
    """(per row: the API's events, masked, or None on chat; per row: what the client received)."""
    from workbench.core.faces import visible
    from workbench.core.faces.mask import masked

    if face is None:
        return [None] * len(result.rows), visible.chat_rows(result.rows)
    # each event masked on its own: one side's extra item must not renumber the other's ids
    return ([[masked(e) for e in face.row_events(i)] for i in range(len(result.rows))],
            visible.face_rows(face))


def compare(a: Result, b: Result, label_a: str = "A", label_b: str = "B",
            face_a: Face | None = None, face_b: Face | None = None) -> DiffResult:
    """``face_a`` / ``face_b``: each side's API face (None: chat)."""
    api_a, api_b = (face.api if face is not None else "chat" for face in (face_a, face_b))
    compared = OUTPUT_FIELDS if api_a == api_b == "chat" else FACE_FIELDS if api_a == api_b else ACROSS_FIELDS
    roles = lambda r: [sorted(x.states_before) for x in r.rows]  # noqa: E731
    comparable = roles(a) == roles(b) and any(x.states_before for x in a.rows)
    (events_a, seen_a), (events_b, seen_b) = _side(a, face_a), _side(b, face_b)
    steps, first, first_machine = [], None, None
    for n, (ra, rb) in enumerate(zip_longest(a.rows, b.rows), 1):
        va = _view(ra, *_at(events_a, seen_a, n - 1, api_a != api_b))
        vb = _view(rb, *_at(events_b, seen_b, n - 1, api_a != api_b))
        if va is None or vb is None:
            output, machine = list(compared), comparable
        else:
            output = [f for f in compared if va.get(f) != vb.get(f)]
            machine = comparable and any(va[f] != vb[f] for f in MACHINE_FIELDS)
        steps.append(Difference(STEP, None, n, va, vb, severity=SEVERE if output or machine else None,
                                fields=tuple(output), machine=machine))
        if output and first is None:
            first = n
        if machine and first_machine is None:
            first_machine = n
    if api_a == api_b == "chat":
        final = {mode: _fields(getattr(a, mode + "_final").to_dict(), getattr(b, mode + "_final").to_dict())
                 for mode in ("stream", "nonstream")}
    else:
        final = _api_finals(a, b, face_a, face_b, api_a, api_b)
    return DiffResult(label_a, label_b, a, b, steps, first, first_machine, comparable, final, api_a, api_b)


def _at(events: list, seen: list, i: int, across: bool) -> tuple:
    if i >= len(seen):
        return None, None
    return (None if across else events[i]), (seen[i] if across else None)


def _fields(ja: dict, jb: dict) -> list[Difference]:
    """A's final message (its JSON) against B's, field by field (random ids normalised)."""
    out = []
    for f in FINAL_FIELDS:
        if f in ja or f in jb:
            x, y = normalise(ja.get(f)), normalise(jb.get(f))
            out.append(Difference(FINAL, f, None, x, y, severity=None if x == y else SEVERE))
    return out


def _api_finals(a: Result, b: Result, face_a: Face | None, face_b: Face | None, api_a: str, api_b: str) -> dict:
    """stream: what each side's client ends with; nonstream: each side's non-streaming body."""
    from workbench.core.faces import visible

    out: dict[str, list[Difference]] = {}
    for mode in ("stream", "nonstream"):
        fa, fb = _finals(a, face_a, mode), _finals(b, face_b, mode)
        fields = _fields(_final_view(fa, api_a != api_b), _final_view(fb, api_a != api_b))
        if api_a != api_b:  # one vocabulary for the finish: stop, tool_call, length, error
            oa, ob = visible.outcome(api_a, fa), visible.outcome(api_b, fb)
            fields = [d for d in fields if d.field != "finish_reason"]
            fields.append(Difference(FINAL, "finish_reason", None, fa.finish_reason, fb.finish_reason,
                                     severity=None if oa == ob else SEVERE, extra={"outcome": {"a": oa, "b": ob}}))
        out[mode] = fields
    return out


def _finals(result: Result, face: Face | None, mode: str) -> Final:
    from workbench.core.faces import finals

    if face is None:
        return result.stream_final if mode == "stream" else result.nonstream_final
    if mode == "nonstream":
        return finals.final_of(face.api, face.response)
    client = face.client or {}
    return finals.final_of(face.api, client["object"]) if "object" in client else Final(
        error=str(client.get("error")))


def _final_view(final: Final, across: bool) -> dict:
    """The final's JSON with made-up tool-call ids dropped; across APIs the arguments as JSON
    (an Anthropic client holds the parsed ``input``, a chat client the text)."""
    from workbench.core import door

    d = final.to_dict()
    calls = []
    for c in d.get("tool_calls") or ():
        c = {k: v for k, v in c.items() if k != "id"}
        if across and isinstance(c.get("arguments"), str):
            try:
                c["arguments"] = door.parse_json(c["arguments"], "tool call arguments")
            except WorkbenchError:  # not JSON (cut off): compared as the text it is
                pass
        calls.append(c)
    d["tool_calls"] = calls
    for k in ("reasoning_tokens", "usage", "logs"):
        d.pop(k, None)
    return d


def run(setup: Setup, spec_a: ParserSpec, spec_b: ParserSpec, *, text: str | None = None,
        deltas: list[Delta] | None = None, chunking: str | None = None,
        prompt_token_ids: list[int] | None = None, api_b: str | None = None) -> DiffResult:
    """``text`` is tokenized once per side (same ids, same groups); ``deltas`` (a
    recording) are fed to both as recorded, or regrouped per side with ``chunking``.
    Side A reads the stream through ``setup.api``, side B through ``api_b`` (default the
    same), its request that of side A written in B's shape."""
    from workbench.core import faces

    if (text is None) == (deltas is None):
        raise WorkbenchError("diff needs exactly one of text or deltas")
    results: list[Result] = []
    sides: list[Session] = []
    for spec in (spec_a, spec_b):
        side = dataclasses.replace(setup, parser=spec)
        if sides and api_b is not None and api_b != setup.api:
            side = dataclasses.replace(side, api=faces.check_api(api_b), api_request=None,
                                       request=sides[0].setup.request)  # A's, chat-shaped
        session = Session(side, prompt_token_ids=prompt_token_ids)
        if text is not None:
            ds = session.deltas_from_text(text, chunking)
        else:
            assert deltas is not None  # exactly one of text and deltas, checked above
            ds = session.regroup(deltas, chunking) if chunking else deltas
        sides.append(session)
        results.append(session.replay(ds))
    face_a, face_b = (faces.run(s, r) for s, r in zip(sides, results))
    return compare(results[0], results[1], spec_a.label(), spec_b.label(), face_a, face_b)


def raised(result: DiffResult) -> str | None:
    """The line saying a parser raised on a side, None when none did (diff's exit code 1)."""
    errors = result.a.errors + result.b.errors
    if not errors:
        return None
    return f"{len(errors)} delta(s) raised in a parser; first at step {errors[0].step}: {errors[0].error}"


def on_spec(spec: RunSpec, a: ParserSpec, b: ParserSpec, api_b: str | None = None) -> tuple[DiffResult, list[str]]:
    """(``run``'s A/B of ``spec``'s stream through parsers ``a`` and ``b``, the run's notes),
    in this process's vLLM: what `workbench diff` and a lane's ``diff`` op run."""
    from workbench.core.prepare import resolve

    src = resolve(spec, what="compare", with_parser=False)
    prompt_ids = (src.recording.prompt_token_ids or None) if src.recording is not None else None
    source = ({"deltas": src.recording.deltas, "chunking": spec.chunking} if src.recording is not None
              else {"text": spec.text})
    return run(src.setup, a, b, prompt_token_ids=prompt_ids, api_b=api_b, **source), src.notes
