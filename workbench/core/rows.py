"""One row per delta: everything the workbench shows about it."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

COLUMNS = ["step", "token_ids", "tokens", "text", "phase_before", "phase", "reasoning", "content",
           "tool_calls", "sse", "finish_reason", "error", "logs", "parser_us"]


@dataclass(slots=True)
class Row:
    step: int
    token_ids: list[int]
    tokens: list[str]
    text: str
    phase_before: str
    phase: str
    # The DeltaMessage vLLM returned, as {reasoning, content, tool_calls}; None
    # when parse_delta returned None.
    delta: dict | None
    sse: bool  # whether the serving layer would send an SSE chunk for it
    finish_reason: str | None = None
    error: str | None = None
    logs: list[str] = field(default_factory=list)
    parser_us: float = 0.0
    engine_steps: int = 1
    states_before: dict[str, str] = field(default_factory=dict)
    states: dict[str, str] = field(default_factory=dict)
    events: list[dict] = field(default_factory=list)
    extra: dict = field(default_factory=dict)  # e.g. the grammar view of an engine step
    # The stream's other SSE chunks: the server's opening chunk goes out with the
    # first delta, before its own chunk; the usage chunk after the last one.
    opening_chunk: str | None = None
    usage_chunk: str | None = None
    # The sent DeltaMessage; its chunk JSON is serialised on first access (``chunk``),
    # so replaying thousands of deltas does not pay for JSON nobody looks at.
    _sent: object = field(default=None, repr=False, compare=False)
    _chunk: str | None = field(default=None, repr=False, compare=False)
    _chunk_ids: list[int] | None = field(default=None, repr=False, compare=False)

    @property
    def chunk(self) -> str | None:
        if self._chunk is None and self.sse and self._sent is not None:
            from workbench.core.serving import chunk_json

            self._chunk = chunk_json(self._sent, self.finish_reason, self._chunk_ids)
        return self._chunk

    @property
    def chunks(self) -> list[str]:
        """Every SSE chunk the server sends for this delta, in order."""
        return [c for c in (self.opening_chunk, self.chunk, self.usage_chunk) if c is not None]

    @property
    def reasoning(self) -> str | None:
        return self.delta.get("reasoning") if self.delta else None

    @property
    def content(self) -> str | None:
        return self.delta.get("content") if self.delta else None

    @property
    def tool_calls(self) -> list[dict]:
        return self.delta.get("tool_calls") or [] if self.delta else []

    def to_dict(self) -> dict:
        d = {f: getattr(self, f) for f in _FIELDS}
        d["chunk"] = self.chunk
        return d


def to_frame(rows: list[Row]):
    """A pandas DataFrame with the readable columns (one row per delta)."""
    import pandas as pd

    records = []
    for r in rows:
        records.append({
            "step": r.step, "token_ids": r.token_ids, "tokens": r.tokens, "text": r.text,
            "phase_before": r.phase_before, "phase": r.phase,
            "reasoning": r.reasoning, "content": r.content,
            "tool_calls": format_tool_calls(r.tool_calls),
            "sse": r.sse, "finish_reason": r.finish_reason, "error": r.error,
            "logs": "\n".join(r.logs), "parser_us": round(r.parser_us, 1),
        })
    return pd.DataFrame.from_records(records, columns=COLUMNS)


def format_tool_calls(calls: list[dict]) -> str:
    parts = []
    for c in calls:
        head = f"#{c['index']}"
        if c.get("id"):
            head += f" id={c['id']}"
        if c.get("name"):
            head += f" name={c['name']}"
        if c.get("arguments"):
            head += f" args+={c['arguments']!r}"
        parts.append(head)
    return "; ".join(parts)


_FIELDS = [f.name for f in fields(Row) if not f.name.startswith("_")]
