"""The line of an author's plugin that wrote the wrong value: the failing step replayed with
``sys.settrace`` on the plugin's own file only.

A plugin cause's ``where`` names the method and the ``return`` that handed vLLM its answer
(where.py). The value that differs is in that answer's field (the content, the reasoning, a
call's arguments or name); the line that wrote it is where it first appeared among the
method's locals, or in what they hold (a list a call was appended to, an attribute of
``self``), in any frame of the plugin's file: the line that ran just before the value was
there. The last such line of the step is named.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import FrameType
    from typing import Any

    from workbench.core.deltas import Delta
    from workbench.core.session import Session

STREAMING = {"extract_tool_calls_streaming", "extract_reasoning_streaming", "parse_delta"}
DEPTH = 3  # how deep into lists, tuples, dicts and objects a value is looked for


def field_values(answer: Any, field: str) -> list[str]:
    """The non-empty strings ``field`` holds in a method's answer (a DeltaMessage, an
    ExtractedToolCallInformation, a (reasoning, content) tuple)."""
    if answer is None:
        return []
    if isinstance(answer, tuple):  # extract_reasoning: (reasoning, content)
        values = {"reasoning": answer[:1], "content": answer[1:2]}.get(field, ())
        return [v for v in values if isinstance(v, str) and v]
    if field == "tool_calls":
        out = []
        for call in getattr(answer, "tool_calls", None) or []:
            fn = getattr(call, "function", None)
            out += [v for v in (getattr(fn, "name", None), getattr(fn, "arguments", None)) if isinstance(v, str) and v]
        return out
    value = getattr(answer, field, None)
    return [value] if isinstance(value, str) and value else []


def holds(value: Any, wanted: str, depth: int = DEPTH) -> bool:
    if isinstance(value, str):
        return value == wanted
    if depth == 0 or isinstance(value, (int, float, bytes, type(None))):
        return False
    if isinstance(value, dict):
        return any(holds(v, wanted, depth - 1) for v in list(value.values())[:200])
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(holds(v, wanted, depth - 1) for v in list(value)[:200])
    attrs = getattr(value, "__dict__", None)
    return isinstance(attrs, dict) and any(holds(v, wanted, depth - 1) for v in list(attrs.values())[:200])


def _in_frame(frame: FrameType, wanted: str) -> bool:
    return any(holds(v, wanted) for v in list(frame.f_locals.values()))


def writer(file: str, wanted: str, run: Callable[[Callable], None]) -> int | None:
    """The last line of ``file`` after which ``wanted`` newly appeared in one of its frames
    (or that returned it, built on the ``return`` line itself), while ``run`` ran the step."""
    last: dict[FrameType, tuple[int, bool]] = {}  # frame -> (its line just run, whether it held the value)
    found: list[int] = []

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event in ("line", "return"):
            now = _in_frame(frame, wanted)
            line, had = last.get(frame, (frame.f_lineno, True))
            if now and not had:
                found.append(line)
            elif event == "return" and not now and holds(arg, wanted):
                found.append(frame.f_lineno)
            last[frame] = (frame.f_lineno, now)
            if event == "return":
                last.pop(frame, None)
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "call" and frame.f_code.co_filename == file:
            last[frame] = (frame.f_lineno, _in_frame(frame, wanted))
            return local
        return None

    run(lambda: sys.settrace(calls))
    return found[-1] if found else None


def last_answer(code: Any, session: Session, deltas: Sequence[Delta], step: int | None, field: str,
                text: str, token_ids: Sequence[int]) -> tuple[int | None, list[str]]:
    """(the step, the field's values) of the last answer of the method with ``code`` that held
    a value in ``field``, at ``step`` or before it (a finding's first step may be the one where
    the stream ends, after the step that sent the value)."""
    answers: list[tuple[int | None, Any]] = []
    at: list[int | None] = [None]

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if event == "return" and frame.f_code is code:
            answers.append((at[0], arg))

    sys.setprofile(hook)
    try:
        if step:
            stream = session.stream(keep_rows=False)
            for n, d in enumerate(deltas[:step], 1):
                at[0] = n
                stream.feed(d)
        else:
            session.nonstream(text, list(token_ids))
    finally:
        sys.setprofile(None)
    for n, answer in reversed(answers):
        values = field_values(answer, field)
        if values:
            return n, values
    return None, []


def replayer(session: Session, deltas: Sequence[Delta], step: int | None, text: str,
             token_ids: Sequence[int]) -> Callable[[Callable], None]:
    """``run(start)``: the step again (the stream fed up to delta ``step``; no step: parse on
    the whole text), ``start()`` called right before it and every hook cleared after."""
    def run(start: Callable) -> None:
        stream = session.stream(keep_rows=False) if step else None
        for d in deltas[:step - 1] if stream is not None else ():
            stream.feed(d)
        start()
        try:
            if stream is not None:
                stream.feed(deltas[step - 1])  # type: ignore[index]
            else:
                session.nonstream(text, list(token_ids))
        finally:
            sys.settrace(None)
            sys.setprofile(None)
    return run


def attach(causes: list, session: Session, deltas: Sequence[Delta], checked: Any, result: Any) -> None:
    """Give each cause in an author's plugin (``where`` with ``returned_at``) the line that
    wrote the value that differs: ``wrote_at``, ``wrote_value``, ``wrote_field``."""
    import inspect

    by_key = {(f.kind, f.field): f for f in checked.findings}
    for cause in causes:
        w = cause.where
        if not w or w.get("vllm") or not w.get("returned_at") or not w.get("module"):
            continue
        owner = getattr(sys.modules.get(w["module"]), w["class"], None)
        fn = getattr(owner, "__dict__", {}).get(w["method"])
        code = getattr(fn, "__code__", None)
        found = [by_key[k] for x in cause.findings if (k := (x["kind"], x["field"])) in by_key]
        if code is None or not found:
            continue
        f = found[0]
        step = f.first_step if w["method"] in STREAMING else None
        if w["method"] in STREAMING and not step:
            continue
        label = f.extra.get("minimal_grouping") or f.extra.get("grouping") or f.chunking
        grouped = list(deltas) if label in (None, "token", "source", "nonstream") else \
            session.regroup(list(deltas), label)
        at, values = last_answer(code, session, grouped, step, f.field, result.text, result.token_ids)
        if not values:
            continue
        # the value that differs: not one the other answer has (a call's name often is)
        other = {v for c in result.nonstream_final.tool_calls for v in (c.name, c.arguments)} \
            if step and f.field == "tool_calls" else set()
        wanted = next((v for v in reversed(values) if v not in other), values[-1])
        run = replayer(session, grouped, at, result.text, result.token_ids)
        line = writer(inspect.getsourcefile(owner) or "", wanted, run)
        if line is not None:
            w.update(wrote_at=line, wrote_field=f.field, wrote_value=wanted[:200])
