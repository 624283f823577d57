"""``Workbench``: the notebook widget. Composes the panels around a ``WorkbenchModel``.

Every button and observer goes through ``_guard``: a ``WorkbenchError`` shows
as one line in the banner, anything else as a one-line summary with the
traceback behind a fold; the kernel never sees the exception and the rows (and
the recording in progress) stay.
"""

from __future__ import annotations

import functools
import html
import time
from dataclasses import replace
from typing import TYPE_CHECKING

import ipywidgets as W

from workbench.core.rows import Row, to_frame
from workbench.ui.ab import ABActions
from workbench.ui.check import CheckActions
from workbench.ui.controls import Controls
from workbench.ui.diagram import DiagramActions
from workbench.ui.editor import EditorActions
from workbench.ui.inputs import check_height, check_recording, given
from workbench.ui.model import Inputs, WorkbenchModel
from workbench.ui.detail import RowDetail
from workbench.ui.final_panel import FinalPanel
from workbench.ui.panels import Banner
from workbench.ui.running import RunActions
from workbench.ui import truth
from workbench.ui.settings import SettingsActions
from workbench.ui.table import DeltaTable
from workbench.ui.takeaway import TakeAwayActions
from workbench.ui.views import ViewActions, readme_link

if TYPE_CHECKING:
    from typing import Any


