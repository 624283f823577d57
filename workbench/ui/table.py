"""Tables drawn by the front end: an anywidget whose own ES module (``static/table.js``)
draws any list of records against a column schema (``core.rows.Column``).

``RecordTable`` is the generic part: the schema goes over the comm as the synced
``columns`` trait, records as custom messages, only the new ones per Step
(``{"kind": "rows", "start": n, "rows": [...]}``; a new stream sends one ``reset``).
The front end keeps the records, puts only the rows in view into the DOM
(virtualised), and reports clicks and j/k/arrow keys back as the synced ``selected``
trait (the ``key`` column's value). A view that opens late (or reloads) says
``hello`` and gets every record again. ``DeltaTable`` shows rows (one per delta) with
the token strip and the parser-cost chart; the A/B tab shows two of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import anywidget
import traitlets

from workbench.core import secrets
from workbench.core.machine import Kind
from workbench.core.rows import COLUMNS, Column, Row, shown_columns

if TYPE_CHECKING:
    from typing import Any

    from vllm.tokenizers import TokenizerLike

STATIC = Path(__file__).parent / "static"
RESET_CHUNK = 2000  # records per message when many are sent at once (a Run, a reset)


class RecordTable(anywidget.AnyWidget):
    """Any records under any column schema. ``record(item) -> dict`` makes one record."""

    _esm = STATIC / "table.js"
    _css = STATIC / "table.css"
    selected = traitlets.Int(0).tag(sync=True)  # the selected record's key; 0: none
    key = traitlets.Unicode("step").tag(sync=True)  # the column that names a record (1, 2, ...)
    columns = traitlets.List(traitlets.Dict()).tag(sync=True)  # Column.spec() of the shown columns
    height = traitlets.Int(300).tag(sync=True)  # px of the scrolling rows
    features = traitlets.List(traitlets.Unicode()).tag(sync=True)  # "strip", "cost"
    legend = traitlets.List(traitlets.List()).tag(sync=True)  # [[css class, label], ...]

    def __init__(self, columns: Sequence[Column], height: int = 300, **kwargs) -> None:
        self.schema = tuple(columns)
        self._shown: list[Column] = list(self.schema)
        super().__init__(height=height, **kwargs)
        self.show_columns([c.name for c in self.schema])
        self.records: list[dict] = []
        self.on_msg(self._on_msg)

    def show_columns(self, names: Sequence[str]) -> None:
        """Which of the schema's columns the table shows (records made from now on carry them)."""
        self._shown = [c for c in self.schema if c.name in set(names)]
        self.columns = [c.spec() for c in self._shown]

    def _on_msg(self, _widget, content, _buffers) -> None:
        if isinstance(content, dict) and content.get("kind") == "hello":
            self._send_all()

    def shown(self) -> list[str]:
        return [c.name for c in self._shown]

    def cells(self, item) -> dict:
        """One record: the shown columns' display values; None is left out (None, not "")."""
        out = {}
        for c in self._shown:
            v = c.shown_value(item)
            if v is not None:
                out[c.name] = v
        return out

    def append_records(self, records: list[dict]) -> None:
        if not records:
            return
        start = len(self.records)
        self.records.extend(records)
        self._send_rows(start)

    def set_records(self, records: list[dict]) -> None:
        self.records = list(records)
        if self.selected > len(records):
            self.selected = 0
        self._send_all()

    def send(self, content, buffers=None) -> None:
        super().send(secrets.scrub_obj(content), buffers)  # the widget's output boundary

    def _send_all(self) -> None:
        self.send({"kind": "reset", "rows": self.records[:RESET_CHUNK]})
        self._send_rows(RESET_CHUNK)

    def _send_rows(self, start: int) -> None:
        for i in range(start, len(self.records), RESET_CHUNK):
            self.send({"kind": "rows", "start": i, "rows": self.records[i:i + RESET_CHUNK]})

    def select(self, key: int | None) -> None:
        self.selected = key or 0

    def on_select(self, callback: Callable[[int | None], None]) -> None:
        """``callback(key)`` when the front end (a click, j/k) selects another record."""
        self.observe(lambda ch: callback(ch["new"] or None), "selected")


