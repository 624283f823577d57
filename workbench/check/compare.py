"""Compare what a streaming client ends up with against a reference answer.

Two views per field: *raw* (the exact strings) and *normalised* (None == "",
whitespace runs ignored, tool-call arguments compared as parsed JSON). A field
that differs only in the raw view is a cosmetic finding. ``first_step`` is the
first delta after which the accumulated stream can no longer become the
reference (``props.first_step``).
"""

from __future__ import annotations

from workbench.check import props
from workbench.check.findings import (CHUNKING, COSMETIC, ERROR, STREAM_VS_NONSTREAM, Finding)


def steps_of(rows) -> list[dict | None]:
    """Per row, the delta the client received (None where no chunk was sent)."""
    return [r.delta if r.sse and r.error is None else None for r in rows]


def final_of(stream: dict) -> dict:
    # Every stream opens with content "" (the server's role chunk): that alone is no finding.
    return {"reasoning": stream.get("reasoning"), "content": stream.get("content") or None,
            "tool_calls": stream.get("tool_calls") or [], "finish_reason": stream.get("finish_reason")}


def against(rows, final: dict, reference: dict, kind: str, chunking: str,
            ref_name: str) -> list[Finding]:
    """One finding per field where ``final`` (from ``rows``) differs from ``reference``."""
    found = []
    diffs = props.differences(final, reference)
    if not diffs:
        return found
    steps = steps_of(rows)
    for field, severity in diffs.items():
        raw = severity == COSMETIC
        f = Finding(kind=kind, field=field,
                    first_step=props.first_step(steps, reference, field, raw=raw),
                    chunking=chunking, stream=props.raw_view(final, field),
                    nonstream=props.raw_view(reference, field), severity=severity,
                    detail=describe(field, final, reference, ref_name, severity))
        ns, nr = props.norm_view(final, field), props.norm_view(reference, field)
        if (ns, nr) != (f.stream, f.nonstream):
            f.normalised = {"stream": ns, "nonstream": nr}
        found.append(f)
    return found


def stream_vs_nonstream(result, chunking: str) -> list[Finding]:
    ref = dict(result.nonstream)
    if ref.get("error"):
        return [Finding(ERROR, "parse", None, "nonstream", None, ref["error"],
                        detail=f"non-streaming parse raised {ref['error']}")]
    return against(result.rows, final_of(result.stream), ref, STREAM_VS_NONSTREAM, chunking,
                   "non-stream")


def errors(rows, chunking: str) -> list[Finding]:
    return [Finding(ERROR, "parse_delta", r.step, chunking, r.error, None,
                    detail=f"parse_delta raised at step {r.step}: {r.error}")
            for r in rows if r.error][:1]


def variant_vs_baseline(rows, stream: dict, baseline: dict, chunking: str) -> list[Finding]:
    return against(rows, final_of(stream), final_of(baseline), CHUNKING, chunking,
                   "one-token deltas")


def _calls(view) -> str:
    return ", ".join(f"{c['name']}({c['arguments']})" for c in view) or "none"


def _short(value, width: int = 60) -> str:
    s = repr(value)
    return s if len(s) <= width else s[: width - 1] + "…"


def describe(field: str, final: dict, reference: dict, ref_name: str, severity: str) -> str:
    what = "only whitespace / None vs '' differs" if severity == COSMETIC else "differs"
    if field == "tool_calls":
        a, b = props.calls_raw(final), props.calls_raw(reference)
        return (f"{what}: stream {len(a)} call(s) [{_calls(a)}], {ref_name} {len(b)} "
                f"[{_calls(b)}]")
    return f"{what}: stream {_short(final.get(field))}, {ref_name} {_short(reference.get(field))}"


__all__ = ["against", "stream_vs_nonstream", "errors", "variant_vs_baseline", "steps_of",
           "final_of", "CHUNKING"]
