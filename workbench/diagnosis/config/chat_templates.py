"""Which shipped chat template teaches the markup the text is written in.

A model served with another model's chat template (a MiniMax-M2 served with M1's) is
taught another tool-call markup in its prompt; what it writes then matches neither the
template nor, often, the parser. Each template's markup is measured, never listed by
hand: the template renders one assistant turn with a call to one of the report's tools
and the same turn with plain content, and the markup-like strings only the call's
rendering holds are what it teaches (its first one opens a call). The templates shipped
here are the built-in tokenizers' own (core/tokenizers); the run's own is the
``--chat-template FILE`` (rendered boxed, as every template from data) or its tokenizer's.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.diagnosis.literals import looks_like_markup
from workbench.diagnosis.report import PROBLEM, Diagnosis

if TYPE_CHECKING:
    from workbench.core.session import Session

# an angle-bracketed tag (up to its first space: `<｜DSML｜invoke name="...">`) or a bracketed word
_MARKUP = re.compile(r"<[^<>\n]{1,80}>|\[[A-Z][A-Z_]{2,40}\]")
_USER = {"role": "user", "content": "What is the weather in Paris?"}
_PLAIN = "It is sunny."
_ARGUMENTS = '{"city": "Paris"}'
_ANY_TOOL = {"type": "function", "function": {"name": "any_tool", "parameters": {"type": "object"}}}
SHIPPED_FILES = Path(__file__).resolve().parents[2] / "core" / "tokenizers" / "templates"


@dataclass(frozen=True)
class Taught:
    name: str  # the built-in tokenizer whose template it is, or "the served template"
    markers: tuple[str, ...]  # in the order the call's rendering writes them; the first opens a call

    def in_text(self, text: str) -> int:
        """How many of its markers the text holds; 0 unless it holds the opening one."""
        return sum(m in text for m in self.markers) if self.markers and self.markers[0] in text else 0


def markers_of(rendered_call: str, rendered_plain: str) -> tuple[str, ...]:
    """The markup-like strings the call's rendering adds to the plain turn's, in order."""
    start = 0
    while start < min(len(rendered_call), len(rendered_plain)) and rendered_call[start] == rendered_plain[start]:
        start += 1
    end = 0
    while end < min(len(rendered_call), len(rendered_plain)) - start and \
            rendered_call[-1 - end] == rendered_plain[-1 - end]:
        end += 1
    middle = rendered_call[start:len(rendered_call) - end]
    found: list[str] = []
    for m in _MARKUP.finditer(middle):
        piece = m.group(0).split()[0]
        if looks_like_markup(piece) and piece not in found:
            found.append(piece)
    return tuple(found)


def _turns(tool: str) -> tuple[list, list]:
    call = {"id": "call_0", "type": "function", "function": {"name": tool, "arguments": _ARGUMENTS}}
    return ([_USER, {"role": "assistant", "content": "", "tool_calls": [call]}],
            [_USER, {"role": "assistant", "content": _PLAIN}])


_TAUGHT: dict[tuple, Taught | None] = {}  # (tokenizer, template, tools as JSON): what it teaches


def _cached(compute):
    def cached(name: str, template: str | None, tools: list) -> Taught | None:
        key = (compute.__name__, name, template, json.dumps(tools, sort_keys=True))
        if key not in _TAUGHT:
            if len(_TAUGHT) > 64:  # a notebook's kernel asks with many tools over a day
                _TAUGHT.clear()
            _TAUGHT[key] = compute(name, template, tools)
        return _TAUGHT[key]

    return functools.wraps(compute)(cached)


@_cached
def _shipped_taught(name: str, template: str | None, tools: list) -> Taught | None:
    """A built-in tokenizer's own template, pinned by hash: rendered here, as vLLM renders it."""
    from workbench.core.tokenizers import load_tokenizer

    tok = load_tokenizer(name)
    if not isinstance(getattr(tok, "chat_template", None), str):
        return None
    with_call, plain = _turns(tools[0]["function"]["name"])
    try:
        a, b = (tok.apply_chat_template(msgs, tools=tools, tokenize=False, add_generation_prompt=False)
                for msgs in (with_call, plain))
    except Exception:  # noqa: BLE001  (a template that cannot render these turns teaches nothing measurable)
        return None
    return Taught(name, markers_of(a, b))


