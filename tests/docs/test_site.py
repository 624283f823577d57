"""The docs site (mkdocs.yml, docs/): `mkdocs build --strict`, as `make docs` runs it, passes on
this tree, and fails on a broken link or a nav line whose page is missing; a page the nav does
not name is still built and listed under "More pages" (docs/hooks.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build(root: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(root / "mkdocs.yml"),
                           "-d", str(site)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


def copy_site(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "docs", copy / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    return copy


def test_the_site_builds_strictly(tmp_path):
    done = build(ROOT, tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    for page in ("index.html", "cli/index.html", "benchmarks/index.html", "architecture/index.html"):
        assert (tmp_path / "site" / page).is_file(), page


def test_a_broken_link_or_a_missing_page_fails_the_build(tmp_path):
    copy = copy_site(tmp_path)
    index = copy / "docs" / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + "\nSee [this](no-such-page.md).\n", encoding="utf-8")
    (copy / "docs" / "engine.md").unlink()  # named in the nav
    done = build(copy, tmp_path / "site")
    out = done.stdout + done.stderr
    assert done.returncode != 0
    assert "no-such-page.md" in out and "'engine.md' is included in the 'nav'" in out, out


def test_a_page_outside_the_nav_is_listed_under_more_pages(tmp_path):
    copy = copy_site(tmp_path)
    (copy / "docs" / "late.md").write_text("# A page that landed before its nav line\n", encoding="utf-8")
    done = build(copy, tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "More pages" in html and 'href="late/"' in html
