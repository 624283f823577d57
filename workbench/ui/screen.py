"""Draw a state: each panel from the state alone (what the runtime made is in it too,
``State.made``: the stream's tokenizer, its API faces, every API's final; and the parser
names registered in the kernel), redrawn only where the part of the state it shows changed,
so a Step at 100,000 rows sends one row and two status lines. Drawing writes nothing but
the widgets. The pickers also follow the names that a cell registers (``after_cells``).
"""

from __future__ import annotations

import sys
import weakref
from typing import TYPE_CHECKING

from workbench.ui import views
from workbench.ui.runtime import key_of, label, recorded
from workbench.ui.transitions import api_finals

if TYPE_CHECKING:
    from workbench.ui.state import State
    from workbench.ui.table import TokenText
    from workbench.ui.surface import Surface


def render(wb: Surface, old: State | None, s: State) -> None:
    with wb.hold_sync():
        names(wb, s)
        wb.controls.render(s)
        shown = views.banner(s)
        if shown is None:
            if wb.banner.value:
                wb.banner.clear()
        else:
            wb.banner.show(*shown)
        table(wb, old, s)
        detail(wb, old, s)
        final(wb, old, s)
        diagram(wb, s)
        wb.checks.render(s)
        wb.editor.render(s)
        if old is None or s.ab is not old.ab or s.stream.id != old.stream.id or s.ab_specs is not old.ab_specs:
            wb.ab.render(s, decoder(s))
        if old is None or s.doctor is not old.doctor or s.stream.id != old.stream.id:
            wb.doctor_panel.render(s)


def names(wb: Surface, s: State) -> None:
    """The parser pickers list every name the vLLM in use registered: a lane's once, the
    installed vLLM's again whenever its registries changed (a cell that imports a plugin, the
    editor's plugin, register names in this kernel)."""
    session = s.made.session
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


def after_cells(wb: Surface) -> None:
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
            names(wb, wb.state)
        except Exception as e:  # a hook's traceback would land in the user's cell
            wb.banner.show_exception(e, "listing the parsers registered in this kernel")


def decoder(s: State) -> TokenText | None:
    """The stream's tokenizer's token texts (else the last session's)."""
    return s.made.decoder


def table(wb: Surface, old: State | None, s: State) -> None:
    """Only the new rows go to the front end while the stream grows; a new stream, one reset."""
    t = wb.table
    rows = s.stream.rows
    dec = decoder(s)
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


def detail(wb: Surface, old: State | None, s: State) -> None:
    row = s.row
    api = s.stream.applied.api
    last = row is not None and row.step == len(s.stream.rows)
    # the row's events come from the stream's faces, which may be made after the row is drawn
    key = (s.stream.id, id(row), api, s.stream.done, last, id(s.made.faces))
    if getattr(wb.detail, "drawn", None) == key:
        wb.detail.step.max = len(s.stream.rows)
        return
    wb.detail.drawn = key
    events = row_events(s, row.step) if row is not None else None
    note = ("the stream has not ended: the closing events are what the server sends if it ends here"
            if events is not None and last and not s.stream.done else "")
    applied = s.stream.applied
    forced = applied.source == "engine" and bool(applied.text)  # the script's tokens, not sampled
    wb.detail.show(row, len(s.stream.rows), decoder(s), api, events, note, forced)


def row_events(s: State, step: int) -> list[dict] | None:
    """The step's events on the applied API (None: chat, whose chunk the detail shows)."""
    api = s.stream.applied.api
    faces = s.made.faces if api != "chat" else None
    if faces is None or not 1 <= step <= len(s.stream.rows):
        return None
    rows = list(s.stream.rows)
    return faces.row_events(api, rows, recorded(s.made.source)[:len(rows)], step - 1)


def final(wb: Surface, old: State | None, s: State) -> None:
    findings = s.check.value if s.fresh(s.check) else None
    key = (id(s.stream.final), id(findings))
    if getattr(wb.final, "drawn", None) == key:
        return
    wb.final.drawn = key
    apis, note = api_finals(s)
    f = s.stream.final
    if f is not None and f.apis_failed is not None:  # the chat verdict stays; the banner says what failed
        wb.banner.show_exception(f.apis_failed, "final messages")
    wb.final.show(f, apis, note, findings)


def diagram(wb: Surface, s: State) -> None:
    made = s.made
    session = made.stream_session if s.stream.started else (
        made.session if made.key is not None and made.key == key_of(s.settings) else None)
    drawn = (session, getattr(session, "parser_cls", None))
    if any(a is not b for a, b in zip(drawn, getattr(wb.diagram, "drawn_for", (None, None)))):
        wb.diagram.show_parser(session, label(s.stream.applied))
        wb.diagram.drawn_for = drawn
    rows = s.stream.rows
    wb.diagram.light(s.row or (rows[-1] if rows else None))
