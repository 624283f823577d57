"""Where in the parser a cause lives: the file, class and method, read from the class
vLLM composed (``ParserManager.get_parser``), never from a table.

A ``DelegatingParser`` runs a reasoning parser then a tool parser: the method is the
sub-parser's own (``extract_tool_calls_streaming`` ...), defined where its MRO says.
An engine-based sub-parser is an adapter over a declarative ``ParserEngine`` family
class (``Qwen3Parser`` in vllm/parser/qwen3.py), whose streaming path is
``ParserEngine.parse_delta``. A composite class with its own ``parse_delta`` /
``parse`` (HarmonyParser, KimiK3...) is named itself. Where an override returns what its
``super()`` call returned (DeepSeekR1ReasoningParser over BaseThinkingReasoningParser), the
method named is the one that made the value, traced on the step at fault (``producer``).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core import vllm_compat as compat

if TYPE_CHECKING:
    from collections.abc import Callable

METHODS = {("tool", "streaming"): "extract_tool_calls_streaming", ("tool", "nonstreaming"): "extract_tool_calls",
           ("reasoning", "streaming"): "extract_reasoning_streaming",
           ("reasoning", "nonstreaming"): "extract_reasoning",
           (None, "streaming"): "parse_delta", (None, "nonstreaming"): "parse"}


def _owner(cls: type, method: str) -> type | None:
    return next((k for k in cls.__mro__ if method in k.__dict__), None)


def source_path(cls: type) -> str:
    """The class's file, relative to the package root (vllm/tool_parsers/hermes_tool_parser.py)."""
    try:
        path = Path(inspect.getsourcefile(cls) or "")
    except TypeError:
        return cls.__module__
    parts = path.parts
    top = cls.__module__.split(".")[0]
    if top in parts:
        i = len(parts) - 1 - parts[::-1].index(top)
        return "/".join(parts[i:])
    return str(path)


def _line(cls: type, method: str) -> int | None:
    try:
        return inspect.getsourcelines(cls.__dict__[method])[1]
    except (OSError, TypeError, KeyError):
        return None


def _entry(cls: type, method: str) -> dict:
    owner = _owner(cls, method) or cls
    return {"file": source_path(owner), "class": owner.__name__, "method": method,
            "line": _line(owner, method), "vllm": owner.__module__.startswith("vllm."),
            "module": owner.__module__}


def producer(cls: type, method: str, run: Callable[[Callable], None]) -> type | None:
    """The class in ``cls``'s MRO whose own ``method`` made the value the outermost call
    returned, or None when only one class defines it or nothing was traced. ``run(hook)``
    runs the step at fault with ``hook`` as the profiler: an override that returns the very
    object its base's call returned passes the blame down the MRO."""
    codes = {f.__code__: k for k in cls.__mro__ if (f := k.__dict__.get(method)) is not None
             and hasattr(f, "__code__")}
    if len(codes) < 2:
        return None
    returns: list[tuple[type, object]] = []  # inner calls return before the call around them

    def hook(frame: object, event: str, arg: object) -> None:
        if event == "return" and frame.f_code in codes:  # type: ignore[attr-defined]
            returns.append((codes[frame.f_code], arg))  # type: ignore[attr-defined]
    run(hook)
    if not returns:
        return None
    at, value = returns[-1]
    if value is None:  # every None is the same object: no way to tell who made it
        return at
    for k, v in reversed(returns[:-1]):
        if v is value and k is not at and issubclass(at, k):
            at = k
    return at


def return_line(cls: type, method: str, run: Callable[[Callable], None]) -> int | None:
    """The line of ``cls``'s own ``method`` (in its MRO) that returned at the step at fault: in
    an author's parser, the ``return`` that handed vLLM the wrong answer."""
    owner = _owner(cls, method)
    code = getattr(owner.__dict__[method], "__code__", None) if owner is not None else None
    if code is None:
        return None
    lines: list[int] = []

    def hook(frame: object, event: str, arg: object) -> None:
        if event == "return" and frame.f_code is code:  # type: ignore[attr-defined]
            lines.append(frame.f_lineno)  # type: ignore[attr-defined]
    run(hook)
    return lines[-1] if lines else None


def locate(parser_cls: type | None, role: str | None, mode: str,
           run: Callable[[Callable], None] | None = None) -> dict | None:
    """The method that produced the wrong answer: ``role`` tool / reasoning, ``mode``
    streaming / nonstreaming. None without a parser. ``run`` (see ``producer``) runs the
    step at fault, to follow an override down to the base method that made its answer."""
    if parser_cls is None:
        return None
    from vllm.parser.abstract_parser import DelegatingParser

    top = METHODS[(None, mode)]
    owner = _owner(parser_cls, top)
    if owner is not None and owner is not DelegatingParser and not owner.__module__.endswith("parser_manager"):
        return _entry(parser_cls, top) | {"composed": parser_cls.__name__}
    sub = parser_cls.tool_parser_cls if role == "tool" else parser_cls.reasoning_parser_cls
    if sub is None:
        sub = parser_cls.reasoning_parser_cls or parser_cls.tool_parser_cls
        role = "reasoning" if sub is parser_cls.reasoning_parser_cls else "tool"
    if sub is None:
        return None
    out = _entry(sub, METHODS[(role, mode)]) | {"role": role, "registered_as": sub.__name__}
    family = compat.adapter_engine_cls(sub)
    if family is not None:  # a declarative engine: the format is the family class's config
        engine = _entry(family, top)
        out |= {"file": source_path(family), "class": family.__name__, "method": f"{engine['class']}.{top}",
                "line": None, "engine": engine, "adapter": f"{out['class']}.{out['method']}",
                "vllm": family.__module__.startswith("vllm.")}
    elif run is not None:
        made = producer(sub, out["method"], run)
        if made is not None and made.__name__ != out["class"]:
            out |= {k: v for k, v in _entry(made, out["method"]).items() if k != "method"}
            out["called_from"] = f"{_owner(sub, out['method']).__name__}.{out['method']}"
        if not out["vllm"]:  # an author's plugin: the line that returned the answer
            out["returned_at"] = return_line(made or sub, out["method"], run)
    out["parser_class"] = sub.__name__
    return out


def describe(w: dict | None) -> str:
    if w is None:
        return "no parser is configured"
    if "config" in w:  # a parser config's transition and terminal (config_where.py)
        from workbench.diagnosis.config.where import describe as config_describe

        return config_describe(w)
    if not w.get("vllm") and "engine" not in w:  # a plugin's class: the author's own file
        at = f", returned at line {w['returned_at']}" if w.get("returned_at") else ""
        if w.get("wrote_at"):  # diagnosis/wrote.py: the line the value that differs came from
            at += f"; the {w['wrote_field']} value {w['wrote_value'][:40]!r} was written at line {w['wrote_at']}"
        return (f"your code (module {w.get('module')}): {w['file']}:{w['line'] or '?'}, "
                f"{w['class']}.{w['method']}{at}")
    who = "vLLM's own parser" if w.get("vllm") else f"not vLLM's own parser (module {w.get('module')})"
    where = f"{w['file']}, {w['class']}"
    if "engine" in w:
        e = w["engine"]
        return (f"{who}: {where} (a declarative ParserEngine; the path is {e['class']}.{e['method']} in "
                f"{e['file']}{':' + str(e['line']) if e['line'] else ''}, called through {w['adapter']})")
    line = f":{w['line']}" if w.get("line") else ""
    via = f" (its answer, returned through {w['called_from']})" if w.get("called_from") else ""
    return f"{who}: {w['file']}{line}, {w['class']}.{w['method']}{via}"
