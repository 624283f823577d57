"""Tables drawn by the front end: an anywidget whose own ES module (``static/table.js``)
draws any list of records against a column schema (``core.rows.Column``).

``RecordTable`` is the generic part, for every table of the widget: the schema goes
over the comm as the synced ``columns`` trait (every column, with whether it shows by
default), records as custom messages, only the new ones per Step (``{"kind": "rows",
"start": n, "rows": [...]}``; a new stream sends one ``reset``). The front end keeps
the records, puts only the rows in view into the DOM (virtualised), lets the user
resize and hide columns (remembered per notebook and ``role`` in the browser), and
reports clicks and keys back: ``selected`` (the focused record's key, for the detail)
and ``selection`` (every selected key: shift/ctrl-click, shift+j/k). Ctrl+C there asks
for the selection's JSON (``{"kind": "copy", "keys": [...]}``) and gets it back as
``{"kind": "clipboard", "text": ...}``. Tables with the same ``group`` scroll together.
A view that opens late (or reloads) says ``hello`` and gets every record again.
``DeltaTable`` shows rows (one per delta) with the token strip and the parser-cost
chart; the A/B tab shows two of them.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import anywidget
import traitlets

from workbench.core import secrets
from workbench.core.machine import Kind
from workbench.core.rows import COLUMNS, LABEL, Column, Row, shown_columns
from workbench.ui.shared import Shared

if TYPE_CHECKING:
    from typing import Any

    from vllm.tokenizers import TokenizerLike

STATIC = Path(__file__).parent / "static"
RESET_CHUNK = 2000  # records per message when many are sent at once (a Run, a reset)
# the rows' columns as the widget draws them: what a delta shows is never cut up to these
# widths (px; a longer value ellipsizes, its tooltip has it all), and a column with no value
# in any row gives up its width (table.js); the frame and the CLI keep the schema's own. The
# grammar's view, vLLM's log lines and an exception's text are prose, drawn as labels (no ␣
# between words).
ROW_COLUMNS = tuple(replace(c, fit=FITS[c.name], kind=LABEL if c.name in ("grammar", "logs", "error") else c.kind)
                    if c.name in (FITS := {"tokens": 200, "text": 200, "reasoning": 200, "content": 200,
                                           "tool_calls": 280, "grammar": 320, "error": 280, "logs": 0})
                    else c for c in COLUMNS)


def lean(text: str) -> str:
    """The module or CSS as the kernel sends it (once: ``shared``): comments, blank lines
    and indentation left out (20% less)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)  # no string or regex in either holds "/*"
    return "".join(t + "\n" for line in text.splitlines() if (t := line.strip()) and not t.startswith("//"))


def notebook() -> str:
    """The notebook this kernel serves (Jupyter server's session name), for the column
    widths the browser remembers per notebook."""
    return os.environ.get("JPY_SESSION_NAME") or "notebook"


TABLE = Shared(lean((STATIC / "table.js").read_text(encoding="utf-8")),
               lean((STATIC / "table.css").read_text(encoding="utf-8")))


