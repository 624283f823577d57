"""Banner, row detail and final-message panels (thin widgets over pure data)."""

from __future__ import annotations

import html
import json
import traceback
from typing import TYPE_CHECKING

import ipywidgets as W

from workbench.core import secrets
from workbench.core.rows import Row, format_tool_calls, grammar_of
from workbench.errors import WorkbenchError
from workbench.ui.final import inline_diff_html, shown

if TYPE_CHECKING:
    from typing import Any

_KIND_CSS = {"error": "background:#ffebee;border-left:4px solid #c62828;color:#b71c1c",
             "warning": "background:#fff8e1;border-left:4px solid #f9a825",
             "info": "background:#e8f5e9;border-left:4px solid #2e7d32"}


def _pre(text: str) -> str:
    return f"<pre style='margin:0;white-space:pre-wrap'>{html.escape(text)}</pre>"


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
    rows = "".join(f"<tr><th style='text-align:left;vertical-align:top;padding-right:8px'>{html.escape(k)}</th>"
                   f"<td>{v}</td></tr>" for k, v in pairs)
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


def row_detail_html(row: Row, decode=None) -> str:
    """Everything about one delta; ``decode`` (a table.TokenText) gives each token's text."""
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
        pairs.append(("error", f"<span style='color:var(--jp-error-color1,#b71c1c)'>{html.escape(row.error)}</span>"
                      + (f"<details><summary>traceback</summary>{_pre(row.extra['traceback'])}</details>"
                         if row.extra.get("traceback") else "")))
    return secrets.scrub(_kv_table(pairs))


class RowDetail(W.VBox):
    """The selected row in full (beside the table); the number box jumps to a step."""

    def __init__(self) -> None:
        self.step = W.BoundedIntText(value=0, min=0, max=0, description="step",
                                     layout=W.Layout(width="150px"), style={"description_width": "36px"})
        self.html = W.HTML("<i>no row selected: click a row, or j/k</i>")
        super().__init__([self.step, self.html], layout=W.Layout(
            flex="0 1 380px", min_width="300px", max_height="460px", overflow="auto",
            padding="0 0 0 8px"))
        self.add_class("wb-row-detail")

    def show(self, row: Row | None, n_rows: int, decode=None) -> None:
        with self.hold_sync(), self.step.hold_sync():
            self.step.max = n_rows
            if row is None:
                self.html.value = "<i>no row selected: click a row, or j/k</i>"
                return
            self.step.value = row.step
            self.html.value = row_detail_html(row, decode)


def final_html(final) -> str:
    """``final``: the model's FinalView."""
    head = ("<tr><th>field</th><th>streaming (joined SSE chunks)</th>"
            "<th>non-streaming (parse on the whole text)</th></tr>")
    body = []
    for d in final.diffs:
        a, b = shown(d)
        if d.equal:
            a, b = html.escape(a), html.escape(b)
            mark = "✓"
        else:
            a, b = inline_diff_html(a, b)
            mark = "✗ cosmetic" if d.severity == "cosmetic" else "✗"
            if d.first_step:
                mark += f" first at step {d.first_step}"
        body.append(f"<tr><th>{d.field}<br><small>{mark}</small></th>"
                    f"<td style='white-space:pre-wrap'>{a}</td><td style='white-space:pre-wrap'>{b}</td></tr>")
    extra = ""
    err = final.nonstream.error
    if err:
        extra = f"<div style='color:#b71c1c'>non-streaming parse raised: {html.escape(err)}</div>"
    for note in final.notes:
        extra += f"<div style='color:#8d6e63'>note: {html.escape(note)}</div>"
    return (f"<table class='wb-final' style='font:12px monospace;border-collapse:collapse'>{head}"
            + "".join(body) + "</table>" + extra)


def findings_html(findings) -> str:
    if not findings:
        return "<i>check: no findings</i>"
    items = []
    for f in findings:
        text = f.headline() if hasattr(f, "headline") else str(f)
        items.append(f"<li>{html.escape(text)}</li>")
    return "<b>check findings</b><ul>" + "".join(items) + "</ul>"


class FinalPanel(W.VBox):
    """Streaming vs non-streaming, side by side; a link to the first divergent step."""

    def __init__(self) -> None:
        self.html = W.HTML("<i>the final messages appear when the stream ends</i>")
        self.goto = W.Button(description="no divergence", disabled=True, icon="crosshairs",
                             layout=W.Layout(width="auto"))
        self.findings = W.HTML("")
        self.first_step: int | None = None
        super().__init__([self.html, self.goto, self.findings])

    def show(self, final) -> None:
        """``final``: the model's FinalView, or None before the stream ends."""
        with self.hold_sync():
            if final is None:
                self.html.value = "<i>the final messages appear when the stream ends</i>"
                self.first_step = None
                self.goto.description, self.goto.disabled = "no divergence", True
                self.findings.value = ""
                return
            self.html.value = final_html(final)
            self.first_step = final.first_step
            if self.first_step is None:
                self.goto.description, self.goto.disabled = "streaming = non-streaming", True
            else:
                self.goto.description = f"first divergent step: {self.first_step}"
                self.goto.disabled = False
            if final.findings is not None:
                self.findings.value = findings_html(final.findings)
