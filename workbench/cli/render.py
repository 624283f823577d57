"""Terminal rendering of rows and final messages (rich)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from workbench.core.rows import Row, format_tool_calls

if TYPE_CHECKING:
    from typing import Any

PHASE_STYLE = {"reasoning": "magenta", "content": "green", "tool": "cyan",
               # Harmony's channels (workbench.core.machine.harmony_phase)
               "analysis": "magenta", "final": "green", "commentary": "green"}


def phase_style(phase: str) -> str:
    if "to=" in phase:  # a Harmony message addressed to a tool
        return "cyan"
    return PHASE_STYLE.get(phase, "default")


def _short(value: Any, width: int = 40) -> str:
    if value is None:
        return ""
    s = repr(value)
    return s if len(s) <= width else s[: width - 1] + "…"


def rows_table(rows: list[Row], title: str | None = None) -> Table:
    t = Table(title=title, show_lines=False, header_style="bold")
    for col in ("step", "ids", "text", "phase", "reasoning", "content", "tool_calls", "sse", "µs", "notes"):
        t.add_column(col, overflow="fold")
    for r in rows:
        phase = r.phase_before if r.phase == r.phase_before else f"{r.phase_before}→{r.phase}"
        notes = r.error or ""
        if r.finish_reason:
            notes = f"finish={r.finish_reason} {notes}".strip()
        if r.logs:
            notes = (notes + " " if notes else "") + f"[{len(r.logs)} log] {r.logs[-1][:60]}"
        style = "red" if r.error else ("dim" if not r.sse else None)
        # Model text is data, never rich markup: Mistral's "[TOOL_CALLS]" / "[/THINK]" would be tags.
        t.add_row(str(r.step), " ".join(map(str, r.token_ids)), escape(_short(r.text, 24)),
                  f"[{phase_style(r.phase)}]{escape(phase)}[/]", escape(_short(r.reasoning)),
                  escape(_short(r.content)), escape(format_tool_calls(r.tool_calls)),
                  "yes" if r.sse else "-", f"{r.parser_us:.0f}", escape(notes), style=style)
    return t


def final_table(stream: dict, nonstream: dict) -> Table:
    t = Table(title="final message", header_style="bold")
    t.add_column("field")
    t.add_column("stream", overflow="fold")
    t.add_column("non-stream", overflow="fold")
    for key in ("reasoning", "content"):
        mark = "" if stream.get(key) == nonstream.get(key) else " [yellow]≠[/]"
        t.add_row(key + mark, escape(repr(stream.get(key))), escape(repr(nonstream.get(key))))
    s_calls = "\n".join(f"{c['name']}({c['arguments']})" for c in stream.get("tool_calls", []))
    n_calls = "\n".join(f"{c['name']}({c['arguments']})" for c in nonstream.get("tool_calls", []))
    t.add_row("tool_calls" + ("" if s_calls == n_calls else " [yellow]≠[/]"),
              escape(s_calls or "[]"), escape(n_calls or "[]"))
    t.add_row("finish_reason", str(stream.get("finish_reason")), str(nonstream.get("finish_reason")))
    if nonstream.get("error"):
        t.add_row("[red]error[/]", "", escape(nonstream["error"]))
    return t


def console() -> Console:
    return Console(width=160)
