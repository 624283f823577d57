"""Rows to take away (mixed into ``Workbench``): Save the stream as a recording (an
existing file only after Overwrite is clicked), copy the selected rows' JSON, download
them as JSON lines, and the same from Python (``selected_rows``, ``to_jsonl``,
``frame(selected=True)``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError
from workbench.ui.table import rows_jsonl

if TYPE_CHECKING:
    from workbench.core.rows import Row

DEFAULT_NAME = "stream.jsonl"


class TakeAwayActions:
    def _init_takeaway(self) -> None:
        c, d = self.controls, self.detail
        c.save_button.on_click(self._guard(lambda _: self._save_clicked(), "Save"))
        c.overwrite_button.on_click(self._guard(lambda _: self._save_clicked(force=True), "Save"))
        c.save_path.observe(lambda _: setattr(c.overwrite_button.layout, "display", "none"), "value")
        d.copy_button.on_click(self._guard(lambda _: self.copy_rows(), "Copy JSON"))
        d.download_button.on_click(self._guard(lambda _: self.download_rows(), "JSONL"))

    def _save_clicked(self, force: bool = False) -> None:
        c = self.controls
        path = c.save_path.value.strip() or DEFAULT_NAME
        c.overwrite_button.layout.display = "none"
        if not force and Path(path).exists():
            c.overwrite_button.description = f"Overwrite {Path(path).name}"
            c.overwrite_button.layout.display = None
            self._refuse(f"{path} exists: click Overwrite to replace it, or give another name")
            return
        self.save_recording(path, force=force)

    @property
    def selected_rows(self) -> list[Row]:
        """The rows selected in the table (shift/ctrl-click), or the one selected."""
        return self.table.selected_rows()

    def copy_rows(self) -> int:
        """The selected rows' JSON (one line each, as ``--json``) on the browser's clipboard."""
        rows = self.selected_rows
        if not rows:
            raise WorkbenchError("select a row first (click it, or j/k; shift/ctrl-click for more)")
        self.table.offer("clipboard", rows_jsonl(rows))
        self._status(f"copied {len(rows)} row{'s' if len(rows) != 1 else ''} as JSON")
        return len(rows)

    def download_rows(self) -> int:
        """The selected rows (every row when none is) as a JSONL file from the browser."""
        rows = self.selected_rows or self.rows
        if not rows:
            raise WorkbenchError("no rows yet: Step or Run first")
        self.table.offer("download", rows_jsonl(rows), f"rows-{rows[0].step}-{rows[-1].step}.jsonl")
        return len(rows)

    def to_jsonl(self, path: str, selected: bool = True, force: bool = False) -> int:
        """The selected rows (``selected=False``: all) as JSON lines in ``path``; an existing
        file only with ``force``."""
        from workbench.core import outputs, secrets

        rows = (self.selected_rows if selected else None) or self.rows
        outputs.write_text(path, secrets.scrub(rows_jsonl(rows)), force)
        self._status(f"wrote {len(rows)} rows to {path}")
        return len(rows)
