"""The delta table's look, as pandas Styler rules (widget-free).

One rule, ``cell_css(record, column)``, decides every cell's CSS. ``styled(rows)``
hands it to ``DataFrame.style.apply`` for a static table; ``row_html`` applies
the same rule inline to one ``<tr>``, so the widget appends a step's row without
re-rendering the table.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING

from workbench.core.rows import Row, format_tool_calls

if TYPE_CHECKING:
    from typing import Any

PHASE_COLOURS = {"reasoning": "#ede7f6", "content": "#e3f2fd", "tool": "#fff3e0"}
ERROR_CSS = "background-color: #ffcdd2; color: #b71c1c;"
NO_SSE_CSS = "color: #9e9e9e;"
CHANGED_CSS = "box-shadow: inset 4px 0 0 #f9a825;"
STATE_CHANGE_CSS = "font-weight: bold; border-top: 2px solid #5e35b1;"
SELECTED_CSS = "outline: 2px solid #1e88e5;"

COLUMNS = ["step", "tokens", "text", "phase", "reasoning", "content", "tool_calls", "sse",
           "finish", "error"]
GRAMMAR_COLUMN = "grammar"
# Helper fields the rules read; never shown.
FLAGS = ["_phase", "_sse", "_error", "_state_change", "_changed", "_selected"]

TABLE_CSS = ("<style>.wb-table{border-collapse:collapse;font:12px monospace}"
             ".wb-table td,.wb-table th{border:1px solid #ddd;padding:1px 4px;vertical-align:top;"
             "white-space:pre-wrap;max-width:28em;overflow-wrap:anywhere}"
             ".wb-pill{border:1px solid #bbb;border-radius:3px;padding:0 2px;margin-right:1px}"
             ".wb-pill-special{background:#fff9c4}</style>")


def grammar_of(row: Row) -> str | None:
    """The constraint's view of this step, when an engine run recorded one."""
    g = row.extra.get("grammar")
    if g is None:
        return None
    if isinstance(g, dict) and "allowed" in g:
        parts = []
        for gate, allowed, ok in zip(g.get("gate_open") or [], g["allowed"],
                                     g.get("emitted_allowed") or [None] * len(g["allowed"])):
            text = f"{'open' if gate else 'closed' if gate is False else '?'} {allowed} allowed"
            if ok is not None:
                text += " ✓" if ok else " ✗ emitted token not allowed"
            parts.append(text)
        return "; ".join(parts)
    return g if isinstance(g, str) else json.dumps(g, ensure_ascii=False, default=str)


def state_changed(row: Row) -> bool:
    return row.phase_before != row.phase or (bool(row.states) and row.states_before != row.states)


def record(row: Row, changed: bool = False, selected: bool = False) -> dict:
    """One table record: the shown values plus the flags the rules read."""
    phase = row.phase if row.phase == row.phase_before else f"{row.phase_before}→{row.phase}"
    return {
        "step": row.step, "tokens": row.tokens, "text": row.text, "phase": phase,
        "reasoning": row.reasoning, "content": row.content,
        "tool_calls": format_tool_calls(row.tool_calls), "sse": "chunk" if row.sse else "none",
        "finish": row.finish_reason, "error": row.error, GRAMMAR_COLUMN: grammar_of(row),
        "_phase": row.phase, "_sse": row.sse, "_error": bool(row.error),
        "_state_change": state_changed(row), "_changed": changed, "_selected": selected,
    }


def cell_css(rec, column: str) -> str:
    """The Styler rule: phase colour, grey when no SSE chunk, red on error, marks."""
    if rec["_error"]:
        css = ERROR_CSS
    else:
        css = f"background-color: {PHASE_COLOURS.get(rec['_phase'], '#ffffff')};"
        if not rec["_sse"]:
            css += " " + NO_SSE_CSS
    if column == "phase" and rec["_state_change"]:
        css += " " + STATE_CHANGE_CSS
    if column == "step" and rec["_changed"]:
        css += " " + CHANGED_CSS
    if column == "step" and rec["_selected"]:
        css += " " + SELECTED_CSS
    return css


def columns(grammar: bool) -> list[str]:
    return COLUMNS[:-1] + [GRAMMAR_COLUMN, "error"] if grammar else list(COLUMNS)


def visible(value: Any) -> str:
    """A cell's text with its whitespace made visible: newlines and tabs as ⏎ ⇥, spaces
    as ␣ where they would vanish (at either end); None is blank, "" is shown as ""."""
    if value is None:
        return ""
    if not isinstance(value, str):
        return str(value)
    if value == "":
        return '""'
    text = value.replace("\t", "⇥").replace("\n", "⏎")
    core = text.strip(" ")
    lead, trail = len(text) - len(text.lstrip(" ")), len(text) - len(text.rstrip(" "))
    return "␣" * lead + core + "␣" * trail if core else "␣" * len(text)


def _shown(rec: dict, column: str) -> str:
    value = rec[column]
    if column == "tokens":
        return " ".join(visible(t) for t in value)
    return visible(value) if column in ("text", "reasoning", "content") else \
        ("" if value is None else str(value))


def styled(rows: list[Row], grammar: bool | None = None, changed: set[int] = frozenset()):
    """A pandas Styler of the whole table (for static display or export): markers such
    as ``<think>`` escaped, whitespace visible, no nan/None noise."""
    import pandas as pd

    if grammar is None:
        grammar = any(grammar_of(r) is not None for r in rows)
    cols = columns(grammar)
    records = [record(r, r.step in changed) for r in rows]
    for rec in records:
        rec.update({c: _shown(rec, c) for c in cols})
    frame = pd.DataFrame.from_records(records, columns=cols + FLAGS)
    return (frame.style
            .apply(lambda s: [cell_css(s, c) for c in s.index], axis=1)
            .format(escape="html", na_rep="")
            .hide(axis="columns", subset=FLAGS)
            .hide(axis="index"))


def _text(value: Any) -> str:
    if value is None:
        return ""
    return html.escape(value if isinstance(value, str) else str(value))


def tokens_html(tokens: list[str], special: frozenset[str] = frozenset()) -> str:
    out = []
    for t in tokens:
        cls = "wb-pill wb-pill-special" if t in special or (t.startswith("<") and t.endswith(">")) \
            else "wb-pill"
        out.append(f'<span class="{cls}">{html.escape(t)}</span>')
    return "".join(out)


def row_html(rec: dict, cols: list[str]) -> str:
    cells = []
    for c in cols:
        value = tokens_html(rec[c]) if c == "tokens" else _text(rec[c])
        cells.append(f'<td style="{cell_css(rec, c)}">{value}</td>')
    return f'<tr data-step="{rec["step"]}">' + "".join(cells) + "</tr>"


def header_html(cols: list[str]) -> str:
    return "<tr>" + "".join(f"<th>{c}</th>" for c in cols) + "</tr>"


def table_html(body_rows: list[str], cols: list[str], caption: str = "") -> str:
    cap = f"<caption style='text-align:left'>{html.escape(caption)}</caption>" if caption else ""
    return (TABLE_CSS + f'<table class="wb-table">{cap}<thead>{header_html(cols)}</thead><tbody>'
            + "".join(body_rows) + "</tbody></table>")
