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
a class vLLM refuses) is one line with its line number, and the last good parser stays.
"""

from __future__ import annotations

import itertools
import re
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core import parsers, plugins
from workbench.core.session import Result, Session, Setup
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.core.deltas import Delta
    from workbench.core.parsers import ParserSpec

_COUNTER = itertools.count(1)
_FOLDER: list[Path] = []  # one temporary folder per process for the editor's versions


def _folder() -> Path:
    if not _FOLDER:
        _FOLDER.append(Path(tempfile.mkdtemp(prefix="workbench-live-plugin-")))
    return _FOLDER[0]


class LivePlugin:
    def __init__(self, setup: Setup, deltas: list[Delta] | None = None, *, text: str | None = None,
                 prompt_token_ids: list[int] | None = None) -> None:
        """``deltas`` (a recording's) or ``text`` (tokenized as the session's chunking says)."""
        self.session = Session(setup, prompt_token_ids=prompt_token_ids)
        if deltas is None:
            if text is None:
                raise WorkbenchError("LivePlugin needs deltas or text")
            deltas = self.session.deltas_from_text(text)
        self.deltas = list(deltas)
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
        n = next(_COUNTER)
        path = _folder() / f"workbench_live_plugin_{n}.py"
        path.write_text(source, encoding="utf-8")
        try:
            plugin = plugins.load(path)
            plugins.require_parsers(plugin)
            spec = self._spec(plugin)
            cls = parsers.compose(spec, self.session.tokenizer, self.session.policy, (plugin,))
        except WorkbenchError as e:
            self.error = _editor_line(str(e), path)
            path.unlink(missing_ok=True)
            return self.error
        previous = (self.session.setup, self.session.parser_cls)
        self.session.setup = replace(self.session.setup, parser=spec)
        self.session.use_parser_class(cls)
        try:
            self.result = self.session.replay(self.deltas)
        except BaseException:
            self.session.setup = previous[0]
            self.session.use_parser_class(previous[1])
            raise
        if self.plugin is not None and self.plugin.file != str(path):
            Path(self.plugin.file).unlink(missing_ok=True)
        self.source, self.plugin, self.error = source, plugin, None
        return None

    def _spec(self, plugin: plugins.Plugin) -> ParserSpec:
        """The setup's parser with the roles this plugin fills taken from it."""
        from workbench.core.parsers import ParserSpec

        now = self.session.setup.parser
        tool = now.tool_parser if now.tool_parser in plugin.tool else (plugin.tool[0] if plugin.tool else None)
        reasoning = (now.reasoning_parser if now.reasoning_parser in plugin.reasoning
                     else (plugin.reasoning[0] if plugin.reasoning else None))
        return ParserSpec(tool or (now.tool_parser if not now.config else None),
                          reasoning or (now.reasoning_parser if not now.config else None),
                          tool_strict_level=now.tool_strict_level)


def _editor_line(message: str, path: Path) -> str:
    """A plugin loader's line, said of the editor's text: 'line 5: NameError: ...'."""
    text = message.replace(str(path), "the editor's text")
    m = re.match(r"plugin file the editor's text failed to import \(line (\d+)\): (.*)", text)
    if m:
        return f"line {m.group(1)}: {m.group(2)}"
    return text.replace("plugin file the editor's text", "the editor's text")
