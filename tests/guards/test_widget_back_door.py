"""The widget has no back door: its controller (``Workbench._ctl``) and its private action
runner (``Workbench._do``) are read in ``ui/widget.py`` alone. Every other module (the
controls' wiring, the take-away buttons, ``show``, the API frames, the notebooks) sends an
action through ``Workbench.send`` or another public method and reads ``Workbench.state``
(read with ``ast``; the notebooks' cells and scripts as text)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRIVATE = {"_ctl", "_do"}
OWNER = ROOT / "workbench" / "ui" / "widget.py"


def uses(tree: ast.AST) -> list[int]:
    return sorted(n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in PRIVATE)


def back_doors() -> list[str]:
    found = []
    for path in sorted((ROOT / "workbench").rglob("*.py")) + sorted((ROOT / "notebooks").glob("*.py")):
        if path != OWNER:
            found += [f"{path.relative_to(ROOT)}:{line}" for line in uses(ast.parse(path.read_text()))]
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for n, cell in enumerate(json.loads(path.read_text())["cells"]):
            if re.search(r"\.(_ctl|_do)\b", "".join(cell["source"])):
                found.append(f"{path.relative_to(ROOT)} cell {n}")
    return found


def test_only_the_widget_reads_its_controller():
    assert back_doors() == []


def test_the_guard_sees_a_back_door():
    assert uses(ast.parse("wb._ctl.rt.recorded()\nwb._do('Step', step)")) == [1, 2]
    assert uses(ast.parse(OWNER.read_text()))  # the owner's own uses are seen, and allowed
