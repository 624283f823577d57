"""AGENTS.md: one line per package and the rules, at most 60 lines (per-module detail lives in
each package's __init__ docstring: tests/docs/test_package_maps.py)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AGENTS = (ROOT / "AGENTS.md").read_text(encoding="utf-8")


def test_agents_is_at_most_60_lines():
    assert len(AGENTS.splitlines()) <= 60


def test_every_top_level_package_has_its_line():
    packages = sorted(p.parent.name for p in (ROOT / "workbench").glob("*/__init__.py"))
    assert packages and [p for p in packages if f"workbench/{p}/" not in AGENTS] == []
