"""Terminal rendering of rows and final messages, through the writing door's rich table
(``core/writing/terminal.py``: every cell a value, its control characters shown escaped)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.core.clip import clip
from workbench.core.machine import Kind
from workbench.core.rows import LABEL, NUMBER, TEXT, TOKENS, Column, Row, shown_columns
from workbench.core.writing import terminal

if TYPE_CHECKING:
    from workbench.core.writing.terminal import Text

KIND_STYLE = {Kind.REASONING: "magenta", Kind.CONTENT: "green", Kind.TOOL: "cyan"}


def cell(column: Column, row: Row) -> Text | str:
    """One cell as terminal text, drawn by the column's kind (a value: model text is data,
    and Mistral's "[TOOL_CALLS]" / "[/THINK]" are no markup)."""
    value = column.shown_value(row)
    if value is None:
        return ""
    if column.kind == TOKENS:
        text = " ".join(value)
    elif column.kind == TEXT:
        text = clip(value, 24 if column.name == "text" else 40)
    else:
        text = str(value)
    if column.name == "phase":
        return terminal.styled(text, KIND_STYLE.get(row.phase.kind, "default"))
    return text


def rows_table(rows: list[Row], title: str | None = None) -> terminal.Table:
    """The rows under the schema's shown columns (core/rows.py), as the widget's table."""
    columns = shown_columns(rows)
    t = terminal.Table(title=title, show_lines=False, header_style="bold")
    for c in columns:
        t.add_column(c.title, overflow="fold", justify="right" if c.kind == NUMBER else "left",
                     no_wrap=c.kind == LABEL and c.name != "phase")
    for r in rows:
        style = "red" if r.error else ("dim" if not r.sse else None)
        t.add_row(*(cell(c, r) for c in columns), style=style)
    return t


def final_table(stream: dict, nonstream: dict, rows: list | None = None) -> terminal.Table:
    """Stream vs non-stream per field; with ``rows``, a caption where the stream's content is
    only the server's role chunk (a bare parse_delta loop would end with null)."""
    caption = None
    if rows is not None:
        from workbench.check.compare import parser_loop_content

        if stream.get("content") == "" and parser_loop_content(rows) is None:
            caption = ('streaming content "" is the server\'s opening role chunk; the parser itself sent none '
                       "(a bare parse_delta loop ends with null)")
    t = terminal.Table(title="final message", caption=caption, header_style="bold")
    t.add_column("field")
    t.add_column("stream", overflow="fold")
    t.add_column("non-stream", overflow="fold")
    for key in ("reasoning", "content"):
        t.add_row(_field(key, stream.get(key) == nonstream.get(key)), repr(stream.get(key)),
                  repr(nonstream.get(key)))
    s_calls = [f"{c['name']}({c['arguments']})" for c in stream.get("tool_calls", [])]
    n_calls = [f"{c['name']}({c['arguments']})" for c in nonstream.get("tool_calls", [])]
    t.add_row(_field("tool_calls", s_calls == n_calls), terminal.cells(s_calls or ["[]"]),
              terminal.cells(n_calls or ["[]"]))
    t.add_row("finish_reason", str(stream.get("finish_reason")), str(nonstream.get("finish_reason")))
    if nonstream.get("error"):
        t.add_row(terminal.markup("[red]error[/]"), "", nonstream["error"])
    return t


def _field(name: str, same: bool) -> Text:
    return terminal.markup("{}" if same else "{} [yellow]≠[/]", name)


def console() -> terminal.Console:
    return terminal.console()
