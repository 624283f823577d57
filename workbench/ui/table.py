"""The delta table widget: append-only, windowed.

Each row's ``<tr>`` is rendered once (by the Styler rule in ``styles``) and
cached; a Step renders only the new row and joins the visible window, so the
cost of an update does not grow with the stream (10,000 rows included).
"""

from __future__ import annotations

import ipywidgets as W

from workbench.core.rows import Row
from workbench.ui import styles

DEFAULT_WINDOW = 100


class DeltaTable(W.VBox):
    def __init__(self, window: int = DEFAULT_WINDOW) -> None:
        self.window = window
        self.rows: list[Row] = []
        self._cache: list[str | None] = []
        self.changed: set[int] = set()
        self.selected: int | None = None
        self.grammar = False
        self.start = W.IntSlider(value=0, min=0, max=0, description="from row",
                                 continuous_update=False, layout=W.Layout(width="420px"))
        self.follow = W.Checkbox(value=True, description="follow the last row", indent=False)
        self.html = W.HTML(styles.table_html([], styles.columns(False)))
        self.start.observe(self._on_start, "value")
        self.follow.observe(lambda ch: ch["new"] and self.render(), "value")
        self._rendering = False
        super().__init__([W.HBox([self.start, self.follow]), self.html])

    @property
    def columns(self) -> list[str]:
        return styles.columns(self.grammar)

    def _row_html(self, i: int) -> str:
        cached = self._cache[i]
        if cached is None:
            r = self.rows[i]
            rec = styles.record(r, r.step in self.changed, r.step == self.selected)
            cached = self._cache[i] = styles.row_html(rec, self.columns)
        return cached

    def _invalidate(self, step: int | None) -> None:
        if step is not None and 0 < step <= len(self._cache):
            self._cache[step - 1] = None

    def append(self, rows: list[Row]) -> None:
        """A step's new rows: render them, slide the window, re-join it."""
        if not rows:
            return
        if not self.grammar and any(styles.grammar_of(r) is not None for r in rows):
            self.grammar = True
            self._cache = [None] * len(self._cache)
        self.rows.extend(rows)
        self._cache.extend([None] * len(rows))
        self.render()

    def set_rows(self, rows: list[Row], changed: set[int] = frozenset()) -> None:
        """A whole new run (reset, replay): nothing is rendered until shown."""
        self.rows = list(rows)
        self.changed = set(changed)
        self.grammar = any(styles.grammar_of(r) is not None for r in rows)
        self._cache = [None] * len(rows)
        if self.selected is not None and self.selected > len(rows):
            self.selected = None
        self.render()

    def select(self, step: int | None) -> None:
        old, self.selected = self.selected, step
        self._invalidate(old)
        self._invalidate(step)
        if step is not None and not (self.start.value < step <= self.start.value + self.window):
            self.follow.value = False
            self._set_start(max(0, step - 1 - self.window // 2))
        self.render()

    def _set_start(self, value: int) -> None:
        self._rendering = True
        try:
            with self.start.hold_sync():
                self.start.max = max(0, len(self.rows) - 1)
                self.start.value = max(0, min(value, self.start.max))
        finally:
            self._rendering = False

    def _on_start(self, change) -> None:
        if not self._rendering:
            self.follow.value = False
            self.render()

    def render(self) -> None:
        n = len(self.rows)
        if self.follow.value:
            self._set_start(max(0, n - self.window))
        else:
            self._set_start(self.start.value)
        first = self.start.value
        shown = range(first, min(n, first + self.window))
        body = [self._row_html(i) for i in shown]
        caption = (f"rows {shown.start + 1}–{shown.stop} of {n}" if n else "no rows yet")
        if self.changed:
            caption += f" · {len(self.changed)} changed by the last replay (marked)"
        self.html.value = styles.table_html(body, self.columns, caption)
