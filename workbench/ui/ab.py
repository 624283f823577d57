"""A/B mode: two parser specs, or two APIs, on one stream, side by side (``core.diff``
does the work; ``ab_apis`` builds the sides of two APIs): the same front-end table
twice, scrolled together, the steps that differ marked on both sides."""

from __future__ import annotations

import html
from dataclasses import replace

import ipywidgets as W

from workbench.core.faces import APIS
from workbench.core.rows import LABEL, Column
from workbench.ui.ab_apis import label  # noqa: F401 (the A/B panel's name for a spec)
from workbench.ui.final import as_json
from workbench.ui.table import DELTA_LEGEND, ROW_COLUMNS, DeltaTable, RecordTable, TokenText

AB_LEGEND = [k for k in DELTA_LEGEND if k[0] != "changed"] + [["changed", "differs from the other side", "changed"]]
FINAL_LEGEND = [["changed", "differs between A and B", "changed"]]
# each side: the rows' columns but the tokens, which are the strip above each table (A's and
# B's are the same; "columns" shows them again); a side whose columns cannot fit uncut beside
# the other goes below it
SIDE_COLUMNS = tuple(replace(c, shown=False) if c.name == "tokens" else c for c in ROW_COLUMNS)


def final_columns(label_a: str, label_b: str) -> tuple[Column, ...]:
    """The final answers' table: each field of each answer, A's and B's value as JSON."""
    return (Column("answer", "answer", "stream: the joined SSE chunks (an API's client); nonstream: "
                   "parse on the whole text (the API's body)", lambda d: d["answer"], LABEL, width=72, grow=0, fit=96),
            Column("field", "field", "the message field", lambda d: d["field"], LABEL, width=72, grow=0, fit=120),
            Column("a", f"A: {label_a}", "A's value, as JSON", lambda d: d["a"], LABEL, width=120, grow=1),
            Column("b", f"B: {label_b}", "B's value, as JSON", lambda d: d["b"], LABEL, width=120, grow=1),
            Column("same", "verdict", "whether A and B hold the same value (call ids aside)",
                   lambda d: "✓ same" if d["same"] else "✗ differs", LABEL, width=64, grow=0, fit=96))


def final_records(res, columns: tuple[Column, ...]) -> list[dict]:
    """``res.final`` under ``final_columns``: a differing field's row is marked ``changed``."""
    apis = (getattr(res, "api_a", "chat"), getattr(res, "api_b", "chat")) != ("chat", "chat")
    names = {"stream": "client", "nonstream": "body"} if apis else {}
    items = [{"answer": names.get(mode, mode), "field": d.field, "a": as_json(d.a), "b": as_json(d.b), "same": d.same}
             for mode, diffs in res.final.items() for d in diffs]
    return [{"n": i, **{c.name: c.shown_value(item) for c in columns}, "_c": "" if item["same"] else "changed"}
            for i, item in enumerate(items, 1)]


def summary_html(res) -> str:
    if res.same:
        return "<b>A and B agree on every step and on both final answers.</b>"
    parts = []
    if res.first_step is not None:
        parts.append(f"first step whose client-visible output differs: <b>{res.first_step}</b>")
    if res.first_machine_step is not None:
        parts.append(f"first step whose state machine differs: <b>{res.first_machine_step}</b>")
    n = sum(1 for s in res.steps if not s.same)
    parts.append(f"{n} of {len(res.steps)} steps differ (marked)")
    return " · ".join(parts)


