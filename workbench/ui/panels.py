"""The banner and the HTML the panels share (theme colours; a row's detail as HTML).

Every colour is a JupyterLab theme variable tinted into the background, as in the
table's CSS, so Light and Dark both read.
"""

from __future__ import annotations

import html
import json
import traceback
from typing import TYPE_CHECKING

import ipywidgets as W

from workbench.core import secrets
from workbench.core.rows import Row, format_tool_calls, grammar_of
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from typing import Any

BG, FG = "var(--jp-layout-color0, #fff)", "var(--jp-content-font-color1, rgba(0,0,0,0.87))"
TINT = {"error": "var(--jp-error-color1, #d32f2f)", "warning": "var(--jp-warn-color1, #f57c00)",
        "info": "var(--jp-success-color1, #388e3c)", "reasoning": "var(--jp-brand-color1, #1976d2)",
        "content": "var(--jp-success-color1, #388e3c)", "tool": "var(--jp-warn-color1, #f57c00)"}


def tint(kind: str, percent: int = 18) -> str:
    """A background of ``kind``'s theme colour over the page's, with the page's text colour."""
    return f"background:color-mix(in srgb, {TINT[kind]} {percent}%, {BG});color:{FG}"


_KIND_CSS = {k: f"{tint(k)};border-left:4px solid {TINT[k]}" for k in ("error", "warning", "info")}


def _pre(text: str) -> str:
    # whole words only: a JSON line that does not fit scrolls sideways instead of breaking
    return ("<pre style='margin:0;font-size:11px;white-space:pre;overflow-x:auto;word-break:normal;"
            f"overflow-wrap:normal'>{html.escape(text)}</pre>")