class Workbench(RunActions, EditorActions, DiagramActions, ABActions, CheckActions, SettingsActions,
                TakeAwayActions, ViewActions, W.VBox):
    """Step a stream of deltas through vLLM's parsers and watch every row.

    Parameters mirror ``Inputs``: ``text`` (what the model writes), or
    ``recording`` (a JSONL recording), or ``source="engine"``; ``tool_parser``,
    ``reasoning_parser`` or ``config``; ``tools``, ``messages``, ``tool_choice``; ``api``
    (chat, responses, messages: whose client reads the stream); ``vllm`` (a lane's version).
    """

    def __init__(self, text: str | None = None, *, recording: str | None = None,
                 height: int = 300, **inputs: Inputs) -> None:
        base = given(text or "", inputs)
        height = check_height(height)
        recording = check_recording(recording)
        if text is None and recording is None:
            base.text = DEFAULT_TEXT  # text="" with source="engine": free generation
        self.model = WorkbenchModel(base, status=self._status)
        self.controls = Controls(base, readme_link())
        self.banner = Banner()
        self.table = DeltaTable(height, wrap=True, layout=W.Layout(flex="1 1 600px", min_width="0"))
        self.detail = RowDetail()
        self.final = FinalPanel()
        self._loaded = False
        c = self.controls
        self.tabs = W.Tab([self.final, self._init_diagram(), self._init_check(), self._init_editor(),
                           self._init_ab()],
                          titles=("final message", "state machine", "check", "config editor", "A/B"))
        self._run = None  # the Run button's SlicedRun while it goes
        self._started_with = None  # the controls' values when the stream started
        c.step_button.on_click(self._guard(lambda _: self.step(), "Step"))
        c.run_button.on_click(self._guard(lambda _: self._run_clicked(), "Run"))
        c.stop_button.on_click(self._guard(lambda _: self.stop(), "Stop"))
        c.reset_button.on_click(self._guard(lambda _: self.reset(), "Reset"))
        c.replay_button.on_click(self._guard(lambda _: self.replay(), "Replay"))
        c.recording.observe(self._guard(self._on_recording, "recording", clear=False), "value")
        self.detail.step.observe(self._guard(lambda ch: self.select(ch["new"] or None), "row", False),
                                 "value")
        self.table.on_select(self._guard(self._on_table_select, "row", False))
        self.final.goto.on_click(self._guard(lambda _: self.goto_divergence(), "divergence"))
        self.final.more.on_click(self._guard(lambda _: self._show_finals(force=True), "final messages"))
        self._init_settings()
        self._init_takeaway()
        for w in c.values:
            w.observe(self._guard(lambda _: self._settings_changed(), "settings", clear=False), "value")
        # the table and the selected row side by side (the detail wraps below on narrow screens)
        rows = W.HBox([self.table, self.detail], layout=W.Layout(flex_flow="row wrap", width="100%"))
        super().__init__([self.controls, self.banner, rows, self.tabs])
        self.add_class("wb-workbench")
        self._truth()
        if c.problems:
            self.banner.show("warning", "; ".join(c.problems))
        if recording is not None:
            self._guard(lambda: self.load_recording(recording), "recording")()

    # -- the error boundary ----------------------------------------------
    def _guard(self, fn, what: str, clear: bool = True):
        """``fn`` behind the error boundary; ``clear``: a new action clears the last error."""
        @functools.wraps(fn)
        def callback(*args, **kwargs: Any):
            try:
                if clear:
                    self.banner.clear()
                return fn(*args, **kwargs)
            except (Exception, KeyboardInterrupt) as e:
                self._failed(e, what)
                return None
        return callback

    def _failed(self, e: BaseException, what: str) -> None:
        self.banner.show_exception(e, what)
        try:
            self._sync()
        except Exception as again:  # shown under the first error, which it must not replace
            self.banner.value += (f"<div class='wb-banner-also'>redrawing the table then failed too: "
                                  f"{html.escape(type(again).__name__)}: "
                                  f"{html.escape(str(again).splitlines()[0] if str(again) else '')}</div>")
        self.controls.set_status(f"{what} failed; {len(self.model.rows)} rows kept")

    def _status(self, message: str, fraction: float | None = None) -> None:
        self.controls.set_status(message, fraction)

    # -- actions (the buttons call these; notebooks may too) ----------------
    def load(self) -> Workbench:
        """Load vLLM, fill the pickers with every registered parser name, build the session."""
        self._apply_inputs()
        self.model.ensure_session()
        listed = self.model.inputs.vllm or "installed"  # the version whose names the pickers list
        if self._loaded != listed:
            from workbench.lanes.lane_ui import names

            self.controls.fill_names(names(self.model.inputs.vllm, self._status))
            self._loaded = listed
        self._sync_diagram()
        self._status(self._summary())
        self._truth()
        return self

    def _apply_inputs(self) -> None:
        new = self.controls.read(self.model.inputs)
        if new.source != "recording":
            new = replace(new, prompt_token_ids=None)
        self.model.inputs = new

    def _begin(self) -> None:
        """Before stepping: the last error goes; a new stream loads and starts."""
        self.banner.clear()
        if self.model.source is None:
            self.load()
            self.model.start()
            self._started_with = self._settings()
            i = self.model.inputs
            self.controls.collapse(f"{self.model.label()} on {i.tokenizer} · {truth.vllm_of(i)} · "
                                   f"API {i.api} · {i.source}")

    def step(self, n: int = 1) -> list[Row]:
        self._begin()
        new = []
        for _ in range(n):
            new += self.model.step()
        self._sync()
        self._warn_if_changed()
        return new

    def run(self, every_s: float = 0.1) -> list[Row]:
        """To the end; the table shows the rows as they arrive (every ``every_s``)."""
        self._begin()
        last = [time.perf_counter()]

        def show(_rows) -> None:
            if time.perf_counter() - last[0] >= every_s:
                self._sync()
                last[0] = time.perf_counter()

        new = self.model.run(on_rows=show)
        self._sync()
        self._warn_if_changed()
        return new

    def reset(self) -> None:
        self.stop(quiet=True)
        self.banner.clear()
        self._started_with = None
        self.model.reset()
        self._apply_inputs()
        self._sync()
        self._status("reset: Step or Run to start the stream again")

    def replay(self) -> set[int]:
        """The same stream through the current pickers/config; changed rows are marked."""
        self.stop(quiet=True)
        self.banner.clear()
        self.load()
        changed = self.model.replay()
        self._started_with = self._settings()
        self._sync()
        self._status(f"replayed {len(self.model.rows)} deltas through "
                     f"{self.model.label()}: {len(changed)} rows changed")
        return changed

    def load_recording(self, path: str) -> None:
        self.stop(quiet=True)
        self.banner.clear()
        self._started_with = None
        notes = self.model.load_recording(path)
        self.controls.write(self.model.inputs)
        self._sync()
        self._status(f"recording {path}: {self.model.inputs.tokenizer}, "
                     f"{self.model.label()}; Step or Run to replay it")
        if notes:  # a cut stream, another tokenizer build, a changed config: as the CLI prints them
            self.banner.show("warning", "; ".join(notes))

    def save_recording(self, path: str, force: bool = False) -> int:
        """The stream so far (a recording in progress included) as a JSONL recording.
        An existing file is refused (WorkbenchError) unless ``force``."""
        from workbench.ui.inputs import check_path

        path = check_path(path, "save_recording(path)")
        n = self.model.save_recording(path, force)
        self._status(f"saved {n} deltas to {path}")
        return n

    def _on_recording(self, change: dict) -> None:
        if not self.controls.writing and change["new"] and change["new"] != self.model.inputs.recording:
            self.load_recording(change["new"])

    # -- read-outs for notebooks -----------------------------------------
    @property
    def rows(self) -> list[Row]:
        return self.model.rows

    @property
    def changed(self) -> list[int]:
        """Steps the last replay or reload changed (marked in the table)."""
        return sorted(self.model.changed)

    def describe(self) -> dict:
        """The composed parser (which vLLM classes) and what adjust_request decided
        (skip_special_tokens, the structured-output constraint for tool_choice)."""
        session = self.model.session or self.load().model.session
        return {"parser": session.parser_info, "request": session.request_view()}

    def frame(self, selected: bool = False):
        """The rows as a pandas DataFrame, one column per schema column (core/rows.py);
        ``selected``: only the rows selected in the table."""
        return to_frame(self.selected_rows if selected else self.model.rows)

    @property
    def step_button(self) -> W.Button:
        return self.controls.step_button

    @property
    def run_button(self) -> W.Button:
        return self.controls.run_button


DEFAULT_TEXT = ('<think>Weather is needed.</think>\n\n<tool_call>{"name": "get_weather", '
                '"arguments": {"city": "Paris"}}</tool_call>')
