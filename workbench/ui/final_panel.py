"""The final-message tab: the joined stream beside the non-streaming answer, field by
field (values as JSON, each in its own cell: ``null``, ``""`` and ``[]`` as such), the
verdict and the first divergent step once the stream has ended; then the three APIs side
by side: what each one's client ends with, beside that API's non-streaming body."""

from __future__ import annotations

import html
import json

import ipywidgets as W

from workbench.core.faces import finals
from workbench.ui.final import inline_diff_html, shown
from workbench.ui.panels import CELL, HEAD, tint

WAITING = "<i>the final messages and the verdict come when the stream ends</i>"
CLIENTS = {"chat": "a Chat Completions client (joined SSE chunks)",
           "responses": "the openai SDK's ResponseStream (Codex, the Agents SDK)",
           "messages": "the anthropic SDK's MessageStream (Claude Code)"}


def _td(body: str, style: str = "") -> str:
    return f"<td style='{CELL};white-space:pre-wrap;{style}'>{body}</td>"


def final_html(final) -> str:
    """``final``: the model's FinalView."""
    head = "".join(f"<th style='{HEAD}'>{t}</th>" for t in
                   ("field", "streaming (joined SSE chunks)", "non-streaming (parse on the whole text)", "verdict"))
    body = []
    for d in final.diffs:
        a, b = shown(d)
        if d.equal:
            a, b = html.escape(a), html.escape(b)
            mark, style = "✓ equal", ""
        else:
            a, b = inline_diff_html(a, b)
            mark = "✗ cosmetic" if d.severity == "cosmetic" else "✗ differs"
            if d.first_step:
                mark += f" from step {d.first_step}"
            style = tint("warning", 14)
        body.append(f"<tr><th style='{HEAD}'>{html.escape(d.field)}</th>{_td(a)}{_td(b)}"
                    f"{_td(mark, style + ';white-space:nowrap')}</tr>")
    extra = ""
    if final.nonstream.error:
        extra = f"<div style='{tint('error')}'>non-streaming parse raised: {html.escape(final.nonstream.error)}</div>"
    for note in final.notes:
        extra += f"<div>note: {html.escape(note)}</div>"
    return (f"<table class='wb-final' style='font:12px var(--jp-code-font-family, monospace);"
            f"border-collapse:collapse'><tr>{head}</tr>{''.join(body)}</table>{extra}")


def _lines(api: str, obj: dict | None) -> str:
    """An API's object as one JSON line per block (chat: per field)."""
    if obj is None:
        return "<i>none</i>"
    if api == "chat":
        return html.escape("\n".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in obj.items()
                                     if k in ("reasoning", "content", "tool_calls", "finish_reason")))
    if "error" in obj and "output" not in obj and obj.get("type") != "message":
        return f"<span style='{tint('error')}'>error: {html.escape(json.dumps(obj['error'], ensure_ascii=False))}</span>"
    out = []
    for b in finals.blocks(api, obj):
        name = f" {b['name']}" if b.get("name") else ""
        line = html.escape(f"{b['kind']}{name}: {json.dumps(b['text'], ensure_ascii=False)}")
        if b["kind"] == "text" and not (b["text"] or "").strip():
            line = f"<span style='{tint('warning', 24)}'>{line}  ⚠ only whitespace: an empty bubble</span>"
        out.append(line)
    key = "status" if api == "responses" else "stop_reason"
    out.append(html.escape(f"{key}: {json.dumps(finals.finish(api, obj))}"))
    return "\n".join(out) or "[]"


def apis_html(apis) -> str:
    """``apis``: faces_view.ApiFinal per API (chat, responses, messages)."""
    head = f"<th style='{HEAD}'></th>" + "".join(
        f"<th style='{HEAD}'>{html.escape(a.api)}</th>" for a in apis)
    client = "".join(_td(_lines(a.api, a.client)) for a in apis)
    body = "".join(_td(_lines(a.api, a.body)) for a in apis)
    verdicts = []
    for a in apis:
        differs = a.differs
        text = "✓ the client holds the body" if not differs else f"✗ differ: {', '.join(differs)}"
        notes = "".join(f"<br><small>{html.escape(n)}</small>" for n in a.notes)
        verdicts.append(_td(html.escape(text) + notes, tint("warning", 14) if differs else ""))
    who = "".join(_td(html.escape(CLIENTS[a.api]), "font-style:italic") for a in apis)
    return (f"<b>Every API's client, for this stream</b><table class='wb-apis' style='font:12px "
            f"var(--jp-code-font-family, monospace);border-collapse:collapse;width:100%;table-layout:fixed'>"
            f"<tr>{head}</tr><tr><th style='{HEAD}'>who</th>{who}</tr>"
            f"<tr><th style='{HEAD}'>the client ends with</th>{client}</tr>"
            f"<tr><th style='{HEAD}'>non-streaming body</th>{body}</tr>"
            f"<tr><th style='{HEAD}'>verdict</th>{''.join(verdicts)}</tr></table>")


def findings_html(findings) -> str:
    if not findings:
        return "<i>check: no findings</i>"
    items = []
    for f in findings:
        text = f.headline() if hasattr(f, "headline") else str(f)
        items.append(f"<li>{html.escape(text)}</li>")
    return "<b>check findings</b><ul>" + "".join(items) + "</ul>"


class FinalPanel(W.VBox):
    """Streaming vs non-streaming, side by side; a link to the first divergent step; the
    three APIs' finals (``more`` asks for them when the stream is long)."""

    def __init__(self) -> None:
        self.html = W.HTML(WAITING)
        self.goto = W.Button(description="verdict: when the stream ends", disabled=True, icon="crosshairs",
                             layout=W.Layout(width="auto"))
        self.apis = W.HTML("")
        self.more = W.Button(description="every API's final message", icon="columns",
                             layout=W.Layout(width="auto", display="none"))
        self.findings = W.HTML("")
        self.first_step: int | None = None
        super().__init__([self.html, self.goto, self.apis, self.more, self.findings])

    def show(self, final, apis=None, apis_note: str = "") -> None:
        """``final``: the model's FinalView, or None before the stream ends; ``apis``: its
        finals per API (None: not made, ``apis_note`` says why)."""
        with self.hold_sync():
            if final is None:
                self.html.value, self.apis.value, self.findings.value = WAITING, "", ""
                self.first_step = None
                self.goto.description, self.goto.disabled = "verdict: when the stream ends", True
                self.more.layout.display = "none"
                return
            self.html.value = final_html(final)
            self.first_step = final.first_step
            if self.first_step is None:
                self.goto.description, self.goto.disabled = "verdict: streaming = non-streaming", True
            else:
                self.goto.description = f"verdict: they diverge; go to step {self.first_step}"
                self.goto.disabled = False
            self.apis.value = apis_html(apis) if apis else (f"<i>{html.escape(apis_note)}</i>" if apis_note else "")
            self.more.layout.display = "none" if apis or not apis_note.endswith("click below") else None
            if final.findings is not None:
                self.findings.value = findings_html(final.findings)
