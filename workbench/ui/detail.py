"""The selected row in full, beside the table: its token ids, the DeltaMessage, the SSE
chunk, the row's events on the picked API, engine states and logs; and the row's JSON to
take away (Copy JSON: the selected rows, as ``--json`` writes them; Download JSONL)."""

from __future__ import annotations

import ipywidgets as W

from workbench.core.rows import Row
from workbench.ui.panels import events_html, row_detail_html

EMPTY = "<i>no row selected: click a row, or j/k</i>"


class RowDetail(W.VBox):
    """The number box jumps to a step; the buttons take the selected rows away."""

    def __init__(self) -> None:
        self.step = W.BoundedIntText(value=0, min=0, max=0, description="step",
                                     layout=W.Layout(width="120px"), style={"description_width": "32px"})
        self.copy_button = W.Button(description="Copy JSON", icon="copy", layout=W.Layout(width="auto"),
                                    tooltip="the selected rows' JSON to the clipboard (Ctrl+C in the table too)")
        self.download_button = W.Button(description="JSONL", icon="download", layout=W.Layout(width="auto"),
                                        tooltip="download the selected rows (all rows when none is) as JSON lines")
        self.html = W.HTML(EMPTY)
        super().__init__([W.HBox([self.step, self.copy_button, self.download_button]), self.html],
                         layout=W.Layout(flex="0 1 340px", min_width="300px", max_height="460px",
                                         overflow="auto", padding="0 0 0 8px"))
        self.add_class("wb-row-detail")

    def show(self, row: Row | None, n_rows: int, decode=None, api: str = "chat",
             events: list[dict] | None = None, note: str = "") -> None:
        """``events``: the row's events on ``api`` (None for chat, whose chunk is shown)."""
        with self.hold_sync(), self.step.hold_sync():
            self.step.max = n_rows
            if row is None:
                self.html.value = EMPTY
                return
            self.step.value = row.step
            more = (f"{api} events", events_html(api, events, note)) if events is not None else None
            self.html.value = row_detail_html(row, decode, more)
