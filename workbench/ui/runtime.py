"""What a state refers to but cannot hold (widget-free): the parser session of the applied
settings, the source making the current stream's rows (by the stream's id), this widget's
own engine request, the recording opened (parsed once), the editor's live config or live
plugin (its last good text loaded as a module) and the API faces of the stream.

Only transitions read and write it; what of it a view reads, the controller puts into the
state after each one (``State.made``, ``transitions.seen``).

``session`` and ``deltas`` are the one way from settings to something that runs: the pickers
become a ``RunSpec`` (``Inputs.spec``), its Setup is ``core.prepare``'s, and a script's deltas
are what ``prepare`` makes with the session built here (built once per distinct settings).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError
from workbench.ui import recordings
from workbench.ui.inputs import Inputs, resolve

if TYPE_CHECKING:
    from workbench.core.deltas import Delta
    from workbench.core.open_recording import Opened
    from workbench.core.session import Setup

Status = Callable[[str, "float | None"], None]
LIVE = ("engine", "server")


def _quiet(message: str, fraction: float | None = None) -> None:
    pass


def label(i: Inputs) -> str:
    """The parser's short name: hermes+qwen3, parsers/qwen3.toml's label, editor config or plugin."""
    if i.config_text is not None:
        return "editor config"
    return "editor plugin" if i.plugin_text is not None else i.parser().label()


def setup_of(i: Inputs) -> Setup:
    """Engine and server streams step on chat (as ``workbench record`` does); another
    API's view replays their deltas."""
    setup = i.setup()
    return replace(setup, api="chat") if i.source in LIVE else setup


def key_of(i: Inputs, with_editor: bool = True) -> str:
    """What a session is built for: the settings that compose it."""
    editor = (i.config_text, i.plugin_text) if with_editor else None
    return repr((setup_of(i), i.prompt_token_ids, editor, i.vllm))


def recorded(source) -> list[Delta]:
    """A source's stream so far (a recording in progress included)."""
    if source is None:
        return []
    return list(getattr(source, "all", None) or source.deltas)


