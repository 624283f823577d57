"""The client contract, per row: what OpenAI-compatible clients rely on.

The rules themselves are in ``props.contract_problems``. This module finds the
marker strings: the tokenizer's special added tokens, plus every start/end
marker the configured parsers know (``tool_call_start_token``,
``reasoning_end_str``, an engine config's token-id terminals...), and, for the doctor's
reading of leaked markup (``pattern_markers``), the bracketed literals of the compiled
patterns a legacy parser's module matches with (GigaChat3's ``<|function_call|>`` lives only
in ``REGEX_FUNCTION_CALL``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from workbench.check import props
from workbench.check.compare import final_of, steps_of
from workbench.core import vllm_compat as compat
from workbench.core.messages import CONTRACT, Difference
from workbench.core.runner import make_parser

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any
    from vllm.tokenizers import TokenizerLike
    from workbench.core.rows import Row
    from workbench.core.session import Session

_MARKER_ATTR = re.compile(r"(^|_)(start|end|bot)_(token|str|tag)$")
_REASONING_TERMINAL = re.compile(r"THINK|REASON")
# a <...> run of a pattern's source whose every character is literal (plain or escaped)
_PATTERN_LITERAL = re.compile(r"<(?:\\[^A-Za-z0-9]|[^<>\\()\[\]*+?{}^$|.\s])+>")


def _attr_markers(obj: Any) -> set[str]:
    found = set()
    for name in dir(obj):
        if not _MARKER_ATTR.search(name) or name.startswith("__"):
            continue
        try:
            value = getattr(obj, name)
        except Exception:  # a property that needs state the instance lacks
            continue
        if isinstance(value, str):
            found.add(value)
    return found


def _pattern_markers(obj: Any) -> set[str]:
    """The bracketed literals of the compiled patterns in ``obj``'s class and module."""
    import sys

    module = sys.modules.get(type(obj).__module__)
    values = list(vars(module).values()) if module is not None else []
    values += [v for k in type(obj).__mro__ for v in vars(k).values()]
    found = set()
    for value in values:
        source = getattr(value, "pattern", None)
        if isinstance(source, str) and callable(getattr(value, "finditer", None)):
            found.update(re.sub(r"\\(.)", r"\1", m.group()) for m in _PATTERN_LITERAL.finditer(source))
    return found


def pattern_markers(session: Session) -> list[str]:
    """The bracketed literals of the configured sub-parsers' patterns (not used to pick which
    other parsers to try: a pattern can name another family's marker it also accepts)."""
    parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                         session.setup.request.chat_template_kwargs)
    if parser is None:
        return []
    subs = [sub for sub in compat.sub_parsers(parser).values() if sub is not None]
    return sorted({m for sub in subs for m in _pattern_markers(sub)})


def _engine_markers(obj: Any, role: str | None) -> set[str]:
    pe = obj if compat.is_parser_engine(obj) else compat.adapter_engine(obj)
    config = getattr(pe, "parser_engine_config", None)
    if config is None:
        return set()
    out = set()
    for name, spelling in config.token_id_terminals.items():
        is_reasoning = bool(_REASONING_TERMINAL.search(name))
        if role is None or (role == "reasoning") == is_reasoning:
            out.add(spelling)
    return out


def parser_markers(session: Session) -> dict[str, list[str]]:
    """role -> the marker strings the configured parser knows for that role."""
    parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                         session.setup.request.chat_template_kwargs)
    return instance_markers(parser, session.request.tool_choice)


def instance_markers(parser: object, tool_choice: object = None) -> dict[str, list[str]]:
    """role -> the marker strings a parser instance knows (``tool_choice`` "none": no tool role)."""
    if parser is None:
        return {}
    roles: dict[str, set[str]] = {}
    if compat.is_parser_engine(parser):  # one declarative engine for both roles
        roles["engine"] = _engine_markers(parser, None)
    for role, sub in compat.sub_parsers(parser).items():
        if sub is not None:
            roles[role] = _attr_markers(sub) | _engine_markers(sub, role)
    if tool_choice == "none":
        roles.pop("tool", None)  # tool markup is content when the request turns tools off
    return {role: sorted(m for m in ms if m.strip() and len(m) > 1) for role, ms in roles.items()}


def special_tokens(tokenizer: TokenizerLike) -> list[str]:
    decoder = getattr(tokenizer, "added_tokens_decoder", None) or {}
    return sorted(t.content for t in decoder.values() if getattr(t, "special", False))


def markers(session: Session) -> list[str]:
    found = set(special_tokens(session.tokenizer))
    for ms in parser_markers(session).values():
        found.update(ms)
    return sorted(found)


def format_literals(session: Session, markers_: list[str]) -> list[str]:
    """Every literal of the format: ``markers_`` plus each terminal spelling of the parser's
    declarative engines (`<function=`, `>`...), which the client never sees either."""
    parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                         session.setup.request.chat_template_kwargs)
    found = set(markers_)
    subs = [parser] if compat.is_parser_engine(parser) else list(compat.sub_parsers(parser).values())
    for sub in subs:
        pe = sub if compat.is_parser_engine(sub) else compat.adapter_engine(sub) if sub is not None else None
        config = getattr(pe, "parser_engine_config", None)
        if config is not None:
            found |= set(config.terminal_literals)
    return sorted(found)


def findings(rows: Sequence[Row] | None, stream, nonstream, markers_: list[str], chunking: str,
             problems: list[dict] | None = None) -> list[Difference]:
    """Contract problems of one stream (and marker leaks in the non-streaming answer);
    ``stream`` and ``nonstream`` are Finals (``nonstream`` may be None); ``problems``:
    the stream's ``props.contract_problems`` when its rows were not kept."""
    final = final_of(stream).to_dict()
    reference = final_of(nonstream).to_dict() if nonstream is not None else None
    out = []
    if problems is None:
        problems = props.contract_problems(steps_of(rows or []), markers_)
    for p in problems:
        out.append(Difference(CONTRACT, p["field"], p["step"], props.raw_view(final, p["field"]),
                              props.raw_view(reference, p["field"]) if reference else None,
                              chunking=chunking, detail=p["detail"]))
    if reference and not reference.get("error"):
        for field, marker in props.marker_leaks(reference, markers_):
            out.append(Difference(CONTRACT, field, None, final.get(field), reference.get(field),
                                  chunking="nonstream",
                                  detail=f"marker {marker!r} leaked into the non-streaming {field}"))
    return out
