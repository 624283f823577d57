"""ui/shared: a front-end module's code goes over the comm once per kernel (a ``Module``
widget), every table, editor and diagram carries a stub of its own. A reloaded page gets
every live widget's state in one answer that JupyterLab waits 4 s for (tests/ui/test_browser.py
reloads one); the browser tests draw every widget through the stubs."""

from __future__ import annotations

import json

from ipywidgets.widgets.widget import _instances

from workbench.ui import diagram, editor, table
from workbench.ui.shared import Module, Shared


def state_bytes(widget) -> int:
    return len(json.dumps(widget.get_state()))


def modules() -> list[Module]:
    return [w for w in _instances.values() if isinstance(w, Module)]


def test_widgets_of_a_kind_share_one_module_and_send_only_a_stub():
    tables = [table.DeltaTable(), table.RecordTable(table.COLUMNS[:2]), table.DeltaTable()]
    code = table.TABLE.module
    assert {t._esm for t in tables} == {table.TABLE.esm} and table.TABLE.key in tables[0]._esm
    assert sum(m.key == table.TABLE.key for m in modules()) == 1
    assert code.code == table.lean((table.STATIC / "table.js").read_text(encoding="utf-8"))
    assert len(code.code) > 20_000 and all(len(t.get_state()["_esm"]) < 600 for t in tables)
    assert not any("_css" in t.get_state() for t in tables)  # the Module puts the CSS in the page
    big = editor.CodeEditor()  # the CodeMirror bundle: 323 KB in the Module, not in the editor
    assert len(big.get_state()["_esm"]) < 600 and state_bytes(big) < 2_000 and len(editor.EDITOR.module.code) > 300_000
    assert state_bytes(diagram.StateDiagram()) < 2_000 and "dagre" in diagram.DIAGRAM.module.code.lower()
    editor.CodeEditor()
    assert sum(m.key == editor.EDITOR.key for m in modules()) == 1


def test_a_closed_module_is_made_again_before_the_next_widget():
    table.DeltaTable()
    first = table.TABLE.module
    first.close()  # Widget.close_all() closes it with the rest
    table.DeltaTable()
    assert table.TABLE.module is not first and table.TABLE.module.comm is not None
    assert table.TABLE.module.key == first.key


def test_the_key_is_the_code_and_css():
    a, b, c = Shared("export default {};"), Shared("export default {};"), Shared("export default {};", "p{}")
    assert a.key == b.key != c.key and a.key in a.esm and "export default {}" not in a.esm
