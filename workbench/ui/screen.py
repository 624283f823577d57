"""Draw a state: each panel from the state alone (and what the runtime derives from it: the
stream's tokenizer, its API events, every API's final, the parser names registered in the
kernel), redrawn only where the part of the state it shows changed, so a Step at 100,000
rows sends one row and two status lines. The pickers also follow the names that a cell
registers (``after_cells``).
"""

from __future__ import annotations

import sys
import weakref
from typing import TYPE_CHECKING

from workbench.ui import views
from workbench.ui.runtime import label
from workbench.ui.table import TokenText

if TYPE_CHECKING:
    from workbench.ui.runtime import Runtime
    from workbench.ui.state import State
    from workbench.ui.widget import Workbench


def render(wb: Workbench, old: State | None, s: State) -> None:
    rt = wb._ctl.rt
    with wb.hold_sync():
        names(wb, rt)
        wb.controls.render(s)
        shown = views.banner(s)
        if shown is None:
            if wb.banner.value:
                wb.banner.clear()
        else:
            wb.banner.show(*shown)
        table(wb, old, s, rt)
        detail(wb, old, s, rt)
        final(wb, old, s, rt)
        diagram(wb, s, rt)
        wb.checks.render(s)
        wb.editor.render(s)
        if old is None or s.ab is not old.ab or s.stream.id != old.stream.id or s.ab_specs is not old.ab_specs:
            wb.ab.render(s, decoder(rt))
        if old is None or s.doctor is not old.doctor or s.stream.id != old.stream.id:
            wb.doctor_panel.render(s)


def names(wb: Workbench, rt: Runtime) -> None:
    """The parser pickers list every name the vLLM in use registered: a lane's once, the
    installed vLLM's again whenever its registries changed (a cell that imports a plugin, the
    editor's plugin, register names in this kernel)."""
    session = rt.session
    if session is None and not {"vllm.tool_parsers", "vllm.reasoning"} <= sys.modules.keys():
        return  # nothing is registered before vLLM is imported
    version = getattr(session, "version", None)
    from workbench.lanes import versions

    if versions.is_installed(version):
        from workbench.core.parsers import registered_names

        found = registered_names()
        key: object = (None, tuple(found["tool"]), tuple(found["reasoning"]))
    elif wb.controls.names_for == version:
        return
    else:
        from workbench.lanes.lane_ui import names as registered

        found, key = registered(version), version
    if wb.controls.names_for != key:
        wb.controls.names_for = key
        wb.controls.fill_names(found)


_SHOWN: weakref.WeakSet = weakref.WeakSet()  # the widgets whose pickers follow the kernel's registries


def after_cells(wb: Workbench) -> None:
    """Refresh ``wb``'s parser pickers after every cell this kernel runs (IPython's
    ``post_run_cell``): a cell that imports a plugin module adds its names at once."""
    _SHOWN.add(wb)
    try:
        from IPython import get_ipython
    except ImportError:
        return
    ip = get_ipython()
    if ip is not None and _after_cell not in ip.events.callbacks["post_run_cell"]:
        ip.events.register("post_run_cell", _after_cell)


def _after_cell(result=None) -> None:
    for wb in list(_SHOWN):
        try:
            names(wb, wb._ctl.rt)
        except Exception as e:  # a hook's traceback would land in the user's cell
            wb.banner.show_exception(e, "listing the parsers registered in this kernel")


def decoder(rt: Runtime) -> TokenText | None:
    session = rt.stream_session or rt.session
    tok = getattr(session, "tokenizer", None)
    if tok is None:
        return None
    if rt.decoder is None or rt.decoder.tokenizer is not tok:
        rt.decoder = TokenText(tok)
    return rt.decoder


