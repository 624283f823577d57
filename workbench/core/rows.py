"""One row per delta: everything the workbench shows about it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

COLUMNS = ["step", "token_ids", "tokens", "text", "phase_before", "phase", "reasoning", "content",
           "tool_calls", "sse", "finish_reason", "error", "logs", "parser_us"]


@dataclass
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
    chunk: str | None  # that chunk's JSON, as the server serialises it
    finish_reason: str | None = None
    error: str | None = None
    logs: list[str] = field(default_factory=list)
    parser_us: float = 0.0
    engine_steps: int = 1
    states_before: dict[str, str] = field(default_factory=dict)
    states: dict[str, str] = field(default_factory=dict)
    events: list[dict] = field(default_factory=list)
    extra: dict = field(default_factory=dict)  # e.g. the grammar view of an engine step

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
        return asdict(self)


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
