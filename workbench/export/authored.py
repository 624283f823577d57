"""The author's own code beside an exported test: the plugins and the parser config a case
ran, and the author's modules the config's callables name (a converter beside the config or a
plugin), copied next to the test file so it loads them from there (``export``, ``doctor --report``).

A plugin is copied as it is. A config is copied as it is too, unless it ``extends`` another
file: then the one flat config the workbench ran is written (every field, no ``extends``),
so the copy needs nothing else. A file already beside the test with the same text (the
author's own, when the test is written into their folder) is left alone; one that differs
is refused without ``--force``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core import door, limits
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.core.session import Session


def copies(session: Session) -> list[tuple[str, str]]:
    """[(file name, text)] of the code ``session`` ran: its plugins, then its config."""
    out = [(Path(p).name, door.read_text(p, "plugin", limits.MAX_CODE_BYTES)) for p in session.setup.plugins]
    config = session.setup.parser.config
    if config:
        out.append((Path(config).name, config_text(config, session)))
        out += [(m.name, door.read_text(m, "module", limits.MAX_CODE_BYTES)) for m in modules(config, session)]
    names = [name for name, _ in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise WorkbenchError(f"two files named {twice[0]} would be copied beside the test: rename one")
    return out


def modules(config: str, session: Session) -> list[Path]:
    """The author's modules the config's callables come from (beside the config or a plugin)."""
    from workbench.core.config.export_python import authored_modules
    from workbench.core.config.from_vllm import config_data
    from workbench.core.config.parser import config_of

    built = config_of(session.parser_cls)
    if built is None:
        return []
    data = config_data(built, _family(session.parser_cls))
    return authored_modules(data, [Path(config).resolve().parent, *session.policy.beside])


def config_text(path: str, session: Session) -> str:
    text = door.read_text(path, "config", limits.MAX_CONFIG_BYTES)
    if "extends" not in door.parse_toml(text, f"config {path}"):
        return text
    from workbench.core.config.from_vllm import config_data
    from workbench.core.config.parser import config_of
    from workbench.core.config.toml_text import render

    cls = session.parser_cls
    data = config_data(config_of(cls), _family(cls))
    return render(data, [f"{Path(path).name}, flattened by the parser workbench: {path} and the file(s) it",
                         "extends, as one config (the copy an exported test loads)."])


def _family(cls: type | None) -> type | None:
    """The family class a config names as ``parser_class``: ``plain.engine_class`` puts it
    first of two bases, before the injector."""
    return cls.__bases__[0] if cls is not None and len(cls.__bases__) == 2 else None


def targets(folder: Path, planned: list[tuple[str, str]], force: bool) -> list[tuple[Path, str]]:
    """The copies still to write into ``folder``; refuses one that would replace a different file."""
    out = []
    for name, text in planned:
        dest = folder / name
        if dest.exists():
            try:
                same = dest.is_file() and door.read_text(dest, "file", limits.MAX_CODE_BYTES) == text
            except door.InputError:
                same = False
            if same:
                continue
            if not force:
                raise WorkbenchError(f"{dest} exists and differs from the {name} this run used (the test loads "
                                     f"its copy from beside it); --force replaces it")
        out.append((dest, text))
    return out


def write(folder: Path, planned: list[tuple[str, str]], force: bool) -> list[Path]:
    from workbench.core import outputs

    return [outputs.write_text(dest, text, True) for dest, text in targets(folder, planned, force)]
