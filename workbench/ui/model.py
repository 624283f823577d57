"""The workbench's state and actions, with no widgets (tests drive it directly).

``WorkbenchModel`` holds what the controls say (``Inputs``), the Session built
from them, the current row source, the rows so far, the selected row and the
final comparison. The widget only forwards clicks here and renders the result.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace

from workbench.core.deltas import Delta
from workbench.core.rows import Row
from workbench.errors import WorkbenchError
from workbench.ui import final as final_mod, recordings
from workbench.ui.faces_view import ModelFaces
from workbench.ui.final import FinalView, rows_changed  # noqa: F401
from workbench.ui.inputs import SOURCES, TOOL_CHOICES, Inputs, resolve  # noqa: F401
from workbench.ui.sources import ReplaySource

Status = Callable[[str, "float | None"], None]


def _quiet(message: str, fraction: float | None = None) -> None:
    pass


class WorkbenchModel(ModelFaces):
    def __init__(self, inputs: Inputs | None = None, status: Status = _quiet) -> None:
        self.inputs = inputs or Inputs()
        self.status = status
        self.session = None
        self._session_key = None
        self.source = None
        self.rows: list[Row] = []
        self.changed: set[int] = set()
        self.selected: int | None = None
        self.final: FinalView | None = None
        self.engine_factory: Callable | None = None  # set by the engine adapter
        self.stepper = None  # this widget's own EngineStepper (its own engine request)
        self.origin: dict | None = None  # where the rows came from, for a saved recording
        self.live = None  # core.live.LiveConfig of the editor
        self._live_key = None
        self._text_key = None
        self.opened = None  # core.open_recording.Opened: the recording loaded, parsed once
        self.built: Inputs | None = None  # the inputs the session was built from (what runs)
        self._faces = None  # faces_view.Faces of the session

    # -- building -------------------------------------------------------
    @property
    def live_source(self) -> bool:
        """Engine and server streams step on chat (as ``workbench record`` does); another
        API's view replays their deltas."""
        return self.inputs.source in ("engine", "server")

    def setup(self):
        setup = self.inputs.setup()
        return replace(setup, api="chat") if self.live_source else setup

    def _key(self, with_config: bool = True) -> str:
        i = self.inputs
        return repr((self.setup(), i.prompt_token_ids, i.config_text if with_config else None, i.vllm))

    def config_base_dir(self):
        from pathlib import Path

        return Path(resolve(self.inputs.config)).parent if self.inputs.config else None

    def ensure_session(self):
        setup, key = self.setup(), self._key()
        if self.session is None or key != self._session_key:
            if "vllm" not in sys.modules:
                self.status("loading vLLM (about 10 s the first time)…", None)
            self.status(f"composing parser {self.label()} on tokenizer {setup.tokenizer}…", None)
            from workbench.lanes import lane_ui

            session = lane_ui.session(self.inputs, setup, self.status)
            if self.inputs.config_text is not None:
                from workbench.core.config import parser as config_parser

                session.use_parser_class(config_parser.parser_class_from_text(
                    self.inputs.config_text, session.tokenizer, base_dir=self.config_base_dir(),
                    policy=session.policy))
            self._built(session, key)
        return self.session

    def _built(self, session, key: str) -> None:
        self.session, self._session_key, self.built, self._faces = session, key, self.inputs, None

    def label(self) -> str:
        return "editor config" if self.inputs.config_text is not None else self.inputs.parser().label()

    def reload_config(self, text: str) -> list:
        """The editor's text as the parser: problems (nothing changes), or [] after
        replaying the same stream through it (``changed`` marks the differing rows)."""
        from workbench.core.live import LiveConfig

        deltas = self.stream_deltas()
        key = (self._key(with_config=False), tuple(map(id, deltas)))
        if self.live is None or key != self._live_key:
            base = replace(self.inputs, config_text=None)
            self.live = LiveConfig(self.setup(), deltas, prompt_token_ids=base.prompt_token_ids,
                                   base_dir=self.config_base_dir())
            self._live_key = key
        problems = self.live.reload(text)
        if problems:
            return problems
        self.inputs = replace(self.inputs, config_text=text)
        self._built(self.live.session, self._key())
        self.replay(deltas)
        return []

    def load_recording(self, path: str) -> list[str]:
        """Take tokenizer, parser, request and prompt from a recording's header; its notes
        (a cut stream, another tokenizer build, a changed config) for the widget to show."""
        self.inputs, self.opened = recordings.inputs_from(self.inputs, path)
        self.reset()
        return self.opened.notes

    def _deltas(self, session) -> list[Delta]:
        i = self.inputs
        if i.source == "recording":
            if not i.recording:
                raise WorkbenchError("no recording chosen")
            if self.opened is None or self.opened.path != str(resolve(i.recording)):  # not load_recording's
                self.opened = recordings.open_deltas(i)
            deltas = self.opened.recording.deltas
            return session.regroup(deltas, i.chunking) if i.chunking != "token" else deltas
        if not i.text:
            raise WorkbenchError("the script text is empty: type what the model writes")
        self.status("tokenizing the script with vLLM's detokenizer…", None)
        self._text_key = (i.text, i.tokenizer, i.chunking)
        return session.deltas_from_text(i.text, i.chunking)

    def start(self):
        from workbench.lanes import lane_ui

        lane_ui.check_source(self.inputs)
        session = self.ensure_session()
        if self.inputs.source == "engine":
            if self.engine_factory is None:
                from workbench.ui import engine_adapter

                self.engine_factory = engine_adapter.factory
            self._use(self.engine_factory(self, session))
        elif self.inputs.source == "server":
            from workbench.capture.live import ServerSource

            if not self.inputs.server_url:
                raise WorkbenchError("the server source needs a URL (http://HOST:PORT/v1)")
            self._use(ServerSource(session, self.inputs.server_url, self.inputs.server_body()))
        else:
            self._use(ReplaySource(session, self._deltas(session)))
        self.status("ready", None)
        return self.source

    # -- actions --------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.source is not None and self.source.done

    @property
    def streams(self) -> bool:
        """Whether the current source's Run is one request whose rows come as they are
        made (a lane's replay: ``step_for``, ``pause``)."""
        return bool(getattr(self.source, "streams", False))

    def step(self) -> list[Row]:
        """One delta (one engine step, one server chunk)."""
        if self.source is None:
            self.start()
        if self.source.done:
            self.status("the stream is finished: Reset or Replay", None)
            return []
        return self._took(self.source.step())

    def step_for(self, seconds: float) -> list[Row]:
        """A streaming source's Run (``streams``): the rows that come within ``seconds``."""
        if self.source is None:
            self.start()
        return self._took(self.source.step_for(seconds)) if not self.source.done else []

    def pause(self) -> list[Row]:
        """A streaming source's Run stopped: no more deltas go; the rows made come in."""
        if self.source is None or not self.streams or self.source.done:
            return []
        return self._took(self.source.pause())

    def _took(self, new: list[Row]) -> list[Row]:
        self.rows.extend(new)
        if new and self.source.done:
            self._finish()
        return new

    def run(self, every: int = 50, on_rows: Callable[[list[Row]], None] | None = None) -> list[Row]:
        """To the end of the stream; ``on_rows`` sees each step's new rows as they arrive."""
        if self.source is None:
            self.start()
        new: list[Row] = []
        total = self.source.total
        while not self.source.done:
            rows = self.step_for(0.05) if self.streams else self.step()
            new.extend(rows)
            if on_rows is not None:
                on_rows(rows)
            if total and (len(self.rows) % every == 0 or self.streams):
                self.status(f"running: {len(self.rows)}/{total} deltas", len(self.rows) / total)
        return new

    def _use(self, source) -> None:
        """Make ``source`` the current one; the old one is closed (an engine request
        still running is aborted), its origin kept for the rows it made."""
        old = self.source
        if old is not None and old is not source:
            old.close()
        self.source = source
        if source is not None and source.kind == "engine":
            self.origin = source.origin()
        elif source is None or old is None or old.kind != "engine":
            i = self.inputs
            self.origin = ({"kind": "recording", "path": i.recording} if i.source == "recording"
                           else {"kind": "text"})

    def reset(self) -> None:
        self._use(None)
        self.rows, self.changed, self.final, self.selected = [], set(), None, None

    def stream_deltas(self) -> list[Delta]:
        """The current stream: what was recorded, else what the source settings give."""
        return self.recorded() or self._deltas(self.ensure_session())

    def recorded(self) -> list[Delta]:
        """The stream so far (a recording in progress included): never dropped on errors."""
        if self.source is None:
            return []
        return list(getattr(self.source, "all", None) or self.source.deltas)

    def replay(self, deltas: list[Delta] | None = None) -> set[int]:
        """The same stream through the current settings; returns the changed steps."""
        old = self.rows
        if deltas is None:
            i = self.inputs
            text_key = (i.text, i.tokenizer, i.chunking)
            if i.source == "text" and self.source is not None and text_key != self._text_key:
                deltas = self._deltas(self.ensure_session())  # the script changed: re-tokenize
            else:
                deltas = self.recorded()
        if not deltas:
            self.reset()
            self.run()
            self.changed = set()
            return set()
        session = self.ensure_session()
        self._use(ReplaySource(session, deltas))  # an engine stream replays as recorded
        self.rows, self.final = [], None
        self.run()
        self.changed = rows_changed(old, self.rows) if old else set()
        return self.changed

    def _finish(self) -> None:
        stream, nonstream = self.source.final()
        diffs = final_mod.compare(self.rows, stream, nonstream)
        note = final_mod.content_note(self.rows, stream)
        self.final = FinalView(stream, nonstream, diffs, final_mod.first_divergent_step(diffs),
                               list(getattr(self.source, "notes", [])) + ([note] if note else []))

    def save_recording(self, path: str, force: bool = False) -> int:
        """Write the stream so far (finished or not) as a JSONL recording; an existing
        file only with ``force``."""
        return recordings.save(self, path, force)

    # -- view state -----------------------------------------------------
    def select(self, step: int | None) -> Row | None:
        if step is None or not self.rows:
            self.selected = None
            return None
        step = max(1, min(step, len(self.rows)))
        self.selected = step
        return self.rows[step - 1]

    def window(self, start: int, size: int) -> range:
        """Row indexes shown for a window starting at ``start`` (clamped)."""
        n = len(self.rows)
        start = max(0, min(start, max(0, n - size)))
        return range(start, min(n, start + size))
