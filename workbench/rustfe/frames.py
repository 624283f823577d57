"""``workbench.side_by_side(...)``: one stream through the Python parsers and vllm-rs's, as
DataFrames for a notebook (notebooks/07_python_and_rust.ipynb).

``frame()``: one row per delta, what each side sent (the Rust side's own SSE events in
``rust_sse``); ``finals()``: both answers, stream and non-stream, field by field;
``first_step``: where they part (None: nowhere).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.core.diff import DiffResult


def _sent(view: dict | None) -> str:
    if view is None:
        return "(no step)"
    d = view.get("delta")
    if not view.get("sse") or d is None:
        return ""
    parts = [f"{k}={d[k]!r}" for k in ("reasoning", "content") if d.get(k) is not None]
    for c in d.get("tool_calls") or ():
        bits = [f"#{c['index']}"] + [f"{k}={c[k]!r}" for k in ("name", "arguments") if c.get(k) is not None]
        parts.append(" ".join(bits))
    return "; ".join(parts) or "{}"


class SideBySide:
    def __init__(self, result: DiffResult) -> None:
        self.result = result
        self.python, self.rust = result.a, result.b
        self.labels = (result.label_a, result.label_b)
        self.first_step = result.first_step

    def __repr__(self) -> str:
        where = f"they part at step {self.first_step}" if self.first_step else "they agree at every step"
        return f"<side by side: {self.labels[0]} | {self.labels[1]}: {where}>"

    def frame(self, changed: bool = False) -> Any:
        """One row per delta: its text, what the Python side sent, what vllm-rs sent (and its
        SSE events as written), which fields differ."""
        rows = []
        for s, rust_row in zip(self.result.steps, self.rust.rows):
            if changed and s.same:
                continue
            ref = s.a or s.b or {}
            rows.append({"step": s.step, "text": ref.get("text"), "python": _sent(s.a), "rust": _sent(s.b),
                         "differs": ", ".join(s.output), "rust_sse": [e.rstrip("\n") for e in rust_row.raw]})
        return _frame(rows, ["step", "text", "python", "rust", "differs", "rust_sse"])

    def finals(self) -> Any:
        """Both answers field by field: the stream joined, and the non-streaming body."""
        rows = [{"mode": mode, "field": d.field, "python": _show(d.a), "rust": _show(d.b), "same": d.same}
                for mode, ds in self.result.final.items() for d in ds]
        return _frame(rows, ["mode", "field", "python", "rust", "same"])


def _frame(rows: list[dict], columns: list[str]) -> Any:
    """A DataFrame whose missing values stay None (a column of objects), as ``rows.to_frame``'s."""
    import pandas as pd

    return pd.DataFrame({c: pd.Series([r[c] for r in rows], dtype=None if c in ("step", "same") else object)
                         for c in columns}, columns=columns)


def _show(value: Any) -> Any:
    if isinstance(value, list):
        return json.dumps(value, ensure_ascii=False)
    return value


def side_by_side(text: str, *, tool_parser: str | None = None, reasoning_parser: str | None = None,
                 tools: list | None = None, tokenizer: str = "qwen3", api: str = "chat",
                 finish_reason: str = "stop", rust: str | None = None) -> SideBySide:
    """``text`` tokenized once, fed to the installed vLLM's Python parsers and to vllm-rs
    ``rust`` (default: the newest locked), one token a delta."""
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup
    from workbench.rustfe import side_by_side as sbs

    spec = ParserSpec(tool_parser, reasoning_parser)
    setup = Setup(tokenizer=tokenizer, parser=spec, request=RequestSpec(tools=tools), api=api)
    deltas = Session(setup).deltas_from_text(text, finish_reason=finish_reason)
    return SideBySide(sbs.compare(setup, sbs.Side(spec), sbs.Side(spec, rust, rust=True), deltas=deltas))
