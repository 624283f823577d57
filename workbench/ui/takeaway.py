"""Rows and reports to take away from a ``Workbench``: Save the stream as a recording (an
existing file only after Overwrite is clicked), copy the selected rows' JSON, download them
as JSON lines, the Diagnose tab's report and test; the same from Python (``save_recording``,
``to_jsonl``, ``doctor_report``). Each says what it did in the status line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from workbench.ui import tools
from workbench.ui.runtime import recorded
from workbench.ui.state import with_outcome
from workbench.ui.table import rows_jsonl

if TYPE_CHECKING:
    from workbench.core.rows import Row
    from workbench.ui.surface import Surface

DEFAULT_NAME = "stream.jsonl"


def said(wb: Surface, action: str, line: str, kind: str = "ok") -> None:
    wb.send(action, lambda s, rt: with_outcome(s, kind, line, action))


def refused(wb: Surface, action: str, why: str) -> int:
    said(wb, action, f"refused: {why}", "refused")
    return 0


def save_recording(wb: Surface, path: str, force: bool = False) -> int:
    from workbench.ui.inputs import check_path

    path = check_path(path, "save_recording(path)")
    s = wb.send("Save", tools.save_recording, path, force, raise_errors=True)
    return len(recorded(s.made.source))


def save_clicked(wb: Surface, force: bool = False) -> None:
    c = wb.controls
    path = c.save_path.value.strip() or DEFAULT_NAME
    c.overwrite_button.layout.display = "none"
    if not force and Path(path).exists():
        c.overwrite_button.description = f"Overwrite {Path(path).name}"
        c.overwrite_button.layout.display = None
        refused(wb, "Save", f"{path} exists: click Overwrite to replace it, or give another name")
        return
    save_recording(wb, path, force)


def selected_rows(wb: Surface) -> list[Row]:
    s = wb.state
    steps = set(s.selection) or ({s.selected} if s.selected else set())
    return [r for r in s.stream.rows if r.step in steps]


def copy_rows(wb: Surface) -> int:
    rows = selected_rows(wb)
    if not rows:
        return refused(wb, "Copy JSON", "select a row first (click it, or j/k; shift/ctrl-click for more)")
    wb.table.offer("clipboard", rows_jsonl(rows))
    said(wb, "Copy JSON", f"copied {len(rows)} row{'s' if len(rows) != 1 else ''} as JSON")
    return len(rows)


def download_rows(wb: Surface) -> int:
    rows = selected_rows(wb) or wb.rows
    if not rows:
        return refused(wb, "JSONL", "no rows yet: Step or Run first")
    wb.table.offer("download", rows_jsonl(rows), f"rows-{rows[0].step}-{rows[-1].step}.jsonl")
    said(wb, "JSONL", f"downloading {len(rows)} rows as JSON lines")
    return len(rows)


def to_jsonl(wb: Surface, path: str, selected: bool = True, force: bool = False) -> int:
    from workbench.core import outputs, secrets

    rows = (selected_rows(wb) if selected else None) or wb.rows
    outputs.write_text(path, secrets.scrub(rows_jsonl(rows)), force)
    said(wb, "JSONL", f"wrote {len(rows)} rows to {path}")
    return len(rows)


def download_report(wb: Surface, which: str = "report") -> str:
    r = wb.state.doctor
    if r is None:
        refused(wb, "report", "no diagnosis yet: Diagnose first")
        return ""
    text, name = ((r.extra["markdown"], r.extra["report_name"]) if which == "report"
                  else (r.extra["test"], r.extra["test_name"]))
    if not text:
        refused(wb, "report", "this diagnosis has no test file (the report says why)")
        return ""
    wb.table.offer("download", text, name)
    said(wb, "report", f"downloading {name}")
    return name


def doctor_report(wb: Surface, path: str, force: bool = False) -> list[str]:
    from workbench.diagnosis import bugreport
    from workbench.core import outputs

    if wb.state.doctor is None:
        wb.diagnose()
    r = wb.state.doctor
    md, test, minimal = bugreport.paths(path)
    # the files the Reproduce command reads (text, messages, tools, the editor's config), beside it
    stem = Path(r.extra["report_name"]).stem
    inputs = {md.with_name(md.stem + name[len(stem):]): (name, body) for name, body in r.extra["inputs"].items()}
    outputs.refuse_existing([md, test, minimal, *inputs], force)
    text = r.extra["markdown"].replace(r.extra["test_name"], test.name)
    if r.extra.get("minimal_name"):  # the Reproduce command's --text-file: the file written beside it
        text = text.replace(r.extra["minimal_name"], minimal.name)
    for target, (name, _) in inputs.items():
        text = text.replace(name, target.name)
    written = [outputs.write_text(md, text, force)]
    if r.extra.get("test"):
        written.append(outputs.write_text(test, r.extra["test"].replace(r.extra["test_name"], test.name), force))
    if r.extra.get("minimal"):
        written.append(outputs.write_text(minimal, r.extra["minimal"], force))
    written += [outputs.write_text(target, body, force) for target, (_, body) in inputs.items()]
    said(wb, "report", "wrote " + " and ".join(map(str, written)))
    return [str(p) for p in written]
