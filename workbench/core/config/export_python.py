"""A parser config -> a vLLM plugin module (``workbench export-config --python F.toml``).

The module builds the config's ``ParserEngineConfig`` and its ``ParserEngine`` class with the
pasted ``config.plain`` (the code the workbench itself builds a config with), then registers
vLLM's reasoning and tool adapters for it under one name, as
``vllm/parser/engine/registered_adapters.py`` does for vLLM's own families. So

    vllm serve MODEL --tool-parser-plugin NAME_parser.py --enable-auto-tool-choice \\
        --tool-call-parser NAME --reasoning-parser-plugin NAME_parser.py --reasoning-parser NAME

runs the config's parser. The data is the flat config the workbench loaded (``extends``
resolved), every value a Python literal, filled into the template in one pass (a value that
spells a placeholder stays a value); the module is parsed before it is written. A callable
the config names from the author's own module (a converter beside the config) is imported
from beside the plugin, where ``export-config --python`` copies the module.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from workbench.core.trust import CallablePolicy

HERE = Path(__file__).parent

TEMPLATE = '''"""@TITLE@"""

from __future__ import annotations

import os

from vllm.reasoning import ReasoningParserManager
from vllm.tool_parsers import ToolParserManager

# -- a parser config's data -> vLLM's ParserEngineConfig and ParserEngine class -------------
# (workbench/core/config/plain.py, the code the parser workbench builds a config with)
@PLAIN@

NAME = @NAME@
DATA = @DATA@
# the author's modules the config's callables name (a converter) are copied beside this file
BESIDE = [os.path.dirname(os.path.abspath(__file__))]

@CLASS@ = engine_class(config_from_data(DATA, BESIDE),
                       resolve(DATA["parser_class"], BESIDE) if "parser_class" in DATA else None)
@CLASS@ReasoningAdapter, @CLASS@ToolAdapter = @CLASS@.reasoning_parser_cls, @CLASS@.tool_parser_cls
for _cls in (@CLASS@, @CLASS@ReasoningAdapter, @CLASS@ToolAdapter):
    _cls.__module__ = __name__  # where vLLM and tracebacks say the class lives

@REGISTER@
'''


def roles(config: Any) -> list[str]:
    """Which of vLLM's two parser kinds the config fills: "tool" when it can make a call,
    "reasoning" when it has a reasoning state."""
    from workbench.core.config.parser import calls_tools

    states = {config.initial_state.name} | {tr.next_state.name for tr in config.transitions.values()}
    out = ["tool"] if calls_tools(config) else []
    return out + (["reasoning"] if "REASONING" in states else [])


def serve_flags(name: str, plugin_file: str, kinds: list[str]) -> str:
    """The `vllm serve` flags that load the plugin, each word quoted for pasting."""
    from workbench.core.writing import command

    flags = ["--tool-parser-plugin", plugin_file]
    if "tool" in kinds:
        flags += ["--enable-auto-tool-choice", "--tool-call-parser", name]
    if "reasoning" in kinds:
        # The engine core process builds its structured-output reasoner from this flag's import:
        # --tool-parser-plugin alone leaves it without the name ("Reasoning parser ... not found").
        flags += ["--reasoning-parser-plugin", plugin_file, "--reasoning-parser", name]
    return command.join(flags)


def plain_body() -> str:
    """config/plain.py less its docstring and ``__future__`` import, to paste."""
    text = (HERE / "plain.py").read_text(encoding="utf-8").split('"""', 2)[2]
    return text.replace("from __future__ import annotations\n", "").strip()


def plugin_source(path: str, out_name: str, policy: CallablePolicy, name: str | None = None) -> str:
    """The plugin module's text for the config file ``path``, to be written as ``out_name``."""
    import re

    from workbench.core.config import io as config_io
    from workbench.core.config.from_vllm import config_data
    from workbench.core.config.plain import class_name
    from workbench.core.trust import file_sha256
    from workbench.core.vllm_version import vllm_version
    from workbench.core.writing import python

    loaded = config_io.load_file(path, policy)
    config_io.raise_for(loaded)
    config: Any = loaded.config
    name = name or config.name
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise WorkbenchError(f"--name {name!r}: a parser name is letters, digits, '_', '.' and '-'")
    kinds = roles(config)
    if not kinds:
        raise WorkbenchError(f"config {path} makes no tool call and has no reasoning state: nothing to register")
    cls = class_name(config.name)
    title = (f"{name}: the parser config {Path(path).name} as a vLLM parser plugin.\n\n"
             f"Written by `workbench export-config --python {Path(path).name}` (vLLM {vllm_version()}) from "
             f"{Path(path).name}\n(sha256 {(file_sha256(path) or '?')[:16]}). It builds the config's "
             "ParserEngineConfig and ParserEngine class\nand registers vLLM's adapters for it under "
             f"{name!r}, as vllm/parser/engine/registered_adapters.py\ndoes for vLLM's own families:\n\n"
             f"    vllm serve MODEL {serve_flags(name, out_name, kinds)}\n")
    register = []
    if "tool" in kinds:
        register.append(f"ToolParserManager.register_module(NAME, module={cls}ToolAdapter)")
    if "reasoning" in kinds:
        register.append(f"ReasoningParserManager.register_module(NAME, module={cls}ReasoningAdapter)")
    text = python.fill(TEMPLATE, {"TITLE": python.in_docstring(title), "PLAIN": plain_body(),
                                  "NAME": python.literal(name), "CLASS": cls, "REGISTER": "\n".join(register),
                                  "DATA": python.literal(config_data(config, loaded.parser_class), pretty=True)})
    return python.module(text, out_name, docstring_starts=title)


def callable_refs(data: dict) -> list[str]:
    """Every 'module:attr' a (flat) config's data names: its callables, their partials'
    ``{ ref = ... }`` arguments, ``parser_class``."""
    from vllm.parser.engine.parser_engine_config import ParserEngineConfig

    from workbench.core.config.build import field_kind

    kinds = {f.name: field_kind(str(f.type))[0] for f in dataclasses.fields(ParserEngineConfig)}
    out = [data["parser_class"]] if isinstance(data.get("parser_class"), str) else []
    for key, value in data.items():
        if kinds.get(key) != "callable":
            continue
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            out += [value["call"]] if isinstance(value.get("call"), str) else []
            for arg in [*value.get("args", []), *value.get("kwargs", {}).values()]:
                out += [arg["ref"]] if isinstance(arg, dict) and isinstance(arg.get("ref"), str) else []
    return out


def authored_modules(data: dict, folders: Sequence[str | Path]) -> list[Path]:
    """The author's module files the config's callables were loaded from: a ``NAME.py`` in one
    of ``folders`` (the config's, the plugins') that is the module this process imported for
    the name. What travels beside an exported test or plugin."""
    import sys

    homes = [Path(f).resolve() for f in folders]
    out: list[Path] = []
    for ref in callable_refs(data):
        top = ref.partition(":")[0].split(".")[0]
        file = getattr(sys.modules.get(top), "__file__", None)
        if file and Path(file).resolve().parent in homes and Path(file).stem == top and Path(file).suffix == ".py":
            if Path(file).resolve() not in out:
                out.append(Path(file).resolve())
    return out
