"""The tests' own shape, read with ``ast``: every test module sits in the folder of the
package it tests (none flat under tests/), and shared helpers come from tests/support/,
never from conftest.py or another test module (an import of a test module runs its
module-level code and ties two files' fates together)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _test_modules() -> list[Path]:
    return sorted(p for p in TESTS.rglob("test_*.py") if "data" not in p.relative_to(TESTS).parts)


def _imported(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
            names += [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names]
    return names


def test_no_test_module_is_flat_under_tests():
    flat = [p.name for p in _test_modules() if p.parent == TESTS]
    assert flat == [], f"put these in the folder of the package they test: {flat}"


def test_helpers_come_from_support_not_from_conftest_or_test_modules():
    bad = []
    for path in _test_modules() + sorted((TESTS / "support").glob("*.py")):
        for name in _imported(path):
            parts = name.split(".")
            if parts[0] == "tests" and ("conftest" in parts or any(p.startswith("test_") for p in parts[1:])):
                bad.append(f"{path.relative_to(TESTS)} imports {name}")
    assert bad == [], bad


def test_the_layout_guard_sees_the_tests():
    # the scan above is only worth something if it finds the suite's modules and its imports
    modules = _test_modules()
    assert len(modules) > 40 and any(p.parent.name == "core" for p in modules)
    assert any(n.startswith("tests.support") for p in modules for n in _imported(p))
