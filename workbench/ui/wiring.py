"""Every control of a ``Workbench`` sends an action to its controller: buttons, pickers and
boxes, the table's selection, the editor's switch and text, the tabs' buttons. Nothing here
draws or decides; the controller's state, drawn by ``ui/screen.py``, is the answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.ui import plugin_editor as P, settings as S, takeaway, tools, transitions as T
from workbench.ui.inputs import DEFAULT_TEXT

if TYPE_CHECKING:
    from workbench.ui.surface import Surface


def wire(wb: Surface) -> None:
    c = wb.controls
    buttons = {c.step_button: ("Step", T.step), c.reset_button: ("Reset", T.reset),
               c.replay_button: ("Replay", T.replay), wb.checks.grouping_button: ("grouping", tools.show_grouping),
               wb.editor.reload_button: ("editor", P.reload)}
    for b, (what, fn) in buttons.items():
        b.on_click(lambda _, what=what, fn=fn: wb.send(what, fn))
    c.run_button.on_click(lambda _: wb.run_clicked())
    c.stop_button.on_click(lambda _: wb.stop())
    c.seed_button.on_click(lambda _: setting(wb, "text", DEFAULT_TEXT))
    c.on_setting(lambda name, value: setting(wb, name, value))
    wb.table.observe(lambda _: picked(wb, wb.table.selected or None, tuple(wb.table.selection)),
                   ["selected", "selection"])
    wb.detail.step.observe(lambda ch: picked(wb, ch["new"] or None), "value")
    wb.final.goto.on_click(lambda _: wb.send("divergence", T.select, wb.final.first_step))
    wb.final.more.on_click(lambda _: wb.send("every API", T.every_api))
    wb.checks.check_button.on_click(lambda _: wb.send("Check", tools.check, wb.checks.fuzz.value))
    wb.checks.export_button.on_click(lambda _: quietly(wb.export))
    wb.editor.use.observe(lambda ch: editor_switch(wb, ch), "value")
    wb.editor.text.observe(lambda ch: editor_typed(wb, ch), "value")
    wb.editor.language.observe(lambda ch: editor_language(wb, ch), "value")
    wb.ab.compare_button.on_click(lambda _: wb.send("A/B", tools.compare, wb.ab.specs()))
    d = wb.doctor_panel
    d.diagnose_button.on_click(lambda _: quietly(wb.diagnose))
    d.grouping_button.on_click(lambda _: quietly(wb.replay_doctor_grouping))
    d.report_button.on_click(lambda _: quietly(wb.download_report))
    d.test_button.on_click(lambda _: quietly(wb.download_report, "test"))
    c.save_button.on_click(lambda _: quietly(takeaway.save_clicked, wb))
    c.overwrite_button.on_click(lambda _: quietly(takeaway.save_clicked, wb, True))
    c.save_path.observe(lambda _: setattr(c.overwrite_button.layout, "display", "none"), "value")
    wb.detail.copy_button.on_click(lambda _: quietly(wb.copy_rows))
    wb.detail.download_button.on_click(lambda _: quietly(wb.download_rows))


def quietly(method, *args) -> None:
    """A button's method: its failure is the state's outcome (the banner), not the cell's."""
    try:
        method(*args)
    except Exception:  # noqa: BLE001 - already shown: the controller made it the outcome
        pass


def setting(wb: Surface, name: str, value) -> None:
    if wb.rendering:
        return
    if name == "recording" and value and value != wb.state.settings.recording:
        wb.send("recording", lambda s, rt: S.pick_recording(s, rt, value))
    else:
        wb.send(name, lambda s, rt: S.set_setting(s, name, value))


def picked(wb: Surface, step: int | None, selection: tuple[int, ...] = ()) -> None:
    if wb.rendering:
        return
    s = wb.state
    if step != s.selected or (selection and selection != s.selection):
        wb.send("row", T.select, step, selection or None)


def editor_switch(wb: Surface, change: dict) -> None:
    if wb.editor.switching or wb.rendering:
        return
    wb.send("editor", P.reload if change["new"] else S.editor_off)
    wb.editor._drawn = None
    wb.editor.render(wb.state)  # a refused or failed switch goes back


def editor_typed(wb: Surface, change: dict) -> None:
    if wb.editor.typing or wb.rendering:
        return
    wb.send("editor", lambda s, rt: S.editor_text(s, change["new"]))
    if wb.editor.auto.value:
        wb.send("editor", P.reload)


def editor_language(wb: Surface, change: dict) -> None:
    if wb.editor.switching or wb.rendering:
        return
    wb.send("editor", P.set_language, change["new"])