class Banner(W.HTML):
    """One message at a time: WorkbenchError as one line, other errors with a
    one-line summary and the traceback behind a <details>."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.kind: str | None = None

    def show(self, kind: str, message: str, details: str | None = None) -> None:
        body = html.escape(message)
        if details:
            body += (f"<details><summary>traceback</summary>{_pre(details)}</details>")
        html_ = f"<div class='wb-banner wb-{kind}' style='{_KIND_CSS[kind]};padding:4px 8px'>{body}</div>"
        self.value = secrets.scrub(html_)  # the widget's output boundary, as the CLI's streams
        self.kind = kind

    def show_exception(self, exc: BaseException, context: str = "") -> None:
        where = f"{context}: " if context else ""
        if isinstance(exc, WorkbenchError):
            self.show("error", f"{where}{exc}")
        elif isinstance(exc, KeyboardInterrupt):
            self.show("warning", f"{where}interrupted (the rows so far are kept)")
        else:
            tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            if getattr(exc, "worker_traceback", ""):  # a lane's bug (LaneFailed): where it really raised
                tb += "\nthe lane worker's traceback:\n" + exc.worker_traceback
            first = str(exc).splitlines()[0] if str(exc) else ""
            self.show("error", f"{where}unexpected {type(exc).__name__}: {first}", tb)

    def clear(self) -> None:
        self.value = ""
        self.kind = None


def _kv_table(pairs: list[tuple[str, str]]) -> str:
    rows = "".join(f"<tr><th style='text-align:left;vertical-align:top;padding:1px 8px 1px 0;"
                   f"white-space:nowrap'>{html.escape(k)}</th><td style='padding:1px 0'>{v}</td></tr>"
                   for k, v in pairs)
    return f"<table class='wb-detail' style='border-collapse:collapse;font-size:12px'>{rows}</table>"


_WS = str.maketrans({" ": "␣", "\n": "⏎", "\t": "⇥", "\r": "␍"})


def visible(value: Any) -> str:
    """A value as HTML with whitespace visible; None and "" told apart."""
    if value is None:
        return "<i>None</i>"
    if value == "":
        return '<code>""</code>'
    return f"<code style='white-space:pre-wrap;word-break:normal'>{html.escape(str(value).translate(_WS))}</code>"


def _states(before: dict, after: dict) -> str:
    names = list(dict.fromkeys([*before, *after]))
    rows = "".join(f"<tr><td>{html.escape(n)}</td><td>{html.escape(str(before.get(n, '')))}</td>"
                   f"<td>{'→' if before.get(n) != after.get(n) else ''}</td>"
                   f"<td>{html.escape(str(after.get(n, '')))}</td></tr>" for n in names)
    return f"<table><tr><th>engine</th><th>before</th><th></th><th>after</th></tr>{rows}</table>"


def events_html(api: str, events: list[dict], note: str = "") -> str:
    """An API's events for one row: a line each, every event's JSON behind a fold."""
    from workbench.ui.faces_view import summary

    if not events:
        return f"<i>(no {html.escape(api)} event for this delta)</i>" + (f"<br><small>{html.escape(note)}</small>"
                                                                      if note else "")
    items = "".join(f"<li><code style='word-break:normal'>{html.escape(summary(e))}</code></li>" for e in events)
    full = _pre("\n".join(json.dumps(e, ensure_ascii=False) for e in events))
    tail = f"<small>{html.escape(note)}</small>" if note else ""
    return (f"<ul style='margin:0;padding-left:16px'>{items}</ul>{tail}"
            f"<details><summary>the events' JSON</summary>{full}</details>")


def row_detail_html(row: Row, decode=None, api_events: tuple[str, str] | None = None) -> str:
    """Everything about one delta; ``decode`` (a table.TokenText) gives each token's text;
    ``api_events``: (title, HTML) of the row's events on another API than chat."""
    tokens = "".join(f"<tr><td>{i}</td><td>{visible(decode(i) if decode else t)}</td>"
                     f"<td><code>{html.escape(t)}</code></td></tr>"
                     for i, t in zip(row.token_ids, row.tokens))
    chunk = json.dumps(json.loads(row.chunk), indent=1, ensure_ascii=False) if row.chunk else "(no SSE chunk)"
    events = "".join(f"<li>{html.escape(e.engine)}: <b>{html.escape(e.type)}</b> {html.escape(repr(e.value))}"
                     + (f" tool #{e.tool_index}" if e.tool_index >= 0 else "") + "</li>"
                     for e in row.events) or "<li>(none)</li>"
    delta = row.delta
    pairs = [
        ("step", str(row.step) + (f" ({row.engine_steps} engine steps)" if row.engine_steps != 1 else "")),
        ("tokens", "<table><tr><th>id</th><th>text</th><th>byte-level token</th></tr>"
                   f"{tokens}</table>" if tokens else "(none)"),
        ("text", visible(row.text)),
        ("phase", html.escape(f"{row.phase_before} → {row.phase}")),
        ("DeltaMessage", "parse_delta returned None" if delta is None else
         f"reasoning: {visible(delta.reasoning)}<br>content: {visible(delta.content)}"
         + (f"<br>tool_calls: {visible(format_tool_calls(row.tool_calls))}" if row.tool_calls else "")),
        ("states", _states(row.states_before, row.states) if row.states or row.states_before
         else "(no state machine)"),
        ("events", f"<ul style='margin:0;padding-left:16px'>{events}</ul>"),
        ("SSE chunk", _pre(chunk)),
        *([api_events] if api_events else []),
        ("vLLM log", _pre("\n".join(row.logs)) if row.logs else "(none)"),
        ("parser time", f"{row.parser_us:.0f} µs"),
    ]
    grammar = grammar_of(row)
    if grammar is not None:
        pairs.append(("grammar", html.escape(grammar)))
    extra = {k: v for k, v in row.extra.items() if k != "traceback"}
    if extra:
        pairs.append(("engine", _pre(json.dumps(extra, indent=1, ensure_ascii=False, default=str))))
    if row.error:
        pairs.append(("error", f"<span style='{tint('error', 22)}'>{html.escape(row.error)}</span>"
                      + (f"<details><summary>traceback</summary>{_pre(row.extra['traceback'])}</details>"
                         if row.extra.get("traceback") else "")))
    return secrets.scrub(_kv_table(pairs))
