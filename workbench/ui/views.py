"""What the widget draws from its model (mixed into ``Workbench``): the table, the
selected row's detail (with its events on the picked API), the final tab (every API's
final once the stream has ended), the status line's summary."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from workbench.ui.table import TokenText

if TYPE_CHECKING:
    from workbench.core.rows import Row


class ViewActions:
    def select(self, step: int | None) -> Row | None:
        row = self.model.select(step)
        if (self.table.selected or None) != self.model.selected:
            self.table.select(self.model.selected)
        self._show_detail(row)
        self._sync_diagram()
        return row

    def _show_detail(self, row: Row | None) -> None:
        api = self.model.inputs.api
        events = self.model.row_events(row.step) if row is not None else None
        note = ("the stream has not ended: the closing events are what the server sends if it ends here"
                if events is not None and row is not None and row.step == len(self.rows) and not self.model.done
                else "")
        self.detail.show(row, len(self.model.rows), self.table.decode, api, events, note)

    def _on_table_select(self, step: int | None) -> None:
        if step != self.model.selected:
            self.select(step)

    def goto_divergence(self) -> Row | None:
        return self.select(self.final.first_step)

    # -- rendering -------------------------------------------------------
    def _sync(self) -> None:
        rows, shown = self.model.rows, self.table.rows
        session = self.model.session
        if session is not None and getattr(self.table.decode, "tokenizer", None) is not session.tokenizer:
            self.table.decode = TokenText(session.tokenizer)
        with self.hold_sync():
            if len(shown) <= len(rows) and (not shown or rows[len(shown) - 1] is shown[-1]) \
                    and self.table.changed == self.model.changed:
                self.table.append(rows[len(shown):])
            else:
                self.table.set_rows(rows, self.model.changed)
            self.detail.step.max = len(rows)
        self._show_finals()
        self._sync_diagram()
        if self.model.source is not None:
            self._status(self._summary())
        self._truth()

    def _show_finals(self, force: bool = False) -> None:
        """The final tab; every API's client and body once the stream has ended (a long one:
        on a click, as it replays the stream once per API)."""
        from workbench.ui.faces_view import MOST_FINAL_DELTAS

        final, m = self.model.final, self.model
        if final is None or m.faces is None:
            note = "" if final is None else "the other APIs' finals run on the installed vLLM only"
            self.final.show(final, None, note)
            return
        if final.apis is None and len(m.rows) > MOST_FINAL_DELTAS and not force:
            self.final.show(final, None, f"{len(m.rows):,} deltas: every API's final replays them once per "
                                         "API; click below")
            return
        try:
            self.final.show(final, m.api_finals())
        except Exception as e:  # the chat verdict stays; the banner says what failed
            self.final.show(final, None, f"the other APIs' finals failed: {type(e).__name__}")
            self.banner.show_exception(e, "final messages")

    def _summary(self) -> str:
        m = self.model
        if m.source is None:
            return f"ready: {m.label()} on {m.inputs.tokenizer}; Step or Run"
        total = m.source.total
        last = m.rows[-1] if m.rows else None
        text = f"{len(m.rows)}{f'/{total}' if total else ''} deltas"
        if last is not None:
            text += f" · phase {last.phase}"
        if m.final is not None:
            first = m.final.first_step
            text += " · finished: " + ("streaming = non-streaming" if first is None
                                       else f"streaming ≠ non-streaming from step {first}")
        errors = self._error_rows()
        if errors:
            text += f" · {errors} error rows"
        return text

    def _error_rows(self) -> int:
        """How many rows raised, counted on from the last call while the stream only grew
        (a Step at 100,000 rows must not walk them all)."""
        rows = self.model.rows
        ref, n, last, count = getattr(self, "_errors_seen", (None, 0, None, 0))
        if ref is not rows or n > len(rows) or (n and rows[n - 1] is not last):
            n, count = 0, 0
        count += sum(1 for i in range(n, len(rows)) if rows[i].error)
        self._errors_seen = (rows, len(rows), rows[-1] if rows else None, count)
        return count


def readme_link() -> str:
    """The README's widget section, relative to where the kernel runs (the notebook's folder)."""
    import os

    from workbench.ui.inputs import REPO

    try:
        rel = os.path.relpath(REPO / "README.md", os.getcwd())
    except ValueError:  # another drive
        return ""
    return f": <a href='{html.escape(rel)}#the-widget' target='_blank'>README.md</a>"
