"""No ``hasattr`` switch between the workbench's own types: a name that a workbench class
defines is part of a shared protocol (``core.prepare.Replayer``) or a type's own, never
probed with ``hasattr`` to tell two of our classes apart (read with ``ast``)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "workbench"


def own_attributes(trees: dict[Path, ast.AST]) -> set[str]:
    """Every method and class-level attribute a workbench class defines."""
    names = set()
    for tree in trees.values():
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            for item in cls.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(item.target.id)
    return {n for n in names if not (n.startswith("__") and n.endswith("__"))}


def switches(trees: dict[Path, ast.AST], own: set[str]) -> list[str]:
    found = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hasattr"
                    and len(node.args) == 2 and isinstance(node.args[1], ast.Constant)
                    and node.args[1].value in own):
                found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}: hasattr(..., {node.args[1].value!r})")
    return found


def test_no_hasattr_switch_between_our_own_types():
    trees = {p: ast.parse(p.read_text(encoding="utf-8"), str(p)) for p in sorted(ROOT.rglob("*.py"))}
    found = switches(trees, own_attributes(trees))
    assert found == [], "put the name on both types (a Protocol), not a hasattr switch:\n" + "\n".join(found)


def test_the_scan_sees_a_switch():
    mine = ast.parse("class Lane:\n    def machines(self): ...\n"
                     "def f(s):\n    return s.machines() if hasattr(s, 'machines') else []\n")
    theirs = ast.parse("def g(x):\n    return hasattr(x, 'model_dump')\n")
    trees = {ROOT / "a.py": mine, ROOT / "b.py": theirs}
    assert switches(trees, own_attributes(trees)) == ["workbench/a.py:4: hasattr(..., 'machines')"]
