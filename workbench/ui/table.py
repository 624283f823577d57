"""The delta table: an anywidget whose own ES module (``static/table.js``) draws it.

Python keeps one record per row and sends only the new ones per Step (a custom
message, ``{"kind": "rows", "start": n, "rows": [...]}``); a new stream sends
one ``reset``. The front end keeps the records, puts only the rows in view into
the DOM (virtualised), draws the token strip and the parser-cost chart, and
reports clicks and j/k/arrow keys back as the synced ``selected`` trait. A view
that opens late (or reloads) says ``hello`` and gets the whole stream again.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import anywidget
import traitlets

from workbench.core import secrets
from workbench.core.rows import Row, format_tool_calls
from workbench.ui import styles

if TYPE_CHECKING:
    from typing import Any
    from vllm.tokenizers import TokenizerLike

STATIC = Path(__file__).parent / "static"
BASE_COLUMNS = ["step", "tokens", "text", "phase", "reasoning", "content", "tool_calls", "sse", "finish"]
RESET_CHUNK = 2000  # rows per message when many are sent at once (a Run, a reset)


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


def record(row: Row, changed: bool = False, decode: TokenText | None = None) -> dict:
    """What the front end shows of one row; None values are left out (None, not "")."""
    if decode is not None:
        tokens = [decode(t) for t in row.token_ids]
        special = [i for i, t in enumerate(row.token_ids) if t in decode.special]
    else:
        tokens, special = list(row.tokens), []
    rec = {"step": row.step, "tokens": tokens, "text": row.text, "phase": row.phase,
           "phase_before": row.phase_before, "reasoning": row.reasoning, "content": row.content,
           "tool_calls": format_tool_calls(row.tool_calls) or None, "sse": row.sse,
           "finish": row.finish_reason, "error": row.error, "grammar": styles.grammar_of(row),
           "state_change": styles.state_changed(row) or None, "us": round(row.parser_us, 1),
           "special": special or None, "changed": changed or None}
    return {k: v for k, v in rec.items() if v is not None}


class DeltaTable(anywidget.AnyWidget):
    _esm = STATIC / "table.js"
    _css = STATIC / "table.css"
    selected = traitlets.Int(0).tag(sync=True)  # the selected step; 0: none
    columns = traitlets.List(traitlets.Unicode(), default_value=BASE_COLUMNS).tag(sync=True)
    height = traitlets.Int(300).tag(sync=True)  # px of the scrolling rows

    def __init__(self, height: int = 300, **kwargs: Any) -> None:
        super().__init__(height=height, **kwargs)
        self.rows: list[Row] = []
        self.records: list[dict] = []
        self.changed: set[int] = set()
        self.decode: TokenText | None = None
        self.on_msg(self._on_msg)

    def _on_msg(self, _widget, content, _buffers) -> None:
        if isinstance(content, dict) and content.get("kind") == "hello":
            self._send_all()

    def _columns_for(self, rows: list[Row]) -> None:
        cols = list(self.columns)
        if "grammar" not in cols and any(styles.grammar_of(r) is not None for r in rows):
            cols.insert(cols.index("finish") + 1, "grammar")
        if "error" not in cols and any(r.error for r in rows):
            cols.append("error")
        if cols != self.columns:
            self.columns = cols

    def append(self, rows: list[Row]) -> None:
        """A step's new rows: the front end gets only these."""
        if not rows:
            return
        start = len(self.records)
        self.rows.extend(rows)
        self.records.extend(record(r, r.step in self.changed, self.decode) for r in rows)
        self._columns_for(rows)
        self._send_rows(start)

    def set_rows(self, rows: list[Row], changed: set[int] = frozenset()) -> None:
        """A whole new stream (reset, replay, reload): one reset message."""
        self.rows = list(rows)
        self.changed = set(changed)
        self.records = [record(r, r.step in self.changed, self.decode) for r in rows]
        with self.hold_sync():
            self.columns = list(BASE_COLUMNS)
            self._columns_for(self.rows)
            if self.selected > len(rows):
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

    def select(self, step: int | None) -> None:
        self.selected = step or 0

    def shown_steps(self) -> list[int]:
        return [r["step"] for r in self.records]

    def on_select(self, callback: Callable[[int | None], None]) -> None:
        """``callback(step)`` when the front end (a click, j/k) selects another row."""
        self.observe(lambda ch: callback(ch["new"] or None), "selected")
