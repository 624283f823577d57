"""README.md: the front page stays short (depth goes to docs/), its links resolve and it names
every notebook."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_at_most_200_lines():
    assert len(README.splitlines()) <= 200


def test_every_relative_link_resolves():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if "://" not in link]
    assert local, "the README links to the docs pages"
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing


def test_every_notebook_is_named():
    notebooks = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks and [n for n in notebooks if n not in README] == []


def test_the_two_commands_are_there():
    assert "make demo" in README and "make test" in README
