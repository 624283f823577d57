"""What runs, said as it is (widget-free): the parser class and where it came from (the
pickers, a config file, the editor's config, or the editor's plugin with the file it was
loaded as), the vLLM it runs on, the API whose client reads the stream and the stream
itself; and which settings wait for Replay or Reset.

The widget's first status line is ``running(state)``: it reads the applied settings and the
session that made the rows on screen, never the pickers (a pending change is listed after it).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from workbench.ui.runtime import label as short

if TYPE_CHECKING:
    from workbench.ui.inputs import Inputs
    from workbench.ui.state import State


def _class_name(qualname: str | None) -> str | None:
    return qualname.rsplit(".", 1)[-1] if qualname else None


def plugin_files(info: dict | None) -> list[str]:
    """The file names of the plugins a session loaded (``transitions.parser_of``)."""
    return [Path(p["file"]).name for p in (info or {}).get("plugins") or []]


def plugin_of(info: dict | None) -> str:
    """The editor plugin's file and what it registers: 'workbench_live_plugin_3.py registers
    tool parser my_parser' ('' before the session that loaded it is built)."""
    loaded = (info or {}).get("plugins") or []
    return "; ".join(f"{Path(p['file']).name} registers {p['names']}" for p in loaded)


def plugin_classes(info: dict | None) -> list[str]:
    """The composed roles' classes that the loaded plugins define (their module is a plugin's)."""
    modules = {Path(p["file"]).stem for p in (info or {}).get("plugins") or []}
    return [_class_name(q) for q in ((info or {}).get("tool"), (info or {}).get("reasoning"))
            if q and q.rsplit(".", 1)[0] in modules]


def parser_of(i: Inputs, info: dict | None) -> str:
    """The parser's name, its class and where it came from."""
    if i.config_text is not None:
        where = "the config editor"
    elif i.plugin_text is not None:
        where = f"the Python editor ({plugin_of(info)})" if plugin_of(info) else "the Python editor"
    elif i.config:
        where = f"the config file {Path(i.config).name}"
    else:
        where = "the pickers"
    label = short(i)
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


def script_of(text: str) -> str:
    """Which script: the seed's, or the one typed (its start and length)."""
    from workbench.core.clip import clip
    from workbench.ui.inputs import DEFAULT_TEXT

    if text == DEFAULT_TEXT:
        return "the seed script"
    return f"the script {clip(text, 24)} ({len(text)} characters)"


def stream_of(i: Inputs, origin: str = "") -> str:
    """The stream: its source, and how its deltas are grouped (``origin``: a grouping
    replayed, "recorded": a live stream replayed as it was recorded)."""
    chunking = "" if i.chunking == "token" else f", chunking {i.chunking}"
    if origin and origin != "recorded":
        chunking = f", grouped as {origin}"
    if i.source == "recording":
        return f"the recording {Path(i.recording).name if i.recording else '(none)'}{chunking}"
    if i.source == "engine":
        what = f"scripted: {script_of(i.text)}" if i.text else "free generation"
        again = ", replayed as recorded" if origin == "recorded" else ""
        sampling = "".join(f", {name} {value}" for name, value in i.sampling().items())
        return f"the engine ({i.model or 'the embedded tiny model'}, {what}{sampling}{again})"
    if i.source == "server":
        return f"the server {i.server_url or '(no URL)'}" + (", replayed as recorded" if origin == "recorded" else "")
    return f"the script text{chunking} ({script_of(i.text)})" if i.text else f"the script text{chunking}"


def api_of(i: Inputs) -> str:
    live = i.source in ("engine", "server") and i.api != "chat"
    return f"API {i.api}" + (" (its events from a replay of the chat stream)" if live else "")


def running(s: State) -> str:
    """One line: what made the rows on screen, or what the next Step starts."""
    st = s.stream
    verb = "runs" if st.started else "will run"
    return f"{verb}: {parser_of(st.applied, st.parser)} · {vllm_of(st.applied)} · {api_of(st.applied)} · " \
           f"on {stream_of(st.applied, st.origin)}"
