"""vLLM's engine-based parser families -> readable ``parsers/<family>.toml`` files.

A family is a ``ParserEngine`` subclass in ``vllm/parser/*.py`` (every one that
``registered_adapters`` wraps, plus ling3 and minicpmv, which wrap themselves),
named by its module (``qwen3``, ``glm47_moe``). Its config is the one the class
really builds: an instance made with the given tokenizer and the default
``chat_template_kwargs``. A family whose class derives from another family
(seed_oss from qwen3) is written as ``extends`` plus overrides when that is
exact, as vLLM's own seed_oss.py is five attributes over Qwen3Parser.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import importlib
import inspect
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core import vllm_compat as compat
from workbench.core.config.build import TABLE_KEYS, field_kind
from workbench.core.config.toml_text import header, render
from workbench.errors import WorkbenchError, close_matches

if TYPE_CHECKING:
    from typing import Any
    from vllm.tokenizers import TokenizerLike

# Families whose class cannot be built from an arbitrary tokenizer: the factory and
# arguments that give the config, and why.
FALLBACKS = {
    "mistral": ("mistral_config", {"reasoning_encoding": "special_token"},
                "MistralParser needs [TOOL_CALLS] in the vocab and picks reasoning_encoding from "
                "the tokenizer; this is mistral_config(reasoning_encoding='special_token')"),
}

_SKIPPED: dict[str, str] = {}


@cache
def families() -> dict[str, type]:
    """{family name: ParserEngine subclass} for every engine family in the installed vLLM."""
    import pkgutil

    import vllm.parser
    import vllm.parser.engine.registered_adapters as registered
    from vllm.parser.engine.parser_engine import ParserEngine

    found: dict[str, type] = {}

    def add(cls: Any) -> None:
        if isinstance(cls, type) and issubclass(cls, ParserEngine) and cls is not ParserEngine:
            found.setdefault(cls.__module__.rsplit(".", 1)[-1], cls)

    for obj in vars(registered).values():
        add(obj)
    for info in pkgutil.iter_modules(vllm.parser.__path__):
        if info.ispkg:
            continue
        try:
            module = importlib.import_module(f"vllm.parser.{info.name}")
        except Exception as e:  # an optional dependency missing (cohere_command): not a family
            _SKIPPED[info.name] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
            continue
        for obj in vars(module).values():
            if getattr(obj, "__module__", None) == module.__name__:
                add(obj)
    return dict(sorted(found.items()))


def skipped_modules() -> dict[str, str]:
    families()
    return dict(_SKIPPED)


def alias(name: str) -> str | None:
    """The family behind a registered tool/reasoning parser name (glm47 -> glm47_moe), if any."""
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    by_class = {cls: fam for fam, cls in families().items()}
    for get in (ToolParserManager.get_tool_parser, ReasoningParserManager.get_reasoning_parser):
        try:
            cls = get(name)
        except Exception:  # not registered under this manager, or its module fails to import
            continue
        engine = compat.adapter_engine_cls(cls)
        if engine in by_class:
            return by_class[engine]
    return None


def aliases() -> dict[str, str]:
    """Every registered parser name that is an engine family's adapter -> family name."""
    from workbench.core.parsers import registered_names

    names = registered_names()
    return {n: fam for n in sorted({*names["tool"], *names["reasoning"]}) if (fam := alias(n))}


def family(name: str) -> tuple[str, type]:
    fams = families()
    if name in fams:
        return name, fams[name]
    found = alias(name)
    if found:
        return found, fams[found]
    raise WorkbenchError(f"unknown parser family {name!r}{close_matches(name, fams)}")


def family_config(name: str, tokenizer: TokenizerLike,
                  chat_template_kwargs: dict | None = None) -> tuple[Any, str | None]:
    """(config, note): the ParserEngineConfig the family's class builds."""
    name, cls = family(name)
    try:
        parser = cls(tokenizer, None, chat_template_kwargs=dict(chat_template_kwargs or {}))
        return parser.parser_engine_config, None
    except Exception as e:
        if name not in FALLBACKS:
            raise WorkbenchError(f"{name}: {cls.__name__} cannot be built with this tokenizer: "
                                 f"{type(e).__name__}: {str(e).splitlines()[0]}") from None
    factory, kwargs, note = FALLBACKS[name]
    return getattr(inspect.getmodule(cls), factory)(**kwargs), note


