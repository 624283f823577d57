"""Every benchmark still names what exists: the names it imports from ``workbench`` (and ``tests``,
``bench``), and the attributes it reads of the modules so imported.

The benchmarks run only in ``make bench``, not in the tests, so a rename in the core could
leave one broken unseen (bench/check_throughput.py imported ``stream`` from the module it had
left). Running each would take minutes; importing what each names takes a second."""

from __future__ import annotations

import ast
import importlib
import types
from pathlib import Path

import pytest

BENCH = sorted((Path(__file__).resolve().parents[2] / "bench").glob("*.py"))


def _ours(module: str | None) -> bool:
    return bool(module) and module.split(".")[0] in ("workbench", "bench", "tests")


def _named(path: Path) -> tuple[list[tuple[str, str]], dict[str, str], list[tuple[str, str]]]:
    """(module, name) pairs imported, local names bound to our modules, and (local, attr)
    reads of those names."""
    tree = ast.parse(path.read_text(), str(path))
    pairs, modules = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and _ours(node.module):
            for alias in node.names:
                pairs.append((node.module, alias.name))
                full = f"{node.module}.{alias.name}"
                try:
                    if isinstance(importlib.import_module(node.module).__dict__.get(alias.name), types.ModuleType):
                        modules[alias.asname or alias.name] = full
                except ImportError:
                    pass  # reported by the pair check
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _ours(alias.name) and alias.asname:
                    modules[alias.asname] = alias.name
    reads = [(n.value.id, n.attr) for n in ast.walk(tree)
             if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in modules]
    return pairs, modules, reads


def test_there_are_benchmarks():
    assert len(BENCH) >= 10, BENCH


@pytest.mark.parametrize("path", BENCH, ids=lambda p: p.name)
def test_bench_names_what_exists(path):
    pairs, modules, reads = _named(path)
    missing = []
    for module, name in pairs:
        try:
            mod = importlib.import_module(module)
        except ImportError as e:
            missing.append(f"{module}: {e}")
            continue
        if not hasattr(mod, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                missing.append(f"{module}.{name}")
    for local, attr in reads:
        if not hasattr(importlib.import_module(modules[local]), attr):
            missing.append(f"{modules[local]}.{attr} (as {local}.{attr})")
    assert pairs, f"{path.name} imports nothing of ours"
    assert not missing, f"{path.name} names what is not there: {missing}"
