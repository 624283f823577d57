"""Build a ``ParserEngineConfig`` from a config file's (merged) TOML data.

Every field is checked against vLLM's own enums and dataclass fields; a problem
is reported as ``(field path, message)`` and building goes on, so one pass lists
them all. ``config_io`` turns the paths into file lines.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING

from workbench.core.trust import DEFAULT, CallablePolicy, UntrustedCallable
from workbench.errors import close_matches

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from enum import Enum
    from typing import Any

EXTRA_KEYS = ("extends", "parser_class")
TABLE_KEYS = ("terminals", "token_id_terminals", "content_events")
TRANSITION_KEYS = ("from", "on", "to", "emit", "skip_in_token_id_mode")


def field_kind(annotation: str) -> tuple[str | None, Any]:
    """("enum", the Enum class) / ("callable", None) / (None, None) for a ParserEngineConfig
    field's annotation, read against the running vLLM's config module (0.34's
    ``ToolCallBodyCollection | None``, its ``CompleteToolCallValidator`` alias of a Callable)."""
    import collections.abc
    import enum
    import re
    import typing

    from vllm.parser.engine import parser_engine_config as module

    for name in re.findall(r"[A-Za-z_]\w*", annotation):
        obj = getattr(module, name, None)
        if isinstance(obj, type) and issubclass(obj, enum.Enum) and name != "ParserState":
            return "enum", obj
        if name == "Callable" or typing.get_origin(obj) is collections.abc.Callable:
            return "callable", None
    return None, None


def resolve_ref(spec: str, policy: CallablePolicy = DEFAULT, beside: Sequence[str] = ()) -> Any:
    """'module:attr.sub' -> the object; raises ValueError with a one-line reason
    (``UntrustedCallable`` when ``policy`` does not trust where it lives). A module no installed
    one answers is looked for in ``beside`` (the config's folder), then the policy's plugin folders."""
    from workbench.core.config.plain import import_beside

    module, sep, attr = spec.partition(":") if isinstance(spec, str) else ("", "", "")
    if not sep or not module or not attr:
        raise ValueError(f"expected 'module:attr', got {spec!r}")
    policy.check_module(spec, module)
    try:
        obj = import_beside(module, [*beside, *policy.beside])
    except Exception as e:  # a module that fails to import is a config problem, not a crash
        raise ValueError(f"cannot import module {module!r}: {type(e).__name__}: {e}") from None
    for part in attr.split("."):
        if part.startswith("__") or not hasattr(obj, part):
            raise ValueError(f"{module!r} has no attribute {attr!r}"
                             f"{close_matches(part, [n for n in dir(obj) if not n.startswith('__')])}")
        obj = getattr(obj, part)
        policy.check_object(spec, obj)
    return obj


class Builder:
    """Merged TOML data -> ParserEngineConfig; each problem goes to ``report(path, message)``."""

    def __init__(self, report: Callable[[str, str], None], policy: CallablePolicy = DEFAULT,
                 note: Callable[[str], None] | None = None, beside: Sequence[str] = ()) -> None:
        from vllm.parser.engine.events import EventType
        from vllm.parser.engine.parser_engine_config import ParserState

        self.report = report  # (path, message) -> None
        self.note = note  # (message) -> None: a field read in this vLLM's spelling (config/spelling.py)
        self.policy = policy
        self.beside = tuple(beside)  # the config's folder: its converter module may live there
        self.count = 0
        self.states, self.events = ParserState, EventType

    def problem(self, path: str, message: str) -> None:
        self.count += 1
        self.report(path, message)

    def name(self, path: str, value: Any, enum: type[Enum], what: str) -> Any:
        if isinstance(value, str) and value in enum.__members__:
            return enum[value]
        if not isinstance(value, str):
            self.problem(path, f"expected a {what} name, got {value!r}")
        else:
            self.problem(path, f"unknown {what} {value!r}{close_matches(value, enum.__members__)}")
        return None

    def typed(self, path: str, value: Any, kind: type, what: str) -> Any:
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            return value
        self.problem(path, f"expected {what}, got {value!r}")
        return None

    def sizes(self, data: dict) -> None:
        """The limits of ``core/limits.py``, before vLLM builds anything from the data."""
        from workbench.core import limits

        spellings = []
        for table in ("terminals", "token_id_terminals"):
            for name, value in (data.get(table) or {}).items() if isinstance(data.get(table), dict) else ():
                for s in [value] if isinstance(value, str) else value if isinstance(value, list) else []:
                    if isinstance(s, str) and len(s) > limits.MAX_TERMINAL_CHARS:
                        self.problem(f"{table}.{name}", f"{len(s):,} characters, over the "
                                     f"{limits.MAX_TERMINAL_CHARS} a terminal may have")
                    spellings.append(s)
        if len(spellings) > limits.MAX_TERMINALS:
            self.problem("terminals", f"{len(spellings):,} terminals, over the {limits.MAX_TERMINALS} a config "
                         f"may have")
        for key, value in data.items():
            most = limits.MAX_TRANSITIONS if key == "transitions" else limits.MAX_CONFIG_ITEMS
            if isinstance(value, (list, dict)) and key not in ("terminals", "token_id_terminals") and len(value) > most:
                self.problem(key, f"{len(value):,} entries, over the {most:,} a config may have")

    def build(self, data: dict) -> tuple[Any, type | None]:
        from vllm.parser.engine.parser_engine_config import ParserEngineConfig

        from workbench.core.config.spelling import translate

        fields = {f.name: str(f.type) for f in dataclasses.fields(ParserEngineConfig)}
        data = translate(data, fields, self.problem, self.note)
        for key in data:
            if key not in fields and key not in EXTRA_KEYS:
                self.problem(key, f"unknown key{close_matches(key, [*fields, *EXTRA_KEYS])}")
        if "name" not in data:
            self.problem("name", "missing (every config needs a name)")
        self.sizes(data)
        if self.count:
            return None, None
        kwargs = {}
        for key, ann in fields.items():
            if key in data:
                kwargs[key] = self.field(key, ann, data[key])
        self.check_terminals(data)
        parser_class = self.parser_class(data.get("parser_class"))
        if self.count:
            return None, parser_class
        try:
            config = ParserEngineConfig(**kwargs)
        except (TypeError, ValueError) as e:
            self.problem("", f"vLLM rejected the config: {e}")
            return None, parser_class
        from vllm.parser.engine.streaming_parser_engine import StreamingParserEngine

        try:
            StreamingParserEngine(config, None)
        except Exception as e:  # compile errors of the lexer/table are the file's problem
            self.problem("terminals", f"vLLM's engine cannot compile it: {type(e).__name__}: {e}")
        return config, parser_class

    def field(self, key: str, ann: str, value: Any) -> Any:
        if key == "terminals":
            return self.terminals(value)
        if key == "token_id_terminals":
            table = self.typed(key, value, dict, "a table of terminal name = special token") or {}
            return {k: v for k, v in table.items() if self.marker(f"{key}.{k}", v)}
        if key == "transitions":
            return self.transitions(value)
        if key == "content_events":
            table = self.typed(key, value, dict, "a table of STATE = EVENT") or {}
            return {s: e for k, v in table.items()
                    if (s := self.name(f"{key}.{k}", k, self.states, "state")) is not None
                    and (e := self.name(f"{key}.{k}", v, self.events, "event")) is not None}
        if key == "initial_state":
            return self.name(key, value, self.states, "state")
        kind, enum = field_kind(ann)
        if kind == "callable":
            return self.callable(key, value)
        if kind == "enum":
            return self.name(key, value, enum, key.replace("_", " "))
        if ann.startswith("frozenset"):
            items = self.typed(key, value, list, "an array of strings") or []
            return frozenset(v for i, v in enumerate(items) if self.marker(f"{key}[{i}]", v,
                                                                            single=key == "arg_structural_chars"))
        if ann.startswith("bool"):
            return self.typed(key, value, bool, "true or false")
        if ann == "str":
            return self.marker(key, value)
        self.problem(key, f"field type {ann} has no TOML form in the workbench yet")
        return None

    def marker(self, path: str, value: Any, single: bool = False) -> str | None:
        """A string the engine matches or shows (a token, a character, the name): an empty
        one matches everywhere, a long one costs as a terminal does."""
        from workbench.core import limits

        if not isinstance(value, str) or not value or (single and len(value) != 1):
            self.problem(path, f"expected {'one character' if single else 'a non-empty string'}, got {value!r:.60}")
            return None
        if len(value) > limits.MAX_TERMINAL_CHARS:
            self.problem(path, f"{len(value):,} characters, over the {limits.MAX_TERMINAL_CHARS} it may have")
            return None
        return value

    def terminals(self, value: Any) -> dict:
        out = {}
        for name, spelling in (self.typed("terminals", value, dict, "a table of NAME = literal") or {}).items():
            path = f"terminals.{name}"
            spellings = [spelling] if isinstance(spelling, str) else spelling
            if not isinstance(spellings, list) or not spellings or not all(isinstance(s, str) and s
                                                                           for s in spellings):
                self.problem(path, f"expected a non-empty string or array of them, got {spelling!r}")
                continue
            out[name] = spelling if isinstance(spelling, str) else tuple(spelling)
        return out

    def transitions(self, value: Any) -> dict:
        from vllm.parser.engine.parser_engine_config import Transition

        out = {}
        for i, entry in enumerate(self.typed("transitions", value, list, "an array of tables") or []):
            path = f"transitions[{i}]"
            if not isinstance(entry, dict):
                self.problem(path, f"expected {{ from, on, to, emit }}, got {entry!r}")
                continue
            for k in entry:
                if k not in TRANSITION_KEYS:
                    self.problem(f"{path}.{k}", f"unknown key{close_matches(k, TRANSITION_KEYS)}")
            missing = [k for k in ("from", "on", "to") if k not in entry]
            if missing:
                self.problem(path, f"missing {', '.join(missing)}")
                continue
            src = self.name(f"{path}.from", entry["from"], self.states, "state")
            dst = self.name(f"{path}.to", entry["to"], self.states, "state")
            on = self.typed(f"{path}.on", entry["on"], str, "a terminal name")
            emit = self.typed(f"{path}.emit", entry.get("emit", []), list, "an array of event names") or []
            events = [self.name(f"{path}.emit[{j}]", e, self.events, "event") for j, e in enumerate(emit)]
            skip = self.typed(f"{path}.skip_in_token_id_mode", entry.get("skip_in_token_id_mode", False),
                              bool, "true or false")
            if None not in (src, dst, on, skip) and None not in events:
                out[(src, on)] = Transition(dst, tuple(events), skip)
        return out

    def check_terminals(self, data: dict) -> None:
        declared = [*(data.get("terminals") or {}), *(data.get("token_id_terminals") or {})]
        for i, entry in enumerate(data.get("transitions") or []):
            on = entry.get("on") if isinstance(entry, dict) else None
            if isinstance(on, str) and on not in declared:
                self.problem(f"transitions[{i}].on", f"transition from an unknown terminal {on!r}: declare it "
                             f"under [terminals] or [token_id_terminals]{close_matches(on, declared)}")

    def callable(self, key: str, value: Any) -> Callable[..., Any] | None:
        try:
            if isinstance(value, dict):
                unknown = set(value) - {"call", "args", "kwargs"}
                if (unknown or "call" not in value or not isinstance(value.get("args", []), list)
                        or not isinstance(value.get("kwargs", {}), dict)):
                    raise ValueError("expected { call = 'module:attr', args = [...], kwargs = {...} }")
                fn = resolve_ref(value["call"], self.policy, self.beside)
                args = [_literal_or_ref(a, self.policy, self.beside) for a in value.get("args", [])]
                kwargs = {k: _literal_or_ref(v, self.policy, self.beside) for k, v in value.get("kwargs", {}).items()}
                return functools.partial(fn, *args, **kwargs)
            obj = resolve_ref(value, self.policy, self.beside)
        except ValueError as e:
            self.problem(key, str(e) if isinstance(e, UntrustedCallable) else f"unresolvable callable: {e}")
            return None
        if not callable(obj):
            self.problem(key, f"{value!r} is not callable")
            return None
        return obj

    def parser_class(self, value: Any) -> type | None:
        if value is None:
            return None
        from vllm.parser.engine.parser_engine import ParserEngine

        try:
            cls = resolve_ref(value, self.policy, self.beside)
        except ValueError as e:
            self.problem("parser_class", str(e) if isinstance(e, UntrustedCallable)
                         else f"unresolvable callable: {e}")
            return None
        if not (isinstance(cls, type) and issubclass(cls, ParserEngine)):
            self.problem("parser_class", f"{value!r} is not a vLLM ParserEngine subclass")
            return None
        return cls


def _literal_or_ref(value: Any, policy: CallablePolicy, beside: Sequence[str] = ()) -> Any:
    if isinstance(value, dict):
        if set(value) != {"ref"}:
            raise ValueError(f"expected a literal or {{ ref = 'module:attr' }}, got {value!r}")
        return resolve_ref(value["ref"], policy, beside)
    return value