class RecordTable(anywidget.AnyWidget):
    """Any records under any column schema. ``cells(item) -> dict`` makes one record."""

    _esm = TABLE.esm
    selected = traitlets.Int(0).tag(sync=True)  # the focused record's key; 0: none
    selection = traitlets.List(traitlets.Int()).tag(sync=True)  # every selected key
    key = traitlets.Unicode("step").tag(sync=True)  # the column that names a record (1, 2, ...)
    columns = traitlets.List(traitlets.Dict()).tag(sync=True)  # Column.spec() of every column
    height = traitlets.Int(300).tag(sync=True)  # px of the scrolling rows
    features = traitlets.List(traitlets.Unicode()).tag(sync=True)  # "strip", "cost"
    legend = traitlets.List(traitlets.List()).tag(sync=True)  # [[css class, label, seen key], ...]
    storage = traitlets.Unicode("").tag(sync=True)  # where the browser keeps widths / hidden columns
    group = traitlets.Unicode("").tag(sync=True)  # tables of one group scroll together
    # a new set of records opens at its end and follows new ones (a growing stream), or at
    # its top (False: an A/B where no step differs); a selected record is shown either way
    follow = traitlets.Bool(True).tag(sync=True)
    # the table is never narrower than its default columns at their least (headers uncut,
    # fitted values whole): a flex row it is in wraps what is beside it below
    wrap = traitlets.Bool(False).tag(sync=True)
    # a small table (the finals, the detail's tokens): every row drawn, as tall as its values
    # wrapped between words, instead of one virtualised line a row
    flow = traitlets.Bool(False).tag(sync=True)
    hint = traitlets.Unicode("").tag(sync=True)  # the line under the legend ("": the rows' hint)
    # a click shows the whole record beside the table (the rows' detail): short of room, a
    # growing column's cells may end in … (the short ones, step to finish, stay whole)
    detail = traitlets.Bool(False).tag(sync=True)

    def __init__(self, columns: Sequence[Column], height: int = 300, role: str = "table",
                 **kwargs) -> None:
        self.schema = tuple(columns)
        TABLE.ensure()
        super().__init__(height=height, columns=[c.spec() for c in self.schema],
                         storage=f"{notebook()}::{role}", **kwargs)
        self.records: list[dict] = []
        self.copy_text: Callable[[list[int]], str] = self._records_json  # keys -> the clipboard's text
        self.on_msg(self._on_msg)

    def set_schema(self, columns: Sequence[Column]) -> None:
        """Other columns (records made from now on follow them)."""
        if tuple(columns) != self.schema:
            self.schema = tuple(columns)
            self.columns = [c.spec() for c in self.schema]

    def _on_msg(self, _widget, content, _buffers) -> None:
        if not isinstance(content, dict):
            return
        if content.get("kind") == "hello":
            self._send_all()
        elif content.get("kind") == "copy":
            keys = [k for k in content.get("keys") or [] if isinstance(k, int)]
            self.send({"kind": "clipboard", "text": self.copy_text(keys), "n": len(keys)})

    def shown(self) -> list[str]:
        """The columns shown by default for the records sent ("auto" ones once a record has a
        value); the front end starts from this and applies the user's own choices."""
        have = {name for r in self.records for name in r}
        return [c.name for c in self.schema if c.shown is True or (c.shown == "auto" and c.name in have)]

    def cells(self, item) -> dict:
        """One record: every column's display value; None is left out (None, not "")."""
        out = {}
        for c in self.schema:
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
        keys = {r.get(self.key) for r in self.records}
        with self.hold_sync():
            if self.selected not in keys:
                self.selected = 0
            self.selection = [k for k in self.selection if k in keys]
        self._send_all()

    def _records_json(self, keys: list[int]) -> str:
        wanted = set(keys)
        return "".join(json.dumps({k: v for k, v in r.items() if not k.startswith("_")}, ensure_ascii=False) + "\n"
                       for r in self.records if r.get(self.key) in wanted)

    def send(self, content, buffers=None) -> None:
        super().send(secrets.scrub_obj(content), buffers)  # the widget's output boundary

    def offer(self, kind: str, text: str, name: str = "") -> None:
        """Put ``text`` on the browser's clipboard (``kind`` "clipboard") or download it as
        the file ``name`` ("download"): only the front end can do either."""
        self.send({"kind": kind, "text": text, "name": name})

    def _send_all(self) -> None:
        self.send({"kind": "reset", "rows": self.records[:RESET_CHUNK]})
        self._send_rows(RESET_CHUNK)

    def _send_rows(self, start: int) -> None:
        for i in range(start, len(self.records), RESET_CHUNK):
            self.send({"kind": "rows", "start": i, "rows": self.records[i:i + RESET_CHUNK]})

    def select(self, key: int | None, selection: Sequence[int] = ()) -> None:
        """Focus ``key`` (0/None: none); ``selection``: every selected key (default: ``key``)."""
        with self.hold_sync():
            self.selected = key or 0
            self.selection = list(selection) if selection else ([key] if key else [])

    def on_select(self, callback: Callable[[int | None], None]) -> None:
        """``callback(key)`` when the front end (a click, j/k) focuses another record."""
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