class TokenText:
    """Each token id's decoded text (cached), and which ids are added/special tokens.

    Rows keep vLLM's raw byte-level tokens (``Ġis``); the table shows `` is``."""

    def __init__(self, tokenizer: TokenizerLike) -> None:
        self.tokenizer = tokenizer
        self._text: dict[int, str] = {}
        added = getattr(tokenizer, "get_added_vocab", None)
        self.special = set(added().values()) if added else set()
        self.special |= set(getattr(tokenizer, "all_special_ids", None) or ())

    def __call__(self, token_id: int) -> str:
        text = self._text.get(token_id)
        if text is None:
            text = self._text[token_id] = self.tokenizer.decode([token_id], skip_special_tokens=False)
        return text


DELTA_LEGEND = [["ph-reasoning", "reasoning"], ["ph-content", "content"], ["ph-tool", "tool"],
                ["ph-reasoning no-sse", "no SSE chunk"], ["ph-error", "parser raised"],
                ["sc", "phase/state change"], ["changed", "changed by the last replay"]]


def marks(row: Row, changed: bool = False) -> dict:
    """What the front end reads beside the cells: the row's classes (``_c``), the colour
    kind (``_k``), a chunk sent (``_sse``), a phase/state change (``_sc``), parser µs."""
    kind = "error" if row.error else getattr(row.phase, "kind", Kind.OTHER).value
    cls = [f"ph-{kind}"]
    out = {"_k": kind, "_us": round(row.parser_us, 1)}
    if row.sse:
        out["_sse"] = True
    else:
        cls.append("no-sse")
    if row.state_changed:
        out["_sc"] = True
        cls.append("sc")
    if changed:
        cls.append("changed")
    out["_c"] = " ".join(cls)
    return out


class DeltaTable(RecordTable):
    """Rows of one stream, with the token strip and the cost chart (``features``)."""

    def __init__(self, height: int = 300, columns: Sequence[Column] = COLUMNS,
                 features: Sequence[str] = ("strip", "cost"), legend=None, **kwargs: Any) -> None:
        super().__init__(columns, height, features=list(features),
                         legend=DELTA_LEGEND if legend is None else legend, **kwargs)
        self.rows: list[Row] = []
        self.changed: set[int] = set()
        self.decode: TokenText | None = None
        self.show_columns([c.name for c in shown_columns([], self.schema)])

    def record(self, row: Row) -> dict:
        rec = self.cells(row)
        if self.decode is not None and "tokens" in rec:
            rec["tokens"] = [self.decode(t) for t in row.token_ids]
            special = [i for i, t in enumerate(row.token_ids) if t in self.decode.special]
            if special:
                rec["_sp"] = special
        rec.update(marks(row, row.step in self.changed))
        return rec

    def append(self, rows: list[Row]) -> None:
        """A step's new rows: the front end gets only these (a column that appears, such
        as error, re-sends the stream once)."""
        if not rows:
            return
        shown = set(self.shown())
        if any(c.shown == "auto" and c.name not in shown and any(c.value(r) is not None for r in rows)
               for c in self.schema):
            self.set_rows(self.rows + list(rows), self.changed)
            return
        self.rows.extend(rows)
        self.append_records([self.record(r) for r in rows])

    def set_rows(self, rows: list[Row], changed: set[int] = frozenset()) -> None:
        """A whole new stream (reset, replay, reload): one reset message."""
        self.rows = list(rows)
        self.changed = set(changed)
        with self.hold_sync():
            self.show_columns([c.name for c in shown_columns(self.rows, self.schema)])
            self.set_records([self.record(r) for r in self.rows])

    def shown_steps(self) -> list[int]:
        return [r["step"] for r in self.records]
