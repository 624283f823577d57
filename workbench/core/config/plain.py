"""A parser config's data -> vLLM's ``ParserEngineConfig`` and a ``ParserEngine`` class, with
the standard library and vLLM's public classes only.

This file is pasted whole into what leaves the workbench (an exported test of a config, the
plugin ``workbench export-config --python`` writes), so they build the parser exactly as the
workbench does. The data is a config file's TOML after ``extends`` (``config.io``
validates it first): ``transitions`` an array of ``{from, on, to, emit}`` tables, states and
events by name, a callable as ``"module:attr"`` or ``{call, args, kwargs}``.

A callable's module is imported as Python would, else from a folder in ``beside`` (the
author's converter next to the config or the plugin, found without ``PYTHONPATH``). With
``trusted`` = (exact names, plugin modules), a name outside both is refused before its module
is imported, and each attribute hop must stay in the plugin's own code: the workbench's trust
policy (core/trust.py), which an exported test keeps.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import inspect
import os
import re
import sys
from typing import Any


class Refused(PermissionError):
    """A config names a callable the run does not trust."""


_REFUSED = ("refused callable {!r}: not one of the callables trusted when this file was written (vLLM's own, "
            "the plugins', and those named with --allow-callable)")


_STAMPS: dict[str, tuple[int, int] | None] = {}  # a module file loaded from beside -> its stamp then


def import_beside(module: str, beside: Any = ()) -> Any:
    """``importlib.import_module(module)``; when no installed module has that name, the
    ``module.py`` in the first folder of ``beside`` that holds one (loaded again once edited)."""
    top = module.split(".")[0]
    here = next((os.path.join(d, top + ".py") for d in beside if os.path.isfile(os.path.join(d, top + ".py"))), None)
    known = sys.modules.get(top)
    file = getattr(known, "__file__", None)
    if isinstance(file, str) and file in _STAMPS and (_stamp(file) != _STAMPS[file]
                                                      or here is not None and os.path.abspath(here) != file):
        del sys.modules[top]  # edited since, or another config's module of that name: import this one
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name != top or here is None:
            raise
        path = os.path.abspath(here)
        spec = importlib.util.spec_from_file_location(top, path)
        if spec is None or spec.loader is None:
            raise
        loaded = importlib.util.module_from_spec(spec)
        _STAMPS[path] = _stamp(path)
        sys.modules[top] = loaded
        try:
            spec.loader.exec_module(loaded)
        except BaseException:
            sys.modules.pop(top, None)
            raise
        return importlib.import_module(module)


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def home_of(obj: Any) -> str | None:
    """The module an object's code lives in (a C method bound to a module: that module)."""
    if inspect.ismodule(obj):
        return obj.__name__
    module = getattr(obj, "__module__", None)
    if isinstance(module, str):
        return module
    owner = getattr(obj, "__self__", None)
    if owner is not None:
        return home_of(owner) if inspect.ismodule(owner) else type(owner).__module__
    return type(obj).__module__


def resolve(ref: str, beside: Any = (), trusted: Any = None) -> Any:
    """'module:attr.sub' -> the object (``beside``, ``trusted``: the module docstring)."""
    module, _, attr = ref.partition(":")
    names, plugins = trusted if trusted is not None else ((), ())
    if trusted is not None and ref not in names and module not in plugins:
        raise Refused(_REFUSED.format(ref))
    obj: Any = import_beside(module, beside)
    for part in attr.split("."):
        obj = getattr(obj, part)
        if (trusted is not None and ref not in names and (inspect.ismodule(obj) or callable(obj))
                and home_of(obj) not in plugins):
            raise Refused(_REFUSED.format(ref))
    return obj


def _argument(value: Any, beside: Any, trusted: Any) -> Any:
    return resolve(value["ref"], beside, trusted) if isinstance(value, dict) else value


def callable_of(value: str | dict, beside: Any = (), trusted: Any = None) -> Any:
    """A config's callable: 'module:attr', or a partial {call, args, kwargs}."""
    if isinstance(value, dict):
        return functools.partial(resolve(value["call"], beside, trusted),
                                 *[_argument(a, beside, trusted) for a in value.get("args", [])],
                                 **{k: _argument(v, beside, trusted) for k, v in value.get("kwargs", {}).items()})
    return resolve(value, beside, trusted)