# [css class, label, the seen key that shows it]: the front end shows an entry only once
# something on screen has it, so the legend is what the table shows
DELTA_LEGEND = [["f-reasoning", "reasoning", "f:reasoning"], ["f-content", "content", "f:content"],
                ["f-tool", "tool call", "f:tool"],
                ["k-reasoning k-key", "phase: reasoning", "k:reasoning"],
                ["k-content k-key", "phase: content", "k:content"],
                ["k-tool k-key", "phase: tool", "k:tool"], ["k-other k-key", "phase: other", "k:other"],
                ["no-sse", "no SSE chunk", "no-sse"], ["err", "parser raised", "err"],
                ["sc", "phase/state change", "sc"], ["changed", "changed by the last replay", "changed"]]


def strip_kind(row: Row) -> str:
    """The colour of a row's tokens in the strip and its bar: the field its text went to
    (the last of reasoning, content, tool call), else where the parser was."""
    if row.error:
        return "error"
    if row.tool_calls:
        return "tool"
    if row.content:
        return "content"
    if row.reasoning:
        return "reasoning"
    return getattr(row.phase, "kind", Kind.OTHER).value


def marks(row: Row, changed: bool = False) -> dict:
    """What the front end reads beside the cells: the row's classes (``_c``: the phase's
    kind ``k-…``, ``err``, ``no-sse``, ``sc``, ``changed``), the strip's colour (``_k``),
    a chunk sent (``_sse``), a phase/state change (``_sc``), the parser's µs."""
    cls = [f"k-{getattr(row.phase, 'kind', Kind.OTHER).value}"]
    out = {"_k": strip_kind(row), "_us": round(row.parser_us, 1)}
    if row.error:
        cls.append("err")
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


def rows_jsonl(rows: Sequence[Row]) -> str:
    """Rows as JSON lines, as ``--json`` writes each (the SSE chunk included)."""
    return "".join(json.dumps(r.to_dict(), ensure_ascii=False, default=str) + "\n" for r in rows)


class DeltaTable(RecordTable):
    """Rows of one stream, with the token strip and the cost chart (``features``).
    ``more(row) -> dict``: cells of columns the rows do not hold (an API's events)."""

    def __init__(self, height: int = 300, columns: Sequence[Column] = ROW_COLUMNS,
                 features: Sequence[str] = ("strip", "cost"), legend: list | None = None,
                 role: str = "rows", **kwargs) -> None:
        super().__init__(columns, height, role=role, features=list(features),
                         legend=DELTA_LEGEND if legend is None else legend, **kwargs)
        self.rows: list[Row] = []
        self.rows_log: list[Row] | None = None  # the stream's log these rows are from
        self.changed: set[int] = set()
        self.decode: TokenText | None = None
        self.more: Callable[[Row], dict] | None = None
        self.copy_text = self._rows_json

    def record(self, row: Row) -> dict:
        rec = self.cells(row)
        if self.more is not None:
            rec.update(self.more(row))
        if self.decode is not None and "tokens" in rec:
            rec["tokens"] = [self.decode(t) for t in row.token_ids]
            special = [i for i, t in enumerate(row.token_ids) if t in self.decode.special]
            if special:
                rec["_sp"] = special
        rec.update(marks(row, row.step in self.changed))
        return rec

    def append(self, rows: list[Row]) -> None:
        """A step's new rows: the front end gets only these."""
        if not rows:
            return
        self.rows.extend(rows)
        self.append_records([self.record(r) for r in rows])

    def set_rows(self, rows: list[Row], changed: set[int] = frozenset()) -> None:
        """A whole new stream (reset, replay, reload): one reset message."""
        self.rows = list(rows)
        self.changed = set(changed)
        self.set_records([self.record(r) for r in self.rows])

    def shown(self) -> list[str]:
        return [c.name for c in shown_columns(self.rows, self.schema)]

    def shown_steps(self) -> list[int]:
        return [r["step"] for r in self.records]

    def selected_rows(self) -> list[Row]:
        """The rows selected in the table (the focused one when no range is), in order."""
        keys = set(self.selection) or ({self.selected} if self.selected else set())
        return [r for r in self.rows if r.step in keys]

    def _rows_json(self, keys: list[int]) -> str:
        wanted = set(keys)
        return rows_jsonl([r for r in self.rows if r.step in wanted])
