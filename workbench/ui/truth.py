"""What runs, said as it is (widget-free): the parser class and where it came from (the
pickers, a config file or the editor), the vLLM it runs on, the API whose client reads
the stream and the stream itself; and which settings wait for Replay or Reset.

The widget's status line shows ``running(model)`` after every action, so it never says
what the pickers say while another parser runs.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.ui.inputs import Inputs
    from workbench.ui.model import WorkbenchModel

# Inputs fields a user sets in the controls, as the controls name them
NAMES = {"tokenizer": "tokenizer", "tool_parser": "tool parser", "reasoning_parser": "reasoning",
         "config": "config", "tool_choice": "tool_choice", "messages": "messages", "tools": "tools",
         "text": "script", "recording": "recording", "source": "source", "chunking": "chunking",
         "model": "model", "server_url": "server", "server_request": "request", "vllm": "vLLM",
         "api": "API", "config_text": "the config editor"}


def _short(qualname: str | None) -> str | None:
    return qualname.rsplit(".", 1)[-1] if qualname else None


def parser_of(i: Inputs, info: dict | None) -> str:
    """The parser's name, its class and where it came from."""
    if i.config_text is not None:
        where = "the config editor"
    elif i.config:
        where = f"the config file {Path(i.config).name}"
    else:
        where = "the pickers"
    label = "editor config" if i.config_text is not None else i.parser().label()
    if not info:
        return f"{label} ({where})"
    if info.get("kind") == "none":
        return f"no parser ({where})"
    parts = [p for p in (_short(info.get("tool")), _short(info.get("reasoning"))) if p]
    cls = _short(info.get("class")) or "?"
    inner = f"{cls}({', '.join(parts)})" if parts and info.get("kind") == "delegating" else cls
    return f"{label} = {inner}, from {where}"


def vllm_of(i: Inputs) -> str:
    from workbench.lanes import versions

    if versions.is_installed(i.vllm):
        return f"vLLM {versions.installed()} (installed)"
    return f"vLLM {i.vllm} (a lane: a worker process)"


def stream_of(i: Inputs) -> str:
    chunking = "" if i.chunking == "token" else f", chunking {i.chunking}"
    if i.source == "recording":
        return f"the recording {Path(i.recording).name if i.recording else '(none)'}{chunking}"
    if i.source == "engine":
        return f"the engine ({i.model or 'the embedded tiny model'}, scripted)" if i.text else \
            f"the engine ({i.model or 'the embedded tiny model'}, free generation)"
    if i.source == "server":
        return f"the server {i.server_url or '(no URL)'}"
    return f"the script text{chunking}"


def api_of(i: Inputs) -> str:
    live = i.source in ("engine", "server") and i.api != "chat"
    return f"API {i.api}" + (" (its events from a replay of the chat stream)" if live else "")


def running(model: WorkbenchModel) -> str:
    """One line: what runs now, or what will run at the next Step."""
    i = model.built if model.session is not None and model.built is not None else model.inputs
    info = getattr(model.session, "parser_info", None) if model.session is not None else None
    verb = "runs" if model.source is not None else "will run"
    return (f"{verb}: {parser_of(i, info)} · {vllm_of(i)} · {api_of(i)} · on {stream_of(i)}")


def pending(now: Inputs, applied: Inputs | None) -> list[str]:
    """The controls whose values differ from what the stream runs with (the editor's
    config: switched off, or another text not reloaded)."""
    if applied is None:
        return []
    return [NAMES[f.name] for f in fields(now) if f.name in NAMES
            and getattr(now, f.name) != getattr(applied, f.name)]