def shipped(tools: list) -> list[Taught]:
    """Every built-in tokenizer's template that teaches a tool-call markup, by name."""
    usable = _usable(tools)
    found = [_shipped_taught(name, None, usable) for name in _with_templates()]
    return [t for t in found if t is not None and t.markers]


@functools.lru_cache(maxsize=1)
def _with_templates() -> tuple[str, ...]:
    """The built-in tokenizers whose folder ships a chat template (only those are loaded)."""
    from workbench.core import door, limits
    from workbench.core.tokenizers import list_tokenizers

    names = []
    for info in list_tokenizers():
        config = info.path / "tokenizer_config.json"
        if config.is_file():
            value = door.read_json(config, "tokenizer file", limits.MAX_FOLDER_JSON_BYTES)
            if isinstance(value, dict) and isinstance(value.get("chat_template"), str):
                names.append(info.name)
    return tuple(names)


@_cached
def _served_taught(tokenizer: str, template: str | None, tools: list) -> Taught | None:
    """The run's own template: ``template`` (a FILE's text) or the tokenizer's; boxed as every
    template from data is (core/templates.py), a built-in tokenizer's own pinned one here."""
    from workbench.core import templates
    from workbench.core.tokenizers import is_pinned, load_tokenizer
    from workbench.errors import WorkbenchError

    tok = load_tokenizer(tokenizer)
    if template is None and is_pinned(tok):
        return _shipped_taught(tokenizer, None, tools)
    with_call, plain = _turns(tools[0]["function"]["name"])
    try:
        a, b = (tok.decode(templates.render_boxed(tok, msgs, tools, template, {}), skip_special_tokens=False)
                for msgs in (with_call, plain))
    except WorkbenchError:  # it cannot render a call: it teaches no markup
        return Taught("the served template", ())
    return Taught("the served template", markers_of(a, b))


def has_markup(text: str) -> bool:
    """Whether the text holds anything a template could have taught (else nothing is rendered)."""
    return any(looks_like_markup(m.group(0).split()[0]) for m in _MARKUP.finditer(text))


def _usable(tools: list) -> list:
    return [t for t in tools or [] if isinstance(t, dict) and "function" in t] or [_ANY_TOOL]


def flag(taught: Taught, tokenizer: str, served_file: bool) -> str:
    """The exact setting that serves ``taught``'s template."""
    if taught.name == tokenizer and served_file:
        return f"serve without --chat-template (the {tokenizer} tokenizer's own template teaches it)"
    path = SHIPPED_FILES / f"{taught.name}.jinja"
    if path.is_file():
        return f"use --chat-template {path}"
    return f"use the {taught.name} tokenizer's own chat template (its folder as --tokenizer, no --chat-template)"


def wrong_template(session: Session, text: str) -> Diagnosis | None:
    """The text is written in the markup another shipped template teaches, not the served
    one's: that template, with its flag (None when the served one's markup is in the text,
    or no shipped template's is)."""
    from workbench.core.tokenizers import model_type

    setup = session.setup
    tok = session.tokenizer
    if not has_markup(text) or model_type(tok) == "gpt_oss":  # Harmony renders in code, not a template
        return None
    if setup.chat_template is None and not isinstance(getattr(tok, "chat_template", None), str):
        return None
    served = _served_taught(setup.tokenizer, setup.chat_template, _usable(setup.request.tools or []))
    if served is None or served.in_text(text):
        return None
    ranked = sorted((t for t in shipped(setup.request.tools or []) if t.in_text(text) and t.markers != served.markers),
                    key=lambda t: (-t.in_text(text), t.name))
    if not ranked:
        return None
    best = ranked[0]
    own = f"the {setup.tokenizer} tokenizer's own chat template" if setup.chat_template is None else \
        f"the chat template served ({Path(setup.chat_template_file).name if setup.chat_template_file else 'given'})"
    teaches = f"teaches {served.markers[0]}" if served.markers else "teaches no tool-call markup"
    fix = flag(best, setup.tokenizer, setup.chat_template is not None)
    return Diagnosis(
        "wrong_chat_template", PROBLEM,
        f"{own} {teaches}; the text is written in {best.markers[0]}, which the {best.name} chat template "
        f"teaches: {fix}", fix,
        {"served": list(served.markers), "matches": best.name, "markers": list(best.markers),
         "found": [m for m in best.markers if m in text], "ranked": [t.name for t in ranked]})
