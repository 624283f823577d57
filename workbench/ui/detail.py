"""The selected row in full, beside the table: its properties (step, text, phase, the
DeltaMessage; below, the SSE chunk, logs, engine view), its token ids, engine states, state
machine events and its events on the picked API as tables of the table component; and the
row's JSON to take away (Copy JSON: the selected rows, as ``--json`` writes them; Download JSONL)."""

from __future__ import annotations

import html
import json

import ipywidgets as W

from workbench.core.rows import LABEL, NUMBER, TEXT, Column, Row
from workbench.ui.panels import row_detail_html
from workbench.ui.table import RecordTable

EMPTY = "<i>no row selected: click a row, or j/k</i>"


def _get(name: str):
    return lambda r: r[name]


TOKEN_COLUMNS = (
    Column("id", "id", "the token id", _get("id"), NUMBER, width=48, grow=0, fit=72),
    Column("text", "text", "the token decoded alone (a space as ␣, a newline as \\n)", _get("text"), TEXT, width=64, grow=1),
    Column("token", "byte-level token", "the token as vLLM's tokenizer spells it (byte-level BPE: Ġ is a space)",
           _get("token"), LABEL, width=100, grow=1),
)
STATE_COLUMNS = (
    Column("engine", "engine", "one of the parser's state machines", _get("engine"), LABEL, width=64, grow=1),
    Column("before", "before", "its state before this delta", _get("before"), LABEL, width=64, grow=1),
    Column("change", "→", "→: the state changed on this delta", _get("change"), LABEL, width=28, grow=0),
    Column("after", "after", "its state after this delta", _get("after"), LABEL, width=64, grow=1),
)
EVENT_COLUMNS = (
    Column("engine", "engine", "the state machine that emitted it", _get("engine"), LABEL, width=56, grow=0.5),
    Column("type", "event", "the event's type", _get("type"), LABEL, width=64, grow=1),
    Column("value", "value", "what it carries", _get("value"), LABEL, width=64, grow=1),
    Column("tool", "tool", "the tool call's index (blank: none)", lambda e: e.get("tool"), NUMBER, width=36, grow=0),
)
API_EVENT_COLUMNS = (
    Column("event", "event", "the event in a line (Ctrl+C copies the events' JSON)", _get("event"), LABEL,
           width=200, grow=1),
)


TABLES = {"tokens": TOKEN_COLUMNS, "states": STATE_COLUMNS, "events": EVENT_COLUMNS, "api": API_EVENT_COLUMNS}


def records(items: list[dict], columns: tuple[Column, ...]) -> list[dict]:
    return [{"n": i, **{c.name: v for c in columns if (v := c.shown_value(item)) is not None}}
            for i, item in enumerate(items, 1)]


def token_items(row: Row, decode=None) -> list[dict]:
    return [{"id": i, "text": decode(i) if decode else t, "token": t} for i, t in zip(row.token_ids, row.tokens)]


def state_items(row: Row) -> list[dict]:
    before, after = row.states_before, row.states
    return [{"engine": n, "before": str(before.get(n, "")), "after": str(after.get(n, "")),
             "change": "→" if before.get(n) != after.get(n) else ""} for n in dict.fromkeys([*before, *after])]


def event_items(row: Row) -> list[dict]:
    return [{"engine": e.engine, "type": e.type, "value": repr(e.value),
             "tool": e.tool_index if e.tool_index >= 0 else None} for e in row.events]


class RowDetail(W.VBox):
    """The number box jumps to a step; the buttons take the selected rows away."""

    def __init__(self) -> None:
        self.step = W.BoundedIntText(value=0, min=0, max=0, description="step",
                                     layout=W.Layout(width="100px", flex="0 0 auto"), style={"description_width": "32px"})
        self.copy_button = W.Button(description="Copy JSON", icon="copy", layout=W.Layout(width="auto", flex="0 0 auto"),
                                    tooltip="the selected rows' JSON to the clipboard (Ctrl+C in the table too)")
        self.download_button = W.Button(description="JSONL", icon="download", layout=W.Layout(width="auto",
                                                                                             flex="0 0 auto"),
                                        tooltip="download the selected rows (all rows when none is) as JSON lines")
        self.html = W.HTML(EMPTY)
        self.tail = W.HTML("")
        self.api_events: list[dict] = []
        self.titles = {name: W.HTML("") for name in TABLES}
        # made when a row first has records for them: each table is a front-end module of its
        # own, and a notebook reloaded with many workbenches restores every one from the kernel
        self.tables: dict[str, RecordTable] = {}
        # the header (the step box, Copy JSON, JSONL) never shrinks: only the body below it scrolls
        self.head = W.HBox([self.step, self.copy_button, self.download_button],
                           layout=W.Layout(flex="0 0 auto", min_height="34px", overflow="visible", flex_flow="row wrap"))
        self.head.add_class("wb-detail-head")
        self.body = W.VBox([self.html, *self.titles.values(), self.tail],
                           layout=W.Layout(flex="1 1 auto", overflow="auto", min_height="0"))
        super().__init__([self.head, self.body],
                         layout=W.Layout(flex="1 1 260px", min_width="260px", max_height="520px",
                                         overflow="hidden", padding="0 0 0 8px"))
        self.add_class("wb-row-detail")

    @property
    def value(self) -> str:
        """The detail's HTML (its tables aside)."""
        return self.html.value + self.tail.value + "".join(t.value for t in self.titles.values())

    def _table(self, name: str, title: str, items: list[dict] | None, none: str = "(none)") -> None:
        shown = items is not None
        self.titles[name].value = (f"<b>{title}</b>" + ("" if items else f": {none}")) if shown else ""
        table = self.tables.get(name)
        if table is None and items:
            table = self.tables[name] = RecordTable(TABLES[name], height=220, role=f"detail-{name}", key="n",
                                                    follow=False, flow=True, hint="Ctrl+C copies rows as JSON")
            if name == "api":
                table.copy_text = self._api_json
            at = self.body.children.index(self.titles[name]) + 1
            self.body.children = (*self.body.children[:at], table, *self.body.children[at:])
        if table is not None:
            table.set_records(records(items, table.schema) if items else [])
            table.layout.display = None if items else "none"

    def _api_json(self, keys: list[int]) -> str:
        """The API events' own JSON (the table shows a line each)."""
        return "".join(json.dumps(self.api_events[k - 1], ensure_ascii=False) + "\n"
                       for k in keys if 0 < k <= len(self.api_events))

    def show(self, row: Row | None, n_rows: int, decode=None, api: str = "chat",
             events: list[dict] | None = None, note: str = "", forced: bool = False) -> None:
        """``events``: the row's events on ``api`` (None for chat, whose chunk is shown);
        ``forced``: the row comes from the engine's script (its tokens are not sampled)."""
        from workbench.ui.faces_view import summary

        with self.hold_sync(), self.step.hold_sync():
            self.step.max = max(n_rows, row.step if row is not None else 0)
            if row is None:
                self.step.value = 0
                self.html.value, self.tail.value = EMPTY, ""
                for name in TABLES:
                    self._table(name, "", None)
                return
            self.step.value = row.step
            self.html.value, self.tail.value = row_detail_html(row, decode, forced)
            self._table("tokens", "tokens", token_items(row, decode))
            self._table("states", "engine states", state_items(row), "(no state machine)")
            self._table("events", "events", event_items(row))
            self.api_events = events or []
            title = f"{html.escape(api)} events" + (f" <small>({html.escape(note)})</small>" if note else "")
            self._table("api", title, None if events is None else [{"event": summary(e)} for e in events],
                        f"(no {html.escape(api)} event for this delta)")
