"""What runs, said as it is (widget-free): the parser class and where it came from (the
pickers, a config file or the editor), the vLLM it runs on, the API whose client reads
the stream and the stream itself; and which settings wait for Replay or Reset.

The widget's first status line is ``running(state)``: it reads the applied settings and the
session that made the rows on screen, never the pickers (a pending change is listed after it).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.ui.inputs import Inputs
    from workbench.ui.state import State


def _class_name(qualname: str | None) -> str | None:
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
    parts = [p for p in (_class_name(info.get("tool")), _class_name(info.get("reasoning"))) if p]
    cls = _class_name(info.get("class")) or "?"
    inner = f"{cls}({', '.join(parts)})" if parts and info.get("kind") == "delegating" else cls
    return f"{label} = {inner}, from {where}"


def vllm_of(i: Inputs) -> str:
    from workbench.lanes import versions

    if versions.is_installed(i.vllm):
        return f"vLLM {versions.installed()} (installed)"
    return f"vLLM {i.vllm} (a lane: a worker process)"


def stream_of(i: Inputs, origin: str = "") -> str:
    """The stream: its source, and how its deltas are grouped (``origin``: a grouping
    replayed, "recorded": a live stream replayed as it was recorded)."""
    chunking = "" if i.chunking == "token" else f", chunking {i.chunking}"
    if origin and origin != "recorded":
        chunking = f", grouped as {origin}"
    if i.source == "recording":
        return f"the recording {Path(i.recording).name if i.recording else '(none)'}{chunking}"
    if i.source == "engine":
        what = "scripted" if i.text else "free generation"
        again = ", replayed as recorded" if origin == "recorded" else ""
        return f"the engine ({i.model or 'the embedded tiny model'}, {what}{again})"
    if i.source == "server":
        return f"the server {i.server_url or '(no URL)'}" + (", replayed as recorded" if origin == "recorded" else "")
    return f"the script text{chunking}"


def api_of(i: Inputs) -> str:
    live = i.source in ("engine", "server") and i.api != "chat"
    return f"API {i.api}" + (" (its events from a replay of the chat stream)" if live else "")


def running(s: State) -> str:
    """One line: what made the rows on screen, or what the next Step starts."""
    st = s.stream
    verb = "runs" if st.started else "will run"
    return f"{verb}: {parser_of(st.applied, st.parser)} · {vllm_of(st.applied)} · {api_of(st.applied)} · " \
           f"on {stream_of(st.applied, st.origin)}"