def config_from_data(data: dict, beside: Any = (), trusted: Any = None) -> Any:
    """The ParserEngineConfig of a (flat) config's data."""
    from vllm.parser.engine.events import EventType
    from vllm.parser.engine.parser_engine_config import ParserEngineConfig, ParserState, Transition

    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(ParserEngineConfig):
        if f.name not in data:
            continue
        value, kind = data[f.name], str(f.type)
        if f.name == "terminals":
            value = {k: v if isinstance(v, str) else tuple(v) for k, v in value.items()}
        elif f.name == "transitions":
            value = {(ParserState[t["from"]], t["on"]): Transition(
                ParserState[t["to"]], tuple(EventType[e] for e in t.get("emit", [])),
                t.get("skip_in_token_id_mode", False)) for t in value}
        elif f.name == "content_events":
            value = {ParserState[s]: EventType[e] for s, e in value.items()}
        elif f.name == "initial_state":
            value = ParserState[value]
        elif _callable_field(kind):
            value = callable_of(value, beside, trusted)
        elif (enum := _enum_field(kind)) is not None:
            value = enum[value]
        elif kind.startswith("frozenset"):
            value = frozenset(value)
        elif isinstance(value, dict):
            value = dict(value)
        kwargs[f.name] = value
    return ParserEngineConfig(**kwargs)


def _named(annotation: str) -> list[Any]:
    """The objects an annotation names in vLLM's config module (0.34: ``ToolCallBodyCollection``,
    ``CompleteToolCallValidator``)."""
    from vllm.parser.engine import parser_engine_config as module

    return [getattr(module, n) for n in re.findall(r"[A-Za-z_]\w*", annotation) if hasattr(module, n)]


def _callable_field(annotation: str) -> bool:
    import collections.abc
    import typing

    return "Callable" in annotation or any(typing.get_origin(o) is collections.abc.Callable for o in _named(annotation))


def _enum_field(annotation: str) -> Any:
    import enum

    return next((o for o in _named(annotation) if isinstance(o, type) and issubclass(o, enum.Enum)
                 and o.__name__ != "ParserState"), None)


def class_name(config_name: str) -> str:
    """'my-format' -> 'MyFormatConfigParser'."""
    return ("".join(p.capitalize() for p in re.split(r"[^A-Za-z0-9]+", config_name) if p) or "Config") + "ConfigParser"


def engine_class(config: Any, family: type | None = None, attrs: dict | None = None) -> type:
    """The ParserEngine subclass that runs ``config``, with vLLM's reasoning and tool adapters
    made for it (``make_adapters``). ``family``: a vLLM family class (``parser_class``) whose
    Python hooks run around the table; whichever way its ``__init__`` builds its own config, an
    injector between it and ``ParserEngine`` in the MRO hands ``ParserEngine`` this one."""
    from vllm.parser.engine.adapters import make_adapters
    from vllm.parser.engine.parser_engine import ParserEngine

    class ConfigInjector(ParserEngine):
        def __init__(self, tokenizer: Any, tools: list | None = None, *, parser_engine_config: Any = None,
                     **kwargs: Any) -> None:
            super().__init__(tokenizer, tools, parser_engine_config=config, **kwargs)

    bases = (ConfigInjector,) if family is None or family is ParserEngine else (family, ConfigInjector)

    def __init__(self: Any, tokenizer: Any, tools: list | None = None, **kwargs: Any) -> None:
        kwargs.pop("parser_engine_config", None)
        bases[0].__init__(self, tokenizer, tools, **kwargs)  # type: ignore[misc]  # the first base's own
        if self.parser_engine_config is not config:
            # The family called ParserEngine.__init__ directly (ling3), past the injector.
            ParserEngine.__init__(self, tokenizer, tools, parser_engine_config=config, **kwargs)

    cls = type(class_name(config.name), bases, {"__init__": __init__, **(attrs or {})})
    make_adapters(cls)
    return cls
