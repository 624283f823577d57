"""Compare what a streaming client ends up with against a reference answer.

Two views per field: *raw* (the exact strings) and *normalised* (None == "",
whitespace runs ignored, tool-call arguments compared as parsed JSON). A field
that differs only in the raw view is a cosmetic finding. ``first_step`` is the
first delta after which the accumulated stream can no longer become the
reference (``props.first_step``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from workbench.check import props
from workbench.core.clip import clip
from workbench.core.messages import (CHUNKING, COSMETIC, ERROR, STREAM_VS_NONSTREAM, Difference,
                                     Final)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.core.rows import Row


def steps_of(rows: Sequence[Row]) -> list:
    """Per row, the MessageDelta the client received (None where no chunk was sent)."""
    return [r.delta if r.sse and r.error is None else None for r in rows]


def final_of(stream: Final | dict) -> Final:
    """A Final, from itself or from its JSON."""
    return Final.of(stream)


def role_chunk_only(field: str, a: object, b: object) -> bool:
    """Every stream opens with the server's role chunk, content "": a streaming client
    ends with "" where the non-streaming answer has null. The serving layer's, by
    design (OpenAI's too), so no finding."""
    return field == "content" and a == "" and b is None


def parser_loop_content(rows: Sequence[Row]) -> str | None:
    """The content the parser itself returned, joined (None when it returned none):
    what a bare ``parse_delta`` loop ends with, without the role chunk."""
    parts = [r.content for r in rows if r.sse and r.error is None and r.content is not None]
    return "".join(parts) if parts else None


def against(rows: Sequence[Row] | None, final, reference, kind: str, chunking: str, ref_name: str,
            equal: bool = False, first=None) -> list[Difference]:
    """One difference per field where ``final`` (from ``rows``) differs from ``reference``
    (``equal``: every field, severity None where they agree); ``first(field, raw)``: the
    first steps, when the rows were not kept (check/streams.py)."""
    final, reference = final_of(final), final_of(reference)
    found = []
    for d in props.differences(final, reference, kind=kind, equal=equal):
        if role_chunk_only(d.field, d.a, d.b):  # the server's opening chunk: no finding
            if equal:
                found.append(replace(d, severity=None, chunking=chunking))
            continue
        if d.severity is None:
            found.append(replace(d, chunking=chunking))
            continue
        if first is None:
            steps = steps_of(rows or [])
            first = lambda fld, raw: props.first_step(steps, reference, fld, raw=raw)  # noqa: E731
        found.append(replace(d, first_step=first(d.field, d.cosmetic), chunking=chunking,
                             detail=describe(d.field, final.to_dict(), reference.to_dict(), ref_name,
                                             d.severity)))
    return found


def stream_vs_nonstream(result, chunking: str, first=None) -> list[Difference]:
    """``result``: a replay, or anything with ``stream_final`` and ``nonstream_final`` (and
    ``first`` for its first steps)."""
    ref = result.nonstream_final
    if ref.error:
        return [Difference(ERROR, "parse", None, None, ref.error, chunking="nonstream",
                           detail=f"non-streaming parse raised {ref.error}")]
    return against(getattr(result, "rows", None), result.stream_final, ref, STREAM_VS_NONSTREAM, chunking,
                   "non-stream", first=first)


def error(step: int, message: str, chunking: str) -> Difference:
    return Difference(ERROR, "parse_delta", step, message, None, chunking=chunking,
                      detail=f"parse_delta raised at step {step}: {message}")


def errors(rows: Sequence[Row], chunking: str) -> list[Difference]:
    return [error(r.step, r.error, chunking) for r in rows if r.error][:1]


def variant_vs_baseline(rows: Sequence[Row] | None, stream, baseline, chunking: str, first=None) -> list[Difference]:
    return against(rows, stream, baseline, CHUNKING, chunking, "one-token deltas", first=first)


def _calls(view) -> str:
    return ", ".join(f"{c['name']}({c['arguments']})" for c in view) or "none"


def describe(field: str, final: dict, reference: dict, ref_name: str, severity: str) -> str:
    """One line on how ``final`` and ``reference`` (their JSON) differ in ``field``."""
    what = "only whitespace / None vs '' differs" if severity == COSMETIC else "differs"
    if field == "tool_calls":
        a, b = props.calls_raw(final), props.calls_raw(reference)
        return (f"{what}: stream {len(a)} call(s) [{_calls(a)}], {ref_name} {len(b)} "
                f"[{_calls(b)}]")
    return f"{what}: stream {clip(final.get(field), 60)}, {ref_name} {clip(reference.get(field), 60)}"


__all__ = ["against", "stream_vs_nonstream", "errors", "variant_vs_baseline", "steps_of",
           "final_of", "CHUNKING"]
