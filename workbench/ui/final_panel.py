"""The final-message tab: the joined stream beside the non-streaming answer, field by
field (the table component under ``final.FIELD_COLUMNS``: values as JSON, each in its own
cell, ``null``, ``""`` and ``[]`` as such, a differing field's row marked), the verdict and
the first divergent step once the stream has ended; then the three APIs side by side:
what each one's client ends with, beside that API's non-streaming body (the table
component, under the schema of ``workbench.faces(wb).finals()``: api_frames.FINAL_COLUMNS;
both tables flow, so a long value wraps instead of being cut)."""

from __future__ import annotations

import html

import ipywidgets as W

from workbench.ui.api_frames import FINAL_COLUMNS, final_items
from workbench.ui.final import FIELD_COLUMNS, field_records
from workbench.ui.panels import tint
from workbench.ui.table import RecordTable

WAITING = "<i>the final messages and the verdict come when the stream ends</i>"
FIELDS_LEGEND = [["changed", "differs: streaming vs non-streaming", "changed"]]


def notes_html(final) -> str:
    """What the field table cannot say: the non-streaming parse's error, the notes."""
    extra = ""
    if final.nonstream.error:
        extra = f"<div style='{tint('error')}'>non-streaming parse raised: {html.escape(final.nonstream.error)}</div>"
    for note in final.notes:
        extra += f"<div>note: {html.escape(note)}</div>"
    return extra


def findings_html(report) -> str:
    """The check's findings on this stream, counted as the status line and check tab count them."""
    from workbench.ui.views import check_counts

    items = "".join(f"<li>{html.escape(f.headline())}</li>" for f in report.findings)
    return f"<b>check: {html.escape(check_counts(report))}</b>" + (f"<ul>{items}</ul>" if items else "")


class FinalPanel(W.VBox):
    """Streaming vs non-streaming, side by side; a link to the first divergent step; the
    three APIs' finals (``more`` asks for them when the stream is long)."""

    def __init__(self) -> None:
        self.html = W.HTML(WAITING)
        self.fields: RecordTable | None = None  # the field-by-field table, made when a stream first ends
        self.fields_box = W.Box([], layout=W.Layout(width="100%"))
        self.goto = W.Button(description="verdict: when the stream ends", disabled=True, icon="crosshairs",
                             layout=W.Layout(width="auto"))
        self.apis_note = W.HTML("")
        # flowing: "as the API has it" wraps (every block readable at 1280 px)
        self.apis = RecordTable(FINAL_COLUMNS, height=400, role="finals", key="n", follow=False, flow=True,
                                hint="click a row, Ctrl+C copies it as JSON", layout=W.Layout(display="none"))
        self.apis.add_class("wb-apis")
        self.more = W.Button(description="every API's final message", icon="columns",
                             layout=W.Layout(width="auto", display="none"))
        self.findings = W.HTML("")
        self.first_step: int | None = None
        super().__init__([self.fields_box, self.html, self.goto, self.apis_note, self.apis, self.more, self.findings])

    def show(self, final, apis=None, apis_note: str = "", findings=None) -> None:
        """``final``: the stream's FinalView, or None before the stream ends; ``apis``: its
        finals per API (None: not made, ``apis_note`` says why); ``findings``: a check's
        report on this stream."""
        from workbench.ui.views import final_verdict

        with self.hold_sync():
            if final is None:
                self.html.value, self.apis_note.value, self.findings.value = WAITING, "", ""
                if self.fields is not None and self.fields.records:
                    self.fields.set_records([])
                self.fields_box.layout.display = "none"
                self.show_apis(None)
                self.first_step = None
                self.goto.description, self.goto.disabled = "verdict: when the stream ends", True
                self.more.layout.display = "none"
                return
            self.html.value = notes_html(final)
            if self.fields is None:
                self.fields = RecordTable(FIELD_COLUMNS, height=400, role="final-fields", key="n",
                                                follow=False, flow=True, legend=FIELDS_LEGEND,
                                                hint="Ctrl+C copies rows as JSON",
                                                layout=W.Layout(width="100%"))
                self.fields.add_class("wb-fields")
                self.fields_box.children = [self.fields]
            self.fields.set_records(field_records(final.diffs))
            self.fields_box.layout.display = None
            self.first_step = final.first_step
            self.goto.description = f"verdict: {final_verdict(final)}" + (
                f"; go to step {self.first_step}" if self.first_step is not None else "")
            self.goto.disabled = self.first_step is None
            self.apis_note.value = ("<b>Every API's client, for this stream</b>" if apis else
                                    f"<i>{html.escape(apis_note)}</i>" if apis_note else "")
            self.show_apis(apis)
            self.more.layout.display = "none" if apis or not apis_note.endswith("click below") else None
            self.findings.value = findings_html(findings) if findings is not None else ""

    def show_apis(self, apis) -> None:
        """Every API's client and body as rows of the table component (None: hidden)."""
        if not apis:
            if self.apis.records:  # once: a Step before the end sends nothing here
                self.apis.layout.display = "none"
                self.apis.set_records([])
            return
        self.apis.set_records([{"n": i, **self.apis.cells(item)} for i, item in enumerate(final_items(apis), 1)])
        self.apis.layout.display = None
