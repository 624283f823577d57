"""Parser config files (``parsers/*.toml``) -> vLLM's ``ParserEngineConfig``.

A file mirrors ``ParserEngineConfig`` field by field, with vLLM's names for
states, events and terminals; two workbench keys sit beside the fields:

- ``extends = "qwen3"`` (or a ``.toml`` path): start from that file, then apply
  this one. Tables (terminals, token_id_terminals, content_events) merge per
  entry, transitions merge per ``(from, on)``, every other key replaces.
- ``parser_class = "vllm.parser.qwen3:Qwen3Parser"``: the vLLM family class whose
  Python hooks run around the table (see ``config_parser``); absent means the
  bare ``ParserEngine``.

Callables (``arg_converter``, ``parser_class``, any ``Callable`` field) are
named ``"module:attr"`` and resolved by importing the module, only inside the
modules the run's ``CallablePolicy`` trusts (``core/trust.py``: vLLM, this run's
plugins, ``--allow-callable``). A ``functools.partial`` is written as a table
``{ call = "m:f", kwargs = { k = { ref = "m:obj" } } }``.

Loading never raises on a bad file: every problem becomes a ``ConfigProblem``
with the field path (``transitions[3].to``) and the line it is written on.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core import door, limits
from workbench.core.config.build import EXTRA_KEYS, TABLE_KEYS, Builder, resolve_ref  # noqa: F401
from workbench.core.clip import clip
from workbench.core.config.lines import line_of, locate
from workbench.core.names import is_path_name, path_name
from workbench.core.trust import DEFAULT, CallablePolicy
from workbench.errors import WorkbenchError

PARSERS_DIR = Path(__file__).resolve().parents[3] / "parsers"


@dataclass(frozen=True)
class ConfigProblem:
    path: str  # field path such as "transitions[3].to"; "" for the file as a whole
    line: int | None
    message: str
    file: str | None = None

    def __str__(self) -> str:
        where = " ".join(x for x in (self.file, f"line {self.line}" if self.line else None) if x)
        head = f"{where}: " if where else ""
        return f"{head}{self.path + ': ' if self.path else ''}{self.message}"

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclass
class LoadedConfig:
    config: object | None  # ParserEngineConfig, None when there are problems
    parser_class: type | None  # the family class named by parser_class; None: bare ParserEngine
    problems: list[ConfigProblem]
    source: str
    data: dict = field(default_factory=dict)  # the merged TOML data, after extends
    notes: list[str] = field(default_factory=list)  # fields read in this vLLM's spelling (config/spelling.py)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class _File:
    label: str
    path: Path | None
    data: dict
    lines: dict[str, int]


def read_text(p: Path) -> str:
    """A config file's text through the reading door; InputError with a one-line reason."""
    return door.read_text(p, "config", limits.MAX_CONFIG_BYTES)


def load_file(path: str | Path, policy: CallablePolicy = DEFAULT) -> LoadedConfig:
    p = Path(path)
    try:
        text = read_text(p)
    except door.InputError as e:
        why = str(e).removeprefix(f"config {p}: ")
        return LoadedConfig(None, None, [ConfigProblem("", None, why, str(path))], str(path))
    return load_text(text, base_dir=p.parent, source=str(path), _path=p.resolve(), policy=policy)


def load_text(text: str, *, base_dir: str | Path | None = None, source: str = "<text>",
              _path: Path | None = None, policy: CallablePolicy = DEFAULT) -> LoadedConfig:
    """Parse, follow ``extends``, validate and build; problems instead of exceptions."""
    problems: list[ConfigProblem] = []
    chain = _chain(_File(source, _path, {}, {}), text, Path(base_dir or PARSERS_DIR), problems)
    if problems:
        return LoadedConfig(None, None, problems, source)
    data, origin = _merge(chain, problems)
    notes: list[str] = []
    beside = [str(_path.parent)] if _path else [str(Path(base_dir).resolve())] if base_dir else []
    config, parser_class = Builder(_Reporter(chain, origin, problems).problem, policy, notes.append,
                                   beside).build(data)
    problems.sort(key=lambda p: (p.file != source, p.file or "", p.line or 0))
    return LoadedConfig(None if problems else config, parser_class, problems, source, data, notes)


def load(path: str | Path, policy: CallablePolicy = DEFAULT) -> Any:
    """The ParserEngineConfig in ``path``; WorkbenchError listing every problem."""
    loaded = load_file(path, policy)
    raise_for(loaded)
    return loaded.config


def loads(text: str, *, base_dir: str | Path | None = None, policy: CallablePolicy = DEFAULT) -> Any:
    loaded = load_text(text, base_dir=base_dir, policy=policy)
    raise_for(loaded)
    return loaded.config


