"""What crosses a lane's wire: every file the user named, absolute, or as its content.

A lane's worker runs in an empty private folder of its own (worker.py), never in the
user's folder nor in the project checkout, so a path sent as typed would name nothing
there (or, as once, the checkout's file of that name). Before a request leaves this
process, ``spec``, ``setup`` and ``options`` make every path absolute against this
process's working folder; a file only this process can open (``/dev/fd/N``,
``/dev/stdin``, ``/proc/self/...``: a shell's ``<(...)``) goes as its content, which the
worker writes into its private folder and names there (``arrived``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.core.run_spec import RunSpec

# A command's own options that name a file or folder (read or written): sent absolute.
PATH_OPTIONS = ("output", "report", "all", "save", "html")
# The run's options, when a command sends no RunSpec (export-config): sent as options.
FILE_LISTS = ("plugin",)
_LOCAL = ("/dev/fd/", "/dev/stdin", "/proc/self/", f"/proc/{os.getpid()}/", "/proc/thread-self/")


def absolute(path: str | None) -> str | None:
    """``path`` as this process names it, absolute (``~`` expanded); None stays None."""
    if path is None or path == "":
        return path
    return os.path.abspath(os.path.expanduser(path))


def _local(path: str) -> bool:
    """A name only this process can open: its own file descriptors."""
    return path.startswith(_LOCAL) or path.startswith(f"/proc/{os.getpid()}/")


def _file(path: str | None, what: str, cap: int) -> Any:
    """A file the lane reads: its absolute path, or {"carried": name, "content": text}."""
    from workbench.core import door

    p = absolute(path)
    if p is None:
        return p
    if not _local(p):
        door.check_file(p, what, cap)  # a missing or unreadable file is one line here, before a lane starts
        return p
    return {"carried": Path(p).name or "file", "content": door.read_text(p, what, cap)}


def tokenizer(name: str | None) -> str | None:
    """A built-in tokenizer's name as given; a folder, absolute."""
    if not name:
        return name
    from workbench.core.tokenizers import list_tokenizers

    if name in {t.name for t in list_tokenizers()}:
        return name
    return absolute(name)


def _parser(parser: dict | None) -> dict | None:
    from workbench.core import limits

    if not parser or not parser.get("config"):
        return parser
    return dict(parser, config=_file(parser["config"], "config", limits.MAX_CONFIG_BYTES))


def _files(d: dict, plugins: str) -> dict:
    from workbench.core import limits

    out = dict(d)
    if "parser" in out:
        out["parser"] = _parser(out["parser"])
    if out.get(plugins):
        out[plugins] = [_file(p, "plugin", limits.MAX_CODE_BYTES) for p in out[plugins]]
    if out.get("tokenizer"):
        out["tokenizer"] = tokenizer(out["tokenizer"])
    if out.get("chat_template_file"):
        out["chat_template_file"] = absolute(out["chat_template_file"])  # its text travels already
    return out


def spec(run: RunSpec) -> dict:
    """``run.to_dict()`` for a lane: every path absolute, or a file's content."""
    from workbench.core import limits

    out = _files(run.to_dict(), "plugins")
    if out.get("recording"):
        out["recording"] = _file(out["recording"], "recording", limits.MAX_RECORDING_BYTES)
    return out


def setup(d: dict) -> dict:
    """A Setup as ``lane_session.setup_dict`` writes it, for a lane: paths absolute."""
    return _files(d, "plugins")


def side(text: str) -> str:
    """A diff side as typed ('cfg.toml@0.33.0', 'config:x.toml', 'hermes+qwen3'): a config's path absolute."""
    import re

    from workbench.core.parsers import ParserSpec

    # runs.on_spec.parse_side's split: the body, then @rust[@V] or @V
    m = re.match(r"^(.*?)(@rust(?:@\d[^@/]*)?|@\d[^@/]*)?$", text.strip())
    body, tail = (m.group(1), m.group(2) or "") if m else (text, "")
    if not body.strip() or body.strip() == "+":
        return text
    config = ParserSpec.parse(body).config
    return text if not config else body.replace(config, absolute(config) or config, 1) + tail


def options(given: dict, with_run: bool = False) -> dict:
    """A command's own options for a lane: each that names a file, absolute. ``with_run``: no
    RunSpec is sent (export-config), so the run's file options go here too."""
    out = dict(given)
    for name in PATH_OPTIONS:
        if isinstance(out.get(name), str):
            out[name] = absolute(out[name])
    for name in ("a", "b"):
        if isinstance(out.get(name), str):
            out[name] = side(out[name])
    if out.get("python") and isinstance(out.get("name"), str):  # export-config --python F.toml
        out["name"] = absolute(out["name"])
    if with_run:
        if out.get("tokenizer"):
            out["tokenizer"] = tokenizer(out["tokenizer"])
        for name in FILE_LISTS:
            if out.get(name):
                out[name] = [absolute(p) for p in out[name]]
        for name in ("config", "chat_template", "text_file", "tools", "messages", "request", "deltas"):
            if isinstance(out.get(name), str):
                out[name] = absolute(out[name])
    return out


# -- the worker's side ----------------------------------------------------------------------

def arrived(d: dict | None, plugins: str = "plugins") -> dict | None:
    """A spec or setup dict as ``spec`` / ``setup`` sent it, each carried file written into
    the worker's private folder (its working folder) and named there."""
    if d is None:
        return None
    out = dict(d)
    if out.get("parser") and isinstance(out["parser"].get("config"), dict):
        out["parser"] = dict(out["parser"], config=_written(out["parser"]["config"]))
    if out.get(plugins):
        out[plugins] = [_written(p) if isinstance(p, dict) else p for p in out[plugins]]
    if isinstance(out.get("recording"), dict):
        out["recording"] = _written(out["recording"])
    return out


def _written(carried: dict) -> str:
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="carried-", dir=os.getcwd()))
    path = folder / Path(str(carried["carried"])).name
    path.write_text(str(carried["content"]), encoding="utf-8")
    return str(path)
