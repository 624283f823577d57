"""``Workbench``: the notebook widget, a thin layer over one ``Controller``.

The controller owns the one state (``ui/state.py``); every button, picker and method here
sends it an action (a transition, ``ui/transitions.py``, ``settings.py``, ``tools.py``,
``diagnose.py``) and every panel is drawn from the state it returns (``ui/screen.py``).
A button's failure is the banner's one line (its traceback behind a fold when it is a bug);
a method called from a cell shows it too, and raises it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import ipywidgets as W

from workbench.core.rows import to_frame
from workbench.ui import plugin_editor as P, screen, settings as S, takeaway, tools, transitions as T, views, wiring
from workbench.ui.ab import ABPanel
from workbench.ui.ab_apis import label as spec_label
from workbench.ui.check import CheckPanel
from workbench.ui.controller import Controller
from workbench.ui.controls import Controls
from workbench.ui.detail import RowDetail
from workbench.ui.diagram import StateDiagram
from workbench.ui.doctor_panel import DoctorPanel
from workbench.ui.editor import ConfigEditor
from workbench.ui.final_panel import FinalPanel
from workbench.ui.inputs import DEFAULT_TEXT, Inputs, check_height, check_recording, given, with_model
from workbench.ui.panels import Banner
from workbench.ui.state import ABSpecs, Editor, State, start
from workbench.ui.table import DeltaTable

if TYPE_CHECKING:
    from workbench.core.rows import Row

TABS = ("final message", "state machine", "check", "diagnose", "parser editor", "A/B")


class Workbench(W.VBox):
    """Step a stream of deltas through vLLM's parsers and watch every row.

    Parameters mirror ``Inputs``: ``text`` (what the model writes), or ``recording`` (a
    JSONL recording), or ``source="engine"``; ``tool_parser``, ``reasoning_parser`` or
    ``config``; ``tools``, ``messages``, ``tool_choice``; ``api`` (chat, responses, messages:
    whose client reads the stream); ``vllm`` (a lane's version); for the engine, ``model``
    ("smollm2" or an HF folder: its tokenizer, free generation, ``max_tokens`` 64 unless given)
    and ``temperature``, ``top_p``, ``top_k``, ``max_tokens``, ``seed``. ``wb.state`` is what it shows.
    """

    def __init__(self, text: str | None = None, *, recording: str | None = None,
                 height: int = 300, **inputs: Inputs) -> None:
        base = with_model(given(text or "", inputs), inputs)
        height = check_height(height)
        recording = check_recording(recording)
        if text is None and not base.model:  # the seed's script, a recording's widget too (the text and
            base = replace(base, text=DEFAULT_TEXT)  # engine sources'); text="" or a real model: free generation
        self.controls = c = Controls(base, views.help_page())
        self.banner = Banner()
        # a wide screen's spare width goes mostly to the rows (their cut columns widen), a
        # quarter of it to the detail beside them
        self.table = DeltaTable(height, wrap=True, detail=True, layout=W.Layout(flex="3 1 600px", min_width="0"))
        self.detail = RowDetail()
        self.final, self.diagram, self.checks = FinalPanel(), StateDiagram(), CheckPanel()
        self.doctor_panel, self.editor = DoctorPanel(), ConfigEditor()
        self.ab = ABPanel()
        self.tabs = W.Tab([self.final, self.diagram, self.checks, self.doctor_panel, self.editor, self.ab],
                          titles=TABS)
        editor = Editor(text=S.config_text_of(base.config), file=base.config) if base.config else Editor(S.TOML_START)
        state = replace(start(base), editor=editor, notes=tuple(c.problems),
                        ab_specs=ABSpecs(a=base.config or spec_label("", base.parser())))
        self._ctl = Controller(state)
        self._ctl.subscribe(lambda old, new: self._render(old, new))
        self._ctl.progress.append(lambda message, fraction: c.set_status(message, fraction))
        wiring.wire(self)
        rows = W.HBox([self.table, self.detail], layout=W.Layout(flex_flow="row wrap", width="100%"))
        super().__init__([c, self.banner, rows, self.tabs])
        self.add_class("wb-workbench")
        self._render(None, state)
        screen.after_cells(self)
        if recording is not None:
            self.send("recording", T.load_recording, str(recording))

    def _do(self, action: str, fn, *args, raise_errors: bool = True) -> State:
        ends_run = fn in (T.reset, T.replay, T.load_recording, tools.show_grouping, tools.replay_minimal,
                          P.reload_config, S.editor_off, P.reload, P.reload_plugin)  # a new stream: the Run ends first
        return self._ctl.do(action, fn, *args, raise_errors=raise_errors, ends_run=ends_run)

    def send(self, action: str, fn, *args, raise_errors: bool = False) -> State:
        """An action of a control (or of this package's modules): ``fn(state, runtime, *args)
        -> state`` run by the controller, the one writer; its failure is the banner's line
        (``raise_errors``: raised too, for a method called from a cell)."""
        return self._do(action, fn, *args, raise_errors=raise_errors)

    def run_clicked(self) -> None:
        """The Run button: the Run slices on the kernel's event loop, so rows stream in and
        Stop is heard (synchronous where no loop runs); a click while it runs does nothing."""
        self._ctl.run_button()

    rendering = False  # the controls' echoes of a drawing are not the user's actions

    def _render(self, old: State | None, new: State) -> None:
        self.rendering = True
        try:
            screen.render(self, old, new)
        except Exception as e:  # shown under the error it may follow, which it must not replace
            import html

            if self.banner.value:
                first = str(e).splitlines()[0] if str(e) else ""
                self.banner.value += (f"<div class='wb-banner-also'>redrawing the widget then failed too: "
                                      f"{html.escape(type(e).__name__)}: {html.escape(first)}</div>")
            else:
                self.banner.show_exception(e, "redrawing the widget")
        finally:
            self.rendering = False

    # -- the state and what it holds ----------------------------------------------
    @property
    def state(self) -> State:
        return self._ctl.state

    @property
    def rows(self) -> list[Row]:
        return list(self.state.stream.rows)

    @property
    def changed(self) -> list[int]:
        """Steps the last replay or reload changed (marked in the table)."""
        return sorted(self.state.stream.changed)

    @property
    def running(self) -> bool:
        return self._ctl.running

    @property
    def run_slice_s(self) -> float:
        return self._ctl.run_slice_s

    @run_slice_s.setter
    def run_slice_s(self, seconds: float) -> None:
        self._ctl.run_slice_s = seconds

    @property
    def step_button(self) -> W.Button:
        return self.controls.step_button

    @property
    def run_button(self) -> W.Button:
        return self.controls.run_button

    # -- actions (the buttons send these too) -------------------------------------
    def load(self) -> Workbench:
        """Load vLLM, fill the pickers with every registered parser name, compose the parser."""
        self._do("load", T.load)
        return self

    def step(self, n: int = 1) -> list[Row]:
        before = self.state.stream.id, len(self.state.stream.rows)
        s = self._do("Step", T.step, n)
        return list(s.stream.rows[before[1] if s.stream.id == before[0] else 0:])

    def run(self, every_s: float = 0.1, raise_errors: bool = True) -> list[Row]:
        """To the end; the table shows the rows as they arrive (every ``every_s``);
        ``raise_errors=False``: a failure is the banner's line only."""
        before = self.state.stream.id, len(self.state.stream.rows)
        s = self._ctl.run(every_s, raise_errors=raise_errors)
        return list(s.stream.rows[before[1] if s.stream.id == before[0] else 0:])

    def stop(self) -> None:
        self._ctl.stop()

    def reset(self) -> None:
        self._do("Reset", T.reset)

    def replay(self) -> set[int]:
        """The stream through the current settings (or a new stream, when they make other
        deltas); the changed steps."""
        return set(self._do("Replay", T.replay).stream.changed)

    def load_recording(self, path: str) -> None:
        self._do("recording", T.load_recording, str(path))

    def select(self, step: int | None) -> Row | None:
        return self._do("row", T.select, step).row

    def goto_divergence(self) -> Row | None:
        f = self.state.final
        return self.select(f.first_step if f is not None else None)

    def describe(self) -> dict:
        """The composed parser (which vLLM classes) and what adjust_request decided
        (skip_special_tokens, the structured-output constraint for tool_choice)."""
        rt = self._ctl.rt
        session = rt.stream_session if self.state.stream.started else None
        if session is None:
            self.load()
            session = rt.session
        return {"parser": session.parser_info, "request": session.request_view()}

    def frame(self, selected: bool = False):
        """The rows as a pandas DataFrame, one column per schema column (core/rows.py), the
        tokens decoded as the table shows them (the detail has the byte-level form too);
        ``selected``: only the rows selected in the table."""
        rows = self.selected_rows if selected else self.rows
        frame = to_frame(rows)
        decode = screen.decoder(self.state)
        if decode is not None and "tokens" in frame.columns:
            frame["tokens"] = [[decode(t) for t in r.token_ids] for r in rows]
        return frame

    # -- tools ----------------------------------------------------------------
    def check(self, fuzz: int | None = None, jobs: int = 1, shrink_budget_s: float = 5.0,
              text_budget_s: float = 5.0):
        """``workbench.check.check`` on the stream on screen; returns its Report."""
        return self._do("Check", tools.check, fuzz, jobs, shrink_budget_s, text_budget_s).check.value

    def show_grouping(self, label: str | None = None) -> list[Row]:
        """The stream grouped as ``label`` (a ``--chunking`` name; default: check's minimal grouping)."""
        return list(self._do("grouping", tools.show_grouping, label).stream.rows)

    def minimal_text(self) -> str | None:
        return tools.minimal_text(self.state)

    def replay_minimal(self) -> list[Row]:
        return list(self._do("minimal text", tools.replay_minimal).stream.rows)

    def minimal_workbench(self) -> Workbench:
        """Check's minimal text streamed in a widget of its own (this one keeps its stream)."""
        from dataclasses import asdict

        from workbench.errors import WorkbenchError

        text = self.minimal_text()
        if text is None:
            raise WorkbenchError("no minimal text yet: run Check first")
        inputs = asdict(self.state.applied) | {"source": "text", "recording": None, "prompt_token_ids": None}
        del inputs["text"]
        small = type(self)(text, **inputs)
        small.run()
        return small

    def export(self, path: str | None = None):
        """A standalone pytest file for this case (it fails while the bug is there)."""
        import html

        path = path if path is not None else self.checks.export_path.value
        self.checks.export_path.value = path
        out = {}

        def run(s, rt):
            new, out["written"], out["failures"] = tools.export(s, rt, path)
            return new
        s = self._do("Export", run)
        self.checks.exported.value = html.escape(s.outcome.message)
        return out["written"]

    def compare(self, a: str | None = None, b: str | None = None, api_a: str | None = None,
                api_b: str | None = None):
        """Both specs over the stream on screen, each on its API; ``core.diff.DiffResult``.
        A spec is ``tool+reasoning`` names (``@VERSION``: a lane's), a ``.toml`` path, or
        ``editor`` (the editor's active config)."""
        specs = self.ab.specs()
        specs = ABSpecs(a if a is not None else specs.a, b if b is not None else specs.b,
                        api_a or specs.api_a, api_b or specs.api_b)
        return self._do("A/B", tools.compare, specs).ab.value

    def reload_config(self, text: str | None = None) -> list:
        """Replay the stream through the config ``text`` (default: the editor's TOML); its
        problems ([]: it is the parser now; else nothing changed and they show beside the editor)."""
        s = self._do("editor", P.reload_config, text)
        return list(s.editor.problems)

    def reload_plugin(self, text: str | None = None) -> str | None:
        """Replay the stream through the plugin ``text`` (default: the editor's Python): None
        when its parser runs now, else the one-line error (the last good parser stays)."""
        s = self._do("editor", P.reload_plugin, text)
        return str(s.editor.problems[0]) if s.editor.problems else None

    def editor_off(self) -> None:
        self._do("editor", S.editor_off)

    def diagnose(self, versions: bool | None = None):
        """``workbench doctor`` on the stream on screen: the Diagnose tab's ``DoctorReport``."""
        from workbench.ui import diagnose as D

        ask = self.doctor_panel.versions.value if versions is None else versions
        return self._do("Diagnose", D.diagnose, ask).doctor.value

    def replay_doctor_grouping(self) -> list[Row]:
        from workbench.ui.doctor_panel import minimal_grouping

        r = self.state.doctor
        return self.show_grouping(minimal_grouping(r.value) if r is not None else None)


    # -- take away (ui/takeaway.py) ----------------------------------------------
    def save_recording(self, path: str, force: bool = False) -> int:
        """The stream so far (a recording in progress included) as a JSONL recording; an
        existing file is refused (WorkbenchError) unless ``force``."""
        return takeaway.save_recording(self, path, force)

    @property
    def selected_rows(self) -> list[Row]:
        """The rows selected in the table (shift/ctrl-click), or the one selected."""
        return takeaway.selected_rows(self)

    def copy_rows(self) -> int:
        """The selected rows' JSON (one line each, as ``--json``) on the browser's clipboard."""
        return takeaway.copy_rows(self)

    def download_rows(self) -> int:
        """The selected rows (every row when none is) as a JSONL file from the browser."""
        return takeaway.download_rows(self)

    def to_jsonl(self, path: str, selected: bool = True, force: bool = False) -> int:
        """The selected rows (``selected=False``: all) as JSON lines in ``path``; an existing
        file only with ``force``."""
        return takeaway.to_jsonl(self, path, selected, force)

    def download_report(self, which: str = "report") -> str:
        """The Diagnose tab's ``--report`` markdown (``which`` "test": its pytest file) as a
        download from the browser; its file name."""
        return takeaway.download_report(self, which)

    def doctor_report(self, path: str, force: bool = False) -> list[str]:
        """The Diagnose tab's report written as `workbench doctor --report PATH` writes it:
        PATH and test_STEM.py beside it (existing files only with ``force``)."""
        return takeaway.doctor_report(self, path, force)