def table(wb: Workbench, old: State | None, s: State, rt: Runtime) -> None:
    """Only the new rows go to the front end while the stream grows; a new stream, one reset."""
    t = wb.table
    rows = s.stream.rows
    dec = decoder(rt)
    if dec is not None and t.decode is not dec:
        t.decode = dec
    grows = (old is not None and old.stream.id == s.stream.id and old.stream.changed is s.stream.changed
             and t.rows_log is rows.log and len(t.rows) <= len(rows))
    if grows:
        t.append(rows[len(t.rows):])
    elif old is None or old.stream.rows != rows or old.stream.changed is not s.stream.changed or t.rows_log is not rows.log:
        t.set_rows(list(rows), set(s.stream.changed))
    t.rows_log = rows.log
    if (t.selected or None) != s.selected or tuple(t.selection) != (s.selection or ()):
        t.select(s.selected, s.selection)


def detail(wb: Workbench, old: State | None, s: State, rt: Runtime) -> None:
    row = s.row
    api = s.stream.applied.api
    last = row is not None and row.step == len(s.stream.rows)
    key = (s.stream.id, id(row), api, s.stream.done, last)
    if getattr(wb.detail, "drawn", None) == key:
        wb.detail.step.max = len(s.stream.rows)
        return
    wb.detail.drawn = key
    events = row_events(s, rt, row.step) if row is not None else None
    note = ("the stream has not ended: the closing events are what the server sends if it ends here"
            if events is not None and last and not s.stream.done else "")
    applied = s.stream.applied
    forced = applied.source == "engine" and bool(applied.text)  # the script's tokens, not sampled
    wb.detail.show(row, len(s.stream.rows), decoder(rt), api, events, note, forced)


def row_events(s: State, rt: Runtime, step: int) -> list[dict] | None:
    """The step's events on the applied API (None: chat, whose chunk the detail shows)."""
    api = s.stream.applied.api
    faces = rt.faces(s.stream.applied) if api != "chat" else None
    if faces is None or not 1 <= step <= len(s.stream.rows):
        return None
    rows = list(s.stream.rows)
    return faces.row_events(api, rows, rt.recorded()[:len(rows)], step - 1)


def api_finals(s: State, rt: Runtime, force: bool = False) -> tuple[list | None, str]:
    """Every API's client object and body once the stream ended (a long one waits for a
    click: it replays the stream once per API), or None and why."""
    from workbench.ui.faces_view import MOST_FINAL_DELTAS

    f = s.stream.final
    if f is None:
        return None, ""
    faces = rt.faces(s.stream.applied)
    if faces is None:
        return None, "the other APIs' finals run on the installed vLLM only"
    if f.apis is None and len(s.stream.rows) > MOST_FINAL_DELTAS and not force:
        return None, f"{len(s.stream.rows):,} deltas: every API's final replays them once per API; click below"
    if f.apis is None:
        f.apis = faces.finals(list(s.stream.rows), rt.recorded(), (f.stream, f.nonstream))
    return f.apis, ""


def final(wb: Workbench, old: State | None, s: State, rt: Runtime, force: bool = False) -> None:
    findings = s.check.value if s.fresh(s.check) else None
    key = (id(s.stream.final), id(findings))
    if not force and getattr(wb.final, "drawn", None) == key:
        return
    wb.final.drawn = key
    try:
        apis, note = api_finals(s, rt, force)
    except Exception as e:  # the chat verdict stays; the banner says what failed
        apis, note = None, f"the other APIs' finals failed: {type(e).__name__}"
        wb.banner.show_exception(e, "final messages")
    wb.final.show(s.stream.final, apis, note, findings)


def diagram(wb: Workbench, s: State, rt: Runtime) -> None:
    session = rt.stream_session if s.stream.started else rt.built(s.settings)
    drawn = (session, getattr(session, "parser_cls", None))
    if any(a is not b for a, b in zip(drawn, getattr(wb.diagram, "drawn_for", (None, None)))):
        wb.diagram.show_parser(session, label(s.stream.applied))
        wb.diagram.drawn_for = drawn
    rows = s.stream.rows
    wb.diagram.light(s.row or (rows[-1] if rows else None))
