"""Each package's __init__ docstring is its map: it names every module (``name.py``) and every
sub-package (``name/``) in it, so a reader of a package sees what is there."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = sorted(p.parent for p in (ROOT / "workbench").rglob("__init__.py"))


def unnamed(package: Path) -> list[str]:
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    names = [p.name for p in package.glob("*.py") if p.name != "__init__.py"]
    names += [f"{p.parent.name}/" for p in package.glob("*/__init__.py")]
    return sorted(n for n in names if n not in doc)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_package_docstring_names_every_module(package):
    missing = unnamed(package)
    assert not missing, (f"{package.relative_to(ROOT)}/__init__.py's docstring does not name {missing}: "
                         "add one line each (name.py  what it is for)")


def test_a_module_left_off_the_map_is_found(tmp_path):
    (tmp_path / "__init__.py").write_text('"""A package.\n\n    known.py   named here\n"""\n')
    (tmp_path / "known.py").write_text("")
    (tmp_path / "new.py").write_text("")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "__init__.py").write_text("")
    assert unnamed(tmp_path) == ["new.py", "sub/"]
