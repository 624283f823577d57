"""The final-message tab: the joined stream beside the non-streaming answer, field by
field (values as JSON, each in its own cell: ``null``, ``""`` and ``[]`` as such), the
verdict and the first divergent step once the stream has ended; then the three APIs side
by side: what each one's client ends with, beside that API's non-streaming body (the
table component, under the schema of ``workbench.faces(wb).finals()``: api_frames.FINAL_COLUMNS)."""

from __future__ import annotations

import html

import ipywidgets as W

from workbench.ui.api_frames import FINAL_COLUMNS, final_items
from workbench.ui.final import inline_diff_html, shown
from workbench.ui.panels import CELL, HEAD, tint
from workbench.ui.table import RecordTable

WAITING = "<i>the final messages and the verdict come when the stream ends</i>"


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
        self.apis_note = W.HTML("")
        self.apis = RecordTable(FINAL_COLUMNS, height=200, role="finals", key="n", follow=False,
                                layout=W.Layout(display="none"))
        self.apis.add_class("wb-apis")
        self.more = W.Button(description="every API's final message", icon="columns",
                             layout=W.Layout(width="auto", display="none"))
        self.findings = W.HTML("")
        self.first_step: int | None = None
        super().__init__([self.html, self.goto, self.apis_note, self.apis, self.more, self.findings])

    def show(self, final, apis=None, apis_note: str = "") -> None:
        """``final``: the model's FinalView, or None before the stream ends; ``apis``: its
        finals per API (None: not made, ``apis_note`` says why)."""
        with self.hold_sync():
            if final is None:
                self.html.value, self.apis_note.value, self.findings.value = WAITING, "", ""
                self.show_apis(None)
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
            self.apis_note.value = ("<b>Every API's client, for this stream</b>" if apis else
                                    f"<i>{html.escape(apis_note)}</i>" if apis_note else "")
            self.show_apis(apis)
            self.more.layout.display = "none" if apis or not apis_note.endswith("click below") else None
            if final.findings is not None:
                self.findings.value = findings_html(final.findings)

    def show_apis(self, apis) -> None:
        """Every API's client and body as rows of the table component (None: hidden)."""
        if not apis:
            if self.apis.records:  # once: a Step before the end sends nothing here
                self.apis.layout.display = "none"
                self.apis.set_records([])
            return
        self.apis.set_records([{"n": i, **self.apis.cells(item)} for i, item in enumerate(final_items(apis), 1)])
        self.apis.layout.display = None