def config_data(config: Any, parser_class: type | None = None) -> dict:
    """ParserEngineConfig -> the TOML-ready dict config_io reads back."""
    hints = [inspect.getmodule(c) for c in (parser_class.__mro__ if parser_class else ())]
    data: dict = {"name": config.name}
    if parser_class is not None:
        data["parser_class"] = f"{parser_class.__module__}:{parser_class.__qualname__}"
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if f.name == "name" or value is None:
            continue
        if f.name == "terminals":
            value = {k: v if isinstance(v, str) else list(v) for k, v in value.items()}
        elif f.name == "transitions":
            value = [{"from": s.name, "on": on, "to": t.next_state.name, "emit": [e.name for e in t.events],
                      **({"skip_in_token_id_mode": True} if t.skip_in_token_id_mode else {})}
                     for (s, on), t in value.items()]
        elif f.name == "content_events":
            value = {s.name: e.name for s, e in value.items()}
        elif f.name == "initial_state":
            value = value.name
        elif field_kind(str(f.type))[0] == "callable":
            value = callable_spec(value, [m for m in hints if m])
        elif isinstance(value, enum.Enum):
            value = value.name
        elif isinstance(value, frozenset):
            value = sorted(value)
        elif isinstance(value, dict):
            value = dict(value)
        data[f.name] = value
    return data


def callable_spec(obj: Any, hints: list) -> str | dict:
    if isinstance(obj, functools.partial):
        spec: dict = {"call": callable_spec(obj.func, hints)}
        if obj.args:
            spec["args"] = [_arg(a, hints) for a in obj.args]
        if obj.keywords:
            spec["kwargs"] = {k: _arg(v, hints) for k, v in obj.keywords.items()}
        return spec
    return ref_name(obj, hints)


def _arg(value: Any, hints: list) -> Any:
    return value if isinstance(value, (str, int, float, bool)) else {"ref": ref_name(value, hints)}


def _loaded(module: str, qual: str) -> Any:
    """``module:qual`` in the modules already imported (an author's converter loaded from beside
    its config is named as the config named it), or None."""
    import sys

    obj: Any = sys.modules.get(module)
    for part in qual.split("."):
        obj = getattr(obj, part, None)
    return obj


def ref_name(obj: Any, hints: list) -> str:
    """'module:attr' that resolves to exactly ``obj``."""
    module, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if module and qual and "<" not in qual:
        ref = f"{module}:{qual}"
        if _loaded(module, qual) is obj:  # already imported: naming it runs nothing
            return ref
    for m in hints:
        for attr, value in vars(m).items():
            if value is obj:
                return f"{m.__name__}:{attr}"
    raise WorkbenchError(f"cannot name {obj!r} as 'module:attr'")


def overrides(child: dict, base: dict) -> dict | None:
    """The keys that turn ``base`` into ``child`` under extends, or None if not expressible."""
    out: dict = {}
    if any(k not in child for k in base):
        return None
    for key, value in child.items():
        old = base.get(key)
        if key in TABLE_KEYS and isinstance(old, dict):
            if any(k not in value for k in old):
                return None
            if key == "terminals" and list({**old, **value}) != list(value):
                return None  # a different terminal order is not an override
            changed = {k: v for k, v in value.items() if old.get(k) != v}
            if changed:
                out[key] = changed
        elif key == "transitions" and isinstance(old, list):
            before = {(t["from"], t["on"]): t for t in old}
            if not set(before) <= {(t["from"], t["on"]) for t in value}:
                return None
            moved = [t for t in value if before.get((t["from"], t["on"])) != t]
            if moved:
                out[key] = moved
        elif value != old:
            out[key] = value
    return out


def export(name: str, tokenizer: TokenizerLike, *, flat: bool = False, chat_template_kwargs: dict | None = None) -> str:
    """The TOML text for one family (``extends`` its base family unless ``flat``)."""
    name, cls = family(name)
    config, note = family_config(name, tokenizer, chat_template_kwargs)
    data = config_data(config, cls)
    base = next((b for b in cls.__mro__[1:] if b in families().values()), None)
    if base is not None and not flat:
        base_name = base.__module__.rsplit(".", 1)[-1]
        base_config, _ = family_config(base_name, tokenizer, chat_template_kwargs)
        diff = overrides(data, config_data(base_config, base))
        if diff is not None:
            return render({"extends": base_name, "name": data["name"], **diff},
                          header(name, cls, note, base_name))
    return render(data, header(name, cls, note, None))


def export_all(folder: str | Path, tokenizer: TokenizerLike, chat_template_kwargs: dict | None = None,
               force: bool = False) -> list[Path]:
    """Every family to ``folder/<family>.toml``; an existing file is refused (before any is
    written) unless ``force``."""
    from workbench.core import outputs
    from workbench.core.names import path_name

    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise WorkbenchError(f"cannot write {out}: Not a directory")
    paths = {name: out / f"{path_name(name, 'vLLM parser engine family')}.toml" for name in families()}
    outputs.refuse_existing(paths.values(), force)
    texts = {name: export(name, tokenizer, chat_template_kwargs=chat_template_kwargs) for name in paths}
    return [outputs.write_text(paths[name], texts[name], force, within=out, mkdir=True) for name in paths]
