"""What the pickers offer (the repository's config files and recordings, the built-in
tokenizers) and how a picker is set to a value."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from workbench.ui.inputs import REPO, resolve

if TYPE_CHECKING:
    import ipywidgets as W

NONE = "(none)"
# A Dropdown whose value is None shows a blank box, so "(none)" is the value "".
NO_VALUE = ""


def config_files() -> list[str]:
    """The shipped parser configs (parsers/cases/ holds conformance cases, not configs)."""
    root = REPO / "parsers"
    return sorted(str(p.relative_to(REPO)) for p in root.glob("**/*.toml")
                  if p.relative_to(root).parts[0] != "cases") if root.is_dir() else []


def recording_files() -> list[str]:
    found = []
    for root in (REPO / "parsers" / "recordings", REPO / "notebooks" / "data"):
        if root.is_dir():
            found += [str(p.relative_to(REPO)) for p in root.glob("**/*.jsonl")]
    return sorted(found)


def tokenizer_names() -> list[str]:
    from workbench.core.tokenizers import list_tokenizers

    return [t.name for t in list_tokenizers()]


def options(names, current) -> list:
    names = list(names)
    if current and current not in names:
        names.append(current)
    return [(NONE, NO_VALUE)] + [(n, n) for n in sorted(names)]


def _same_file(a: str, b: str) -> bool:
    pa, pb = resolve(a), resolve(b)
    return pa == pb or (Path(pa).exists() and Path(pb).exists() and Path(pa).samefile(pb))


def pick(dd: W.Dropdown, value: str | None) -> None:
    """Select ``value``; a path already listed under another spelling (absolute vs
    relative to the repository) selects that entry instead of adding a copy."""
    if value is None:
        dd.value = NO_VALUE
        return
    listed = [v for _, v in dd.options]
    if value not in listed:
        same = [v for v in listed if v and _same_file(v, value)]
        if same:
            value = same[0]
        else:
            dd.options = list(dd.options) + [(value, value)]
    dd.value = value


def json_of(text: str, what: str):
    text = text.strip()
    if not text:
        return None
    from workbench.core import door

    return door.parse_json(text, what)
