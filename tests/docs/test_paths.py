"""Every repository path the docs name exists (README.md, AGENTS.md, docs/*.md and the package
maps in workbench's __init__ docstrings), so a page goes stale loudly when a file moves:
`tests/test_x.py`, `workbench/core/door.py`, `core/door.py` (under workbench/), `bench/x.py`,
`parsers/x.toml`, `setup/...`, `js/...`, in code spans or bare."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "AGENTS.md", *sorted((ROOT / "docs").rglob("*.md")),
         *sorted((ROOT / "workbench").rglob("__init__.py"))]
CHECKED = ("workbench/", "tests/", "bench/", "parsers/", "setup/", "notebooks/", "js/", "docs/",
           "core/", "check/", "capture/", "lanes/", "ui/", "cli/", "corpus/", "engine/")
EXAMPLES = {"parsers/mine.toml", "parsers/x.toml"}  # paths the user writes, named in examples
SPAN = re.compile(r"`([^`\s]+)`")
BARE = re.compile(r"(?<![\w/.`-])((?:workbench|tests|bench|setup|parsers|notebooks|docs)/[\w./-]*\w\.(?:py|toml|md|txt|lock|ipynb|jsonl))")


def named_paths(text: str) -> set[str]:
    out = set()
    for span in SPAN.findall(text):
        path = span.split(":")[0].rstrip(".,;")
        if path.startswith(CHECKED) and re.fullmatch(r"[\w./-]+", path) and "<" not in path:
            out.add(path)
    out |= set(BARE.findall(text))
    return out - EXAMPLES


def exists(path: str) -> bool:
    return any((base / path).exists() for base in (ROOT, ROOT / "workbench"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_named_path_exists(page):
    missing = sorted(p for p in named_paths(page.read_text(encoding="utf-8")) if not exists(p))
    assert not missing, f"{page.relative_to(ROOT)} names paths that do not exist: {missing}"


def test_the_scan_finds_paths_and_misses():
    text = ("see `tests/test_gone.py`, `core/door.py:12` and `workbench/ui/static/`, not `rec.jsonl`;"
            " bare (tests/test_bare.py) too")
    assert named_paths(text) == {"tests/test_gone.py", "core/door.py", "workbench/ui/static/", "tests/test_bare.py"}
    assert not exists("tests/test_gone.py") and exists("core/door.py")
