"""Hand-formatted TOML for parser configs: the header comment, then the fields.

The file opens with the family's wire format (the literal block of its vLLM
module docstring, as qwen3.py shows it), then scalar fields each with a one-line
"why", then one transition per line, then the tables.
"""

from __future__ import annotations

import inspect
import json
import re
from typing import TYPE_CHECKING

from workbench.core.config.build import TABLE_KEYS
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from typing import Any

NOTES = {
    "parser_class": "vLLM's family class: its Python hooks run around this table",
    "initial_state": "state before the first token",
    "wait_for_reasoning": "tools only after reasoning ended (unset: initial_state == REASONING)",
    "arg_converter": "raw argument text -> JSON; called with partial=True while streaming",
    "stream_arg_deltas": "stream arguments as they arrive, not once at the end",
    "tool_args_json": "arguments are JSON: braces are tracked to find their end",
    "tool_call_body_array": "the tool body is one JSON array of {name, arguments} (vLLM before 0.34)",
    "tool_call_body_collection": "several JSON calls in one tool body: JSON_ARRAY, or SEMICOLON_SEQUENCE ({..}; {..})",
    "complete_tool_call_validator": "the whole output -> a call (true), malformed: back to content (false), or none",
    "arg_value_extender": "streams an open argument value's text without converting the whole arguments again",
    "arg_structural_chars": "characters after which a partial argument is not streamed yet",
    "preserve_tokens": "special tokens kept in the text though not terminals",
    "turn_boundary_tokens": "prompt tokens that open a turn; reasoning end is looked for after the last",
    "strip_trailing_reasoning_whitespace": "hold back trailing whitespace of reasoning",
    "drop_whitespace_only_content_before_tools": "drop content that is only whitespace when tools follow",
    "strip_content_whitespace_with_tools": ".strip() content when tool calls are present",
    "validate_tool_names": "reject tool calls whose name is not in the request's tools",
}

# Wire formats for family modules whose docstring has no literal block.
SKETCHES = {
    "plamo3": ["<|plamo:begin_think:plamo|>...reasoning...<|plamo:end_think:plamo|>",
               "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>",
               "<|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|>",
               "<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>"
               '{"city": "Paris"}<|plamo:end_tool_arguments:plamo|>',
               "<|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>"],
    "mistral": ["[THINK]...reasoning...[/THINK]", '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}'],
}


def header(name: str, cls: type, note: str | None, base: str | None) -> list[str]:
    from workbench.core.vllm_version import vllm_version

    source = f"vllm/parser/{cls.__module__.rsplit('.', 1)[-1]}.py"
    lines = [f"{name}: vLLM's {cls.__name__} ({source}, vLLM {vllm_version()}) as data.",
             f"Written by `workbench export-config {name}`; run it with `--config parsers/{name}.toml`."]
    if base:
        lines.append(f"The {base} format with the overrides below (extends = \"{base}\").")
    if note:
        lines.append(f"Note: {note}.")
    lines += ["", "Wire format:", ""] + ["    " + ln for ln in wire_format(name, cls)]
    lines += ["", "Each transition: in state `from`, terminal `on` moves to `to` and emits `emit`.",
              "Text between terminals becomes the [content_events] event of the current state;",
              "in a state not listed there it is dropped."]
    return lines


def wire_format(name: str, cls: type) -> list[str]:
    for c in cls.__mro__:
        block = _literal_blocks(inspect.getmodule(c).__doc__ or "")
        if block:
            return block
        stem = c.__module__.rsplit(".", 1)[-1]
        if stem in SKETCHES:
            return SKETCHES[stem]
    return ["(no wire format in the module docstring)"]


def _literal_blocks(doc: str) -> list[str]:
    """The indented blocks after '::' lines of a reST docstring."""
    out: list[str] = []
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        if not line.rstrip().endswith("::"):
            continue
        block = []
        for nxt in lines[i + 1:]:
            if nxt.strip() and not nxt.startswith((" ", "\t")):
                break
            block.append(nxt)
        while block and not block[-1].strip():
            block.pop()
        while block and not block[0].strip():
            block.pop(0)
        indent = min((len(b) - len(b.lstrip()) for b in block if b.strip()), default=0)
        if out and block:
            out.append("")
        out += [b[indent:].rstrip() for b in block]
    return out


def render(data: dict, head: list[str]) -> str:
    """Hand-formatted TOML: scalars, then one transition per line, then the tables."""
    out = [("# " + ln).rstrip() for ln in head] + [""]
    tables = [k for k in TABLE_KEYS if k in data]
    for key, value in data.items():
        if key in tables or key == "transitions":
            continue
        note = NOTES.get(key)
        out.append(f"{_key(key)} = {_value(value)}" + (f"  # {note}" if note else ""))
    if "transitions" in data:
        out += ["", "transitions = ["] + _transition_lines(data["transitions"]) + ["]"]
    for key in tables:
        out += ["", f"[{key}]"] + [f"{_key(k)} = {_value(v)}" for k, v in data[key].items()]
    return "\n".join(out) + "\n"


def _transition_lines(entries: list[dict]) -> list[str]:
    cols = ["from", "on", "to"]
    width = {c: max((len(_value(t[c])) for t in entries), default=0) + 1 for c in cols}
    lines = []
    for t in entries:
        parts = [f"{c} = {(_value(t[c]) + ',').ljust(width[c])}" for c in cols]
        rest = f"emit = {_value(t.get('emit', []))}"
        if t.get("skip_in_token_id_mode"):
            rest += ", skip_in_token_id_mode = true"
        lines.append(f"  {{ {' '.join(parts)} {rest} }},")
    return lines


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _string(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise WorkbenchError(f"no TOML form for {value!r}")


def _string(s: str) -> str:
    # JSON string escapes are valid TOML basic-string escapes; DEL must be escaped too.
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")