def raise_for(loaded: LoadedConfig) -> None:
    if loaded.problems:
        n = len(loaded.problems)
        raise WorkbenchError(f"config {loaded.source}: {n} problem{'s' * (n > 1)}: "
                             + "; ".join(str(p) for p in loaded.problems))


def _chain(first: _File, text: str, base_dir: Path, problems: list) -> list[_File]:
    """The file and every file it extends, child first."""
    files: list[_File] = []
    current = first
    while True:
        try:
            current.data = door.parse_toml(text, current.label)
        except door.InputError as e:
            problems.append(ConfigProblem("", e.line, e.reason, current.label))
            return files
        current.lines = locate(text)
        files.append(current)
        ext = current.data.get("extends")
        if ext is None:
            return files

        def bad(msg: str, f: _File = current) -> list[_File]:
            problems.append(ConfigProblem("extends", f.lines.get("extends"), msg, f.label))
            return files

        if not isinstance(ext, str) or not ext:
            return bad("must be a config name or a .toml path")
        here = current.path.parent if current.path else base_dir
        if not ext.endswith(".toml") and not is_path_name(ext):
            return bad(f"{clip(ext)} is neither a config name (letters, digits, '.', '_', '-') nor a .toml path")
        candidates = [here / ext] if ext.endswith(".toml") else [here / f"{path_name(ext, 'extends')}.toml",
                                                                 PARSERS_DIR / f"{path_name(ext, 'extends')}.toml"]
        target = next((c.resolve() for c in candidates if c.is_file()), None)
        if target is None:
            return bad(f"no config {ext!r} (looked for {', '.join(str(c) for c in candidates)})")
        seen = [f.path for f in files]
        if target in seen:
            names = [f.path.name if f.path else "(text)" for f in files[seen.index(target):]] + [target.name]
            return bad(f"extends cycle: {' -> '.join(names)}")
        try:
            text = read_text(target)
        except door.InputError as e:
            return bad(str(e).removeprefix("config "))
        current = _File(str(target), target, {}, {})


def _merge(chain: list[_File], problems: list) -> tuple[dict, dict]:
    """(merged data, origin): origin maps a merged path to (file, path in that file)."""
    data: dict = {}
    origin: dict = {}
    for f in reversed(chain):
        for key, value in f.data.items():
            if key == "extends":
                continue
            if key == "transitions" and isinstance(value, list):
                _merge_transitions(data, origin, f, value, problems)
                continue
            if key in TABLE_KEYS and isinstance(value, dict) and isinstance(data.get(key), dict):
                data[key] = {**data[key], **value}
            else:
                data[key] = value
            origin[key] = (f, key)
            if isinstance(value, dict):
                for sub in value:
                    origin[f"{key}.{sub}"] = (f, f"{key}.{sub}")
    return data, origin


def _merge_transitions(data: dict, origin: dict, f: _File, entries: list, problems: list) -> None:
    merged: list = data["transitions"] if isinstance(data.get("transitions"), list) else []
    if "transitions" not in data:
        origin["transitions"] = (f, "transitions")
    index = {_tkey(e): i for i, e in enumerate(merged) if _tkey(e)}
    first_here: dict = {}
    for i, entry in enumerate(entries):
        key = _tkey(entry)
        if key and key in first_here:
            first = f"transitions[{first_here[key]}]"
            problems.append(ConfigProblem(
                f"transitions[{i}]", line_of(f.lines, f"transitions[{i}]"),
                f"duplicate transition from {key[0]} on {key[1]} (first at {first}, line {line_of(f.lines, first)})",
                f.label))
            continue
        if key:
            first_here[key] = i
        if key in index:
            merged[index[key]] = entry
            origin[f"transitions[{index[key]}]"] = (f, f"transitions[{i}]")
        else:
            origin[f"transitions[{len(merged)}]"] = (f, f"transitions[{i}]")
            if key:
                index[key] = len(merged)
            merged.append(entry)
    data["transitions"] = merged


def _tkey(entry: Any) -> tuple | None:
    if isinstance(entry, dict) and isinstance(entry.get("from"), str) and isinstance(entry.get("on"), str):
        return entry["from"], entry["on"]
    return None


class _Reporter:
    """Records a problem against the file and line where its merged path was written."""

    def __init__(self, chain: list[_File], origin: dict, problems: list) -> None:
        self.chain, self.origin, self.problems = chain, origin, problems

    def problem(self, path: str, message: str) -> None:
        head = re.match(r"[^.\[]+(\[\d+\]|\.[^.\[]+)?", path)
        f, local = self.chain[0], path
        for cut in filter(None, (head and head.group(0), path.split(".")[0].split("[")[0])):
            if cut in self.origin:
                f, prefix = self.origin[cut]
                local = prefix + path[len(cut):]
                break
        self.problems.append(ConfigProblem(path=local, line=line_of(f.lines, local) if local else None,
                                           message=message, file=f.label))