class ABPanel(W.VBox):
    def __init__(self, spec_a: str = "", spec_b: str = "") -> None:
        ph = "hermes+qwen3 · +qwen3@0.33.0 · parsers/qwen3.toml · editor"
        style = {"description_width": "20px"}
        self.spec_a = W.Text(value=spec_a, description="A", placeholder=ph, style=style,
                             layout=W.Layout(flex="1 1 0", min_width="0"))
        self.spec_b = W.Text(value=spec_b, description="B", placeholder=ph, style=style,
                             layout=W.Layout(flex="1 1 0", min_width="0"))
        self.api_a = W.Dropdown(options=list(APIS), layout=W.Layout(width="110px"), tooltip="A's API")
        self.api_b = W.Dropdown(options=list(APIS), layout=W.Layout(width="110px"), tooltip="B's API")
        self.compare_button = W.Button(description="Compare", icon="columns", button_style="primary",
                                       layout=W.Layout(width="auto"))
        self.summary = W.HTML("<i>two parser specs (or one spec on two APIs), the current stream: Compare</i>")
        self.final: RecordTable | None = None  # the final answers' table, made at the first Compare
        self.finals = W.Box([], layout=W.Layout(width="100%"))
        self.label_a, self.label_b = W.HTML(""), W.HTML("")
        self.left = self.right = None  # the two tables, made at the first Compare
        self.sides = W.HBox([], layout=W.Layout(width="100%"))
        self.result = None
        self.stale = W.HTML("")
        super().__init__([W.HBox([self.spec_a, self.api_a, self.spec_b, self.api_b, self.compare_button],
                                 layout=W.Layout(width="100%")), self.stale, self.summary, self.finals, self.sides],
                         layout=W.Layout(width="100%"))
        self.add_class("wb-ab")

    def _tables(self) -> None:
        import uuid

        # both sides scroll together and share their column widths
        side = dict(height=260, features=("strip",), legend=AB_LEGEND, role="ab", group=uuid.uuid4().hex,
                    follow=False, wrap=True, layout=W.Layout(flex="1 1 0", min_width="0"))
        self.left, self.right = DeltaTable(**side), DeltaTable(**side)
        # a step picked on one side is picked on the other too
        self.left.on_select(lambda step: self._pick(self.right, step))
        self.right.on_select(lambda step: self._pick(self.left, step))
        # side by side while every default column fits uncut, else B below A (still scrolled together)
        self.sides.children = [W.VBox([label, table], layout=W.Layout(flex="1 1 420px"))  # min-width: its table's
                               for label, table in ((self.label_a, self.left), (self.label_b, self.right))]
        self.sides.layout.flex_flow = "row wrap"

    @staticmethod
    def _pick(table: DeltaTable, step: int | None) -> None:
        if (step or 0) != table.selected:
            table.select(step)

    def specs(self):
        """What the A/B pickers say."""
        from workbench.ui.state import ABSpecs

        return ABSpecs(self.spec_a.value, self.spec_b.value, self.api_a.value, self.api_b.value)

    def render(self, s, decode=None) -> None:
        """The pickers as the state says; its A/B result (marked when it is about an earlier stream)."""
        sp = s.ab_specs
        with self.hold_sync():
            for w, v in ((self.spec_a, sp.a), (self.spec_b, sp.b), (self.api_a, sp.api_a), (self.api_b, sp.api_b)):
                if w.value != v:
                    w.value = v
            self.stale.value = ("" if s.ab is None or s.fresh(s.ab) else
                                "<i>about an earlier stream (Compare again for the rows on screen)</i>")
        if s.ab is not None and s.ab.value is not self.result:
            self.show(s.ab.value, decode.tokenizer if decode is not None else None, s.ab.extra.get("sides"))

    def show(self, res, tokenizer=None, sides=None) -> None:
        """``res``: a ``core.diff.DiffResult``; ``tokenizer``: the stream's, so both sides
        show each token's text; ``sides``: the two ``ab_apis.Side``s when an API other than
        chat is on either side: a side on Responses or Messages shows each row's events."""
        from workbench.ui import ab_apis

        self.result = res
        differing = {s.step for s in res.steps if not s.same}
        # the first differing step is picked before the rows go, so both tables open there
        # (none: at their top)
        first = res.first_step or res.first_machine_step
        if self.left is None:
            self._tables()
        with self.hold_sync():
            self.summary.value = summary_html(res)
            columns = final_columns(res.label_a, res.label_b)
            if self.final is None:
                self.final = RecordTable(columns, height=300, role="ab-final", key="n", follow=False, flow=True,
                                         legend=FINAL_LEGEND, hint="Ctrl+C copies rows as JSON",
                                         layout=W.Layout(width="100%"))
                self.final.add_class("wb-ab-final")
                self.finals.children = [self.final]
            self.final.set_schema(columns)
            self.final.set_records(final_records(res, self.final.schema))
            self.label_a.value = f"<b>A: {html.escape(res.label_a)}</b>"
            self.label_b.value = f"<b>B: {html.escape(res.label_b)}</b>"
            for i, (table, result) in enumerate(((self.left, res.a), (self.right, res.b))):
                if tokenizer is not None and getattr(table.decode, "tokenizer", None) is not tokenizer:
                    table.decode = TokenText(tokenizer)
                api = sides[i].api if sides else "chat"  # a chat side shows its DeltaMessage columns
                table.set_schema(ab_apis.API_COLUMNS if api != "chat" else SIDE_COLUMNS)
                if api != "chat":
                    events = {r.step: ab_apis.events_cell(sides[i].events(n)) for n, r in enumerate(result.rows)}
                    table.more = lambda row, events=events: {"events": events[row.step]} if events[row.step] else {}
                else:
                    table.more = None
                table.select(first)
                table.set_rows(result.rows, differing)
