"""The client contract, per row: what OpenAI-compatible clients rely on.

The rules themselves are in ``props.contract_problems``. This module finds the
marker strings: the tokenizer's special added tokens, plus every start/end
marker the configured parsers know (``tool_call_start_token``,
``reasoning_end_str``, an engine config's token-id terminals...).
"""

from __future__ import annotations

import re

from workbench.check import props
from workbench.check.compare import final_of, steps_of
from workbench.check.findings import CONTRACT, Finding
from workbench.core.runner import make_parser

_MARKER_ATTR = re.compile(r"(^|_)(start|end|bot)_(token|str|tag)$")
_REASONING_TERMINAL = re.compile(r"THINK|REASON")


def _attr_markers(obj) -> set[str]:
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


def _engine_markers(obj, role: str | None) -> set[str]:
    pe = getattr(obj, "_parser_engine", obj)
    config = getattr(pe, "parser_engine_config", None)
    if config is None:
        return set()
    out = set()
    for name, spelling in config.token_id_terminals.items():
        is_reasoning = bool(_REASONING_TERMINAL.search(name))
        if role is None or (role == "reasoning") == is_reasoning:
            out.add(spelling)
    return out


def parser_markers(session) -> dict[str, list[str]]:
    """role -> the marker strings the configured parser knows for that role."""
    parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                         session.setup.request.chat_template_kwargs)
    if parser is None:
        return {}
    roles: dict[str, set[str]] = {}
    if hasattr(parser, "parser_engine_config"):  # one declarative engine for both roles
        roles["engine"] = _engine_markers(parser, None)
    for role in ("reasoning", "tool"):
        sub = getattr(parser, f"_{role}_parser", None)
        if sub is not None:
            roles[role] = _attr_markers(sub) | _engine_markers(sub, role)
    if session.request.tool_choice == "none":
        roles.pop("tool", None)  # tool markup is content when the request turns tools off
    return {role: sorted(m for m in ms if m.strip() and len(m) > 1) for role, ms in roles.items()}


def special_tokens(tokenizer) -> list[str]:
    decoder = getattr(tokenizer, "added_tokens_decoder", None) or {}
    return sorted(t.content for t in decoder.values() if getattr(t, "special", False))


def markers(session) -> list[str]:
    found = set(special_tokens(session.tokenizer))
    for ms in parser_markers(session).values():
        found.update(ms)
    return sorted(found)


def findings(rows, stream: dict, nonstream: dict | None, markers_: list[str], chunking: str) -> list[Finding]:
    """Contract problems of one stream (and marker leaks in the non-streaming answer)."""
    final = final_of(stream)
    out = []
    for p in props.contract_problems(steps_of(rows), markers_):
        out.append(Finding(CONTRACT, p["field"], p["step"], chunking,
                           props.raw_view(final, p["field"]),
                           props.raw_view(nonstream, p["field"]) if nonstream else None,
                           detail=p["detail"]))
    if nonstream and not nonstream.get("error"):
        for field, marker in props.marker_leaks(nonstream, markers_):
            out.append(Finding(CONTRACT, field, None, "nonstream", final.get(field), nonstream.get(field),
                               detail=f"marker {marker!r} leaked into the non-streaming {field}"))
    return out
