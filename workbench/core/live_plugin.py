"""Live editing of a Python parser: the editor's text -> a plugin loaded under a fresh name,
its parser composed, the same stream replayed. The widget-free core beside ``live.py``'s
config reload.

``LivePlugin`` holds one Session (tokenizer, request, prompt) and one list of deltas.
``reload(source)`` writes the text to a file of its own (a fresh module name each time, so
nothing of the last version's classes is reused), loads it as vLLM loads a plugin
(core/plugins.py: registered names read back, a cached class of an earlier import dropped),
and composes the parser from the names it registers: the setup's names where the plugin
registers them, else the first tool and the first reasoning name it registers, a role it
does not fill kept from the setup. A good text becomes the parser and the stream is
replayed; a bad one (a syntax error, an exception while it imports, no parser registered,
a class vLLM refuses, a parser whose ``__init__`` or ``adjust_request`` raises) is one line
with its line number, and the last good parser stays. The session's setup names the
loaded file as its plugin, so what reads a session (export, doctor, a saved recording's
provenance) sees the plugin as ``--plugin FILE`` would give it.
"""

from __future__ import annotations

import itertools
import re
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core import parsers, plugins
from workbench.core.live import started
from workbench.core.session import Result, Setup
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.core.deltas import Delta
    from workbench.core.parsers import ParserSpec

_COUNTER = itertools.count(1)
_FOLDER: list[Path] = []  # one temporary folder per process for the editor's versions
EDITOR = "the editor's text"


def _folder() -> Path:
    if not _FOLDER:
        _FOLDER.append(Path(tempfile.mkdtemp(prefix="workbench-live-plugin-")))
    return _FOLDER[0]


def load_text(source: str) -> plugins.Plugin:
    """``source`` written to a fresh module file and loaded as vLLM loads a plugin; it must
    register a parser. A failure is one line said of the editor's text ('line 5: ...')."""
    path = _folder() / f"workbench_live_plugin_{next(_COUNTER)}.py"
    path.write_text(source, encoding="utf-8")
    try:
        plugin = plugins.load(path)
        plugins.require_parsers(plugin)
    except WorkbenchError as e:
        if "plugin" in locals():
            plugins.forget(plugin)  # imported, but registers no parser
        path.unlink(missing_ok=True)
        raise WorkbenchError(_editor_line(e, path)) from None
    return plugin


def spec_for(plugin: plugins.Plugin, now: ParserSpec) -> ParserSpec:
    """``now`` with the roles ``plugin`` fills taken from it: ``now``'s name where the plugin
    registers it, else the first it registers; a role it does not fill stays ``now``'s (a
    config's roles are the config's: none stays)."""
    from workbench.core.parsers import ParserSpec

    tool = now.tool_parser if now.tool_parser in plugin.tool else (plugin.tool[0] if plugin.tool else None)
    reasoning = (now.reasoning_parser if now.reasoning_parser in plugin.reasoning
                 else (plugin.reasoning[0] if plugin.reasoning else None))
    return ParserSpec(tool or (now.tool_parser if not now.config else None),
                      reasoning or (now.reasoning_parser if not now.config else None),
                      tool_strict_level=now.tool_strict_level)


def line_of(error: str) -> int | None:
    """The line number an editor error names ('line 5: NameError: ...'), or None."""
    m = re.match(r"line (\d+): ", error)
    return int(m.group(1)) if m else None


class LivePlugin:
    def __init__(self, setup: Setup, deltas: list[Delta] | None = None, *, text: str | None = None,
                 prompt_token_ids: list[int] | None = None) -> None:
        """``deltas`` (a recording's) or ``text`` (tokenized as the session's chunking says)."""
        self.session, self.deltas = started(setup, deltas, text, prompt_token_ids, "LivePlugin")
        self._plugins = setup.plugins  # the setup's own plugins; the editor's file goes after them
        self.source: str | None = None  # the last good text
        self.plugin: plugins.Plugin | None = None
        self.error: str | None = None
        self.result: Result = self.session.replay(self.deltas)

    @property
    def parser(self) -> ParserSpec:
        return self.session.setup.parser

    def reload(self, source: str) -> str | None:
        """Load ``source`` and replay the stream through its parser: None on success, else the
        one-line error (the last good parser and ``.result`` stay)."""
        try:
            plugin = load_text(source)
        except WorkbenchError as e:
            self.error = str(e)
            return self.error
        path = Path(plugin.file)
        previous = (self.session.setup, self.session.parser_cls, self.session.plugins)
        try:
            spec = spec_for(plugin, self.session.setup.parser)
            cls = parsers.compose(spec, self.session.tokenizer, self.session.policy, (plugin,))
            self.session.setup = replace(self.session.setup, parser=spec, plugins=self._plugins + (str(path),))
            self.session.plugins = previous[2][:len(self._plugins)] + (plugin,)
            self.session.use_parser_class(cls)  # adjust_request on an instance: the class's __init__ runs
            self.result = self.session.replay(self.deltas)
        except BaseException as e:
            self._restore(previous)
            plugins.forget(plugin)
            path.unlink(missing_ok=True)
            if not isinstance(e, WorkbenchError):
                raise
            self.error = _editor_line(e, path)
            return self.error
        if self.plugin is not None and self.plugin.file != str(path):
            plugins.forget(self.plugin)  # its module, cache entry and registrations: memory stays flat
            Path(self.plugin.file).unlink(missing_ok=True)
        self.source, self.plugin, self.error = source, plugin, None
        return None

    def _restore(self, previous: tuple) -> None:
        self.session.plugins = previous[2]
        if self.session.setup is not previous[0] or self.session.parser_cls is not previous[1]:
            self.session.setup = previous[0]
            self.session.use_parser_class(previous[1])


def _editor_line(error: WorkbenchError, path: Path) -> str:
    """A plugin loader's line, said of the editor's text: 'line 5: NameError: ...'."""
    text = str(error).replace(str(path), EDITOR)
    text = re.sub(rf" \({re.escape(path.name)}, line \d+\)", "", text)  # a SyntaxError's own "(file, line N)"
    m = re.match(rf"plugin file {EDITOR} failed to import \(line (\d+)\): (.*)", text)
    if m:
        return f"line {m.group(1)}: {m.group(2)}"
    text = text.replace(f"plugin file {EDITOR}", EDITOR)
    where = _line_in(error, path)
    return f"line {where}: {text}" if where else text


def _line_in(error: BaseException, path: Path) -> int | None:
    """The editor's line in an error that is not an import's (a class's ``__init__`` that
    raised while ``adjust_request`` ran, wrapped in a WorkbenchError): the innermost frame
    in the module's file, along the chain of exceptions."""
    import traceback

    e: BaseException | None = error
    while e is not None:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == str(path)]
        if frames:
            return frames[-1].lineno
        e = e.__cause__ or e.__context__
    return None