class Runtime:
    def __init__(self, status: Status = _quiet) -> None:
        self.status = status
        self.session = None  # the last session built, for ``_key``
        self._key: str | None = None
        self.source = None  # the current stream's source
        self.stream_session = None  # the session its rows come from
        self.made_by: dict | None = None  # an engine stream's origin (a saved recording's header)
        self._ids = 0
        self.stepper = None  # this widget's own EngineStepper (its own engine request)
        self.opened: Opened | None = None  # the recording loaded, parsed once
        self.live = None  # core.live.LiveConfig of the editor
        self._live_key: tuple | None = None
        self.plugin_live = None  # core.live_plugin.LivePlugin of the editor
        self._live_plugin_key: tuple | None = None
        self._loaded: tuple[str, object] | None = None  # (text, Plugin): an editor text loaded elsewhere
        self._faces = None
        self.last = None  # the last whole state an action reached (kept when it then fails)

    # -- settings -> a session and deltas --------------------------------
    def key(self, i: Inputs, with_editor: bool = True) -> str:
        return key_of(i, with_editor)

    def session_for(self, i: Inputs):
        """The composed parser's session for ``i`` (built once per distinct settings)."""
        key = self.key(i)
        if self.session is None or key != self._key:
            setup = setup_of(i)
            if "vllm" not in sys.modules:
                self.status("loading vLLM (about 10 s the first time)…", None)
            if i.plugin_text is not None:  # as --plugin FILE with the names it registers
                from workbench.core.live_plugin import spec_for

                plugin = self.editor_plugin(i.plugin_text)
                setup = replace(setup, parser=spec_for(plugin, setup.parser), plugins=setup.plugins + (plugin.file,))
            self.status(f"composing parser {label(i)} on tokenizer {setup.tokenizer}…", None)
            from workbench.lanes import lane_ui

            lane_ui.check_source(i)
            session = lane_ui.session(i, setup, self.status)
            if i.config_text is not None:
                from workbench.core.config import parser as config_parser

                session.use_parser_class(config_parser.parser_class_from_text(
                    i.config_text, session.tokenizer, base_dir=config_dir(i), policy=session.policy))
            self.session, self._key = session, key
        return self.session

    def built(self, i: Inputs):
        """The session for ``i`` if one is built already (Load), else None."""
        return self.session if self.session is not None and self._key == self.key(i) else None

    def built_key(self) -> str | None:
        """The settings the last session was built for (``key_of``), None before one."""
        return self._key if self.session is not None else None

    def adopt(self, i: Inputs, session) -> None:
        """A session built elsewhere (the editor's live config) is the one for ``i``."""
        self.session, self._key = session, self.key(i)

    def deltas(self, i: Inputs, session) -> list[Delta]:
        """The deltas of a text or recording source under ``session``."""
        if i.source == "recording":
            if not i.recording:
                raise WorkbenchError("no recording chosen: pick one in the recording picker")
            if self.opened is None or self.opened.path != str(resolve(i.recording)):
                self.opened = recordings.open_deltas(i)
            deltas = self.opened.recording.deltas
            return session.regroup(deltas, i.chunking) if i.chunking != "token" else deltas
        if i.source != "text":
            raise WorkbenchError(f"the {i.source} source makes its deltas as it runs")
        if not i.text:
            raise WorkbenchError("the script text is empty: type what the model writes")
        self.status("tokenizing the script with vLLM's detokenizer…", None)
        from workbench.core.prepare import prepare

        return prepare(i.spec(), sessions=lambda setup, prompt_ids: session).deltas

    def open_recording(self, i: Inputs, path: str) -> tuple[Inputs, list[str]]:
        """``i`` with a recording's settings (its header's), and its notes."""
        new, self.opened = recordings.inputs_from(i, path)
        return new, list(self.opened.notes)

    # -- sources --------------------------------------------------------
    def source_for(self, i: Inputs, session, deltas: list[Delta] | None = None):
        """A new source: ``deltas`` replayed, else what the settings' source makes."""
        from workbench.ui.sources import ReplaySource

        if deltas is not None:
            return ReplaySource(session, deltas)
        if i.source == "engine":
            from workbench.ui import engine_adapter

            if self.stepper is None:
                self.stepper = engine_adapter.stepper(i)
            return engine_adapter.start(self.stepper, i, session, self.status)
        if i.source == "server":
            from workbench.capture.server_source import ServerSource

            if not i.server_url:
                raise WorkbenchError("the server source needs a URL (http://HOST:PORT/v1)")
            return ServerSource(session, i.server_url, i.server_body())
        return ReplaySource(session, self.deltas(i, session))

    def use(self, source, session=None, keep_origin: bool = False) -> int:
        """Make ``source`` (its rows from ``session``) the current one (the old one is closed:
        an engine request still running is aborted); the new stream's id. ``keep_origin``: a
        replay of the old stream, which a saved recording still names (an engine's request)."""
        old, self.source, self.stream_session = self.source, source, session
        if old is not None and old is not source:
            old.close()
        self._faces = None
        if not keep_origin:
            self.made_by = source.origin() if source is not None and source.kind == "engine" else None
        if source is None:
            return 0
        self._ids += 1
        return self._ids

    def recorded(self) -> list[Delta]:
        """The current stream so far (a recording in progress included): never dropped on errors."""
        return recorded(self.source)

    def origin(self, i: Inputs) -> dict:
        """Where the current stream came from, for a saved recording's header."""
        if self.made_by:
            return self.made_by
        return {"kind": "recording", "path": i.recording} if i.source == "recording" else {"kind": "text"}

    def save(self, i: Inputs, path: str, force: bool = False) -> int:
        """The stream so far (a recording in progress included) as JSONL, with the settings
        ``i`` it was made with. An existing file is refused unless ``force``, as the CLI's
        ``-o`` refuses it without --force."""
        from pathlib import Path

        deltas = self.recorded()
        if not deltas:
            raise WorkbenchError("nothing to save: Step or Run first")
        if not force and Path(path).exists():
            raise WorkbenchError(f"{path} exists: give another name, or overwrite it "
                                 "(save_recording(path, force=True); the Save button asks first)")
        recordings.write(path, i, self.stream_session or self.session_for(i), self.origin(i), deltas, force)
        return len(deltas)

    # -- the editor's live config and live plugin ------------------------
    def live_config(self, i: Inputs, deltas: list[Delta]):
        from workbench.core.live import LiveConfig

        key = (self.key(i, with_editor=False), tuple(map(id, deltas)))
        if self.live is None or key != self._live_key:
            self.live = LiveConfig(setup_of(i), deltas, prompt_token_ids=i.prompt_token_ids,
                                   base_dir=config_dir(i))
            self._live_key = key
        return self.live

    def live_plugin(self, i: Inputs, deltas: list[Delta]):
        from workbench.core.live_plugin import LivePlugin

        key = (self.key(i, with_editor=False), tuple(map(id, deltas)))
        if self.plugin_live is None or key != self._live_plugin_key:
            self.plugin_live = LivePlugin(setup_of(i), deltas, prompt_token_ids=i.prompt_token_ids)
            self._live_plugin_key = key
        return self.plugin_live

    def editor_plugin(self, text: str):
        """The editor's plugin text as a loaded plugin (core.plugins.Plugin): the live plugin's
        when it is that text, else loaded now (once per text)."""
        from pathlib import Path

        from workbench.core.live_plugin import load_text

        live = self.plugin_live
        if live is not None and live.source == text and live.plugin is not None and Path(live.plugin.file).exists():
            return live.plugin
        if self._loaded is None or self._loaded[0] != text or not Path(self._loaded[1].file).exists():
            self._loaded = (text, load_text(text))
        return self._loaded[1]

    # -- the API faces of the current stream -----------------------------
    def faces(self, i: Inputs):
        """The API faces of the stream (``faces_view.Faces``); None on a lane or with no session."""
        from workbench.core.session import Session
        from workbench.ui.faces_view import Faces

        session = self.stream_session
        if not isinstance(session, Session):
            return None
        if self._faces is None or self._faces.main is not session:
            self._faces = Faces(session, i.source in LIVE)
        return self._faces


def config_dir(i: Inputs):
    from pathlib import Path

    return Path(resolve(i.config)).parent if i.config else None
