"""The control panel: pickers, editors, buttons, the status lines. Reads/writes ``Inputs``.

The pickers sit in a grid of three columns; the fields of a source show only while that
source is picked (the recording picker for "recording", the model for "engine", the URL
and request for "server"), so a fresh widget with its settings open stays short. Two
lines below the buttons: what runs (``truth.running``) and what the last action did.
"""

from __future__ import annotations

import html
import json
from dataclasses import replace

import ipywidgets as W

from workbench.core.faces import APIS
from workbench.errors import WorkbenchError
from workbench.ui.choices import NO_VALUE, config_files, json_of, options, pick, recording_files, tokenizer_names
from workbench.ui.inputs import SOURCES, TOOL_CHOICES, Inputs

_STYLE = {"description_width": "76px"}
_CELL = W.Layout(width="auto", min_width="0")
_BUTTON = {"width": "auto", "min_width": "76px"}
HELP = ("<div class='wb-help'><b>The widget in short.</b> Step / Run stream the deltas through "
        "vLLM's parsers; each row is one delta. <b>Colours go by field</b>: a reasoning, content or "
        "tool-call cell is tinted where the parser returned a value; the band at the left of "
        "<i>phase</i> is where the parser was; italic rows send no SSE chunk. Click a row, or j/k, "
        "for its detail; shift/ctrl-click select more, and <b>Ctrl+C</b> copies their JSON (so does "
        "<i>Copy JSON</i> in the detail). <i>columns ▾</i> hides columns; drag a header's edge to "
        "resize (kept for this notebook). <i>Save</i> writes the stream as a recording. "
        "The first line under the buttons says what runs: which parser class, from where, on which "
        "vLLM, for which API, on which stream. Full tour: the README, section "
        "<i>The widget</i>{link}.</div>")


def _box(widget: W.Widget) -> W.Widget:
    widget.layout = W.Layout(width="auto", min_width="0")
    widget.style = _STYLE
    return widget


class Controls(W.VBox):
    def __init__(self, inputs: Inputs, readme_link: str = "") -> None:
        self.problems: list[str] = []  # shown in the widget's banner
        try:
            names = tokenizer_names()
        except Exception as e:  # the picker still works with the given name; say why it is alone
            names = []
            self.problems.append(f"the tokenizer list could not be read ({type(e).__name__}: {e}); "
                                 f"only {inputs.tokenizer!r} is offered")
        self.tokenizer = _box(W.Dropdown(options=sorted(set(names) | {inputs.tokenizer}), description="tokenizer"))
        self.tool_parser = _box(W.Dropdown(options=options([], inputs.tool_parser), description="tool parser"))
        self.reasoning_parser = _box(W.Dropdown(options=options([], inputs.reasoning_parser),
                                                description="reasoning"))
        self.config = _box(W.Dropdown(options=options(config_files(), inputs.config), description="config"))
        from workbench.lanes.lane_ui import choices as vllm_choices

        # the installed version is "" (a Dropdown whose value is None draws a blank box)
        self.vllm = _box(W.Dropdown(options=[(label, v or NO_VALUE) for label, v in vllm_choices()],
                                    description="vLLM", tooltip="whose parsers run: the installed vLLM, or a lane's"))
        self.api = _box(W.Dropdown(options=list(APIS), description="API",
                                   tooltip="whose client reads the stream: Chat Completions, Responses, "
                                           "Anthropic Messages"))
        self.tool_choice = _box(W.Combobox(options=list(TOOL_CHOICES), placeholder="default (auto with tools)",
                                           description="tool_choice", ensure_option=False))
        self.chunking = _box(W.Text(description="chunking", placeholder="token | k:N | random:SEED"))
        self.source = W.ToggleButtons(options=list(SOURCES), description="source",
                                      style={"button_width": "80px", "description_width": "52px"})
        self.recording = _box(W.Dropdown(options=options(recording_files(), inputs.recording),
                                         description="recording"))
        self.model = _box(W.Text(description="model", placeholder="the embedded tiny model"))
        self.server_url = _box(W.Text(description="server", placeholder="http://HOST:PORT/v1"))
        self.server_request = W.Textarea(description="request", placeholder='{"model": …, "vllm_xargs": …}',
                                         layout=W.Layout(flex="1 1 0", height="64px", min_width="0"), style=_STYLE)
        self.text = W.Textarea(description="script", layout=W.Layout(flex="2 1 0", height="64px", min_width="0"),
                               style=_STYLE)
        self.messages = W.Textarea(description="messages", layout=W.Layout(flex="1 1 0", height="64px",
                                                                           min_width="0"), style=_STYLE)
        self.tools = W.Textarea(description="tools", placeholder="[] (OpenAI tools JSON)",
                                layout=W.Layout(flex="1 1 0", height="64px", min_width="0"), style=_STYLE)
        self.step_button = W.Button(description="Step", icon="step-forward", button_style="primary", layout=_BUTTON)
        self.run_button = W.Button(description="Run", icon="play", layout=_BUTTON)
        self.reset_button = W.Button(description="Reset", icon="undo", layout=_BUTTON)
        self.replay_button = W.Button(description="Replay", icon="refresh", layout=_BUTTON,
                                      tooltip="the same recorded stream through the current settings")
        self.stop_button = W.Button(description="Stop", icon="stop", disabled=True, layout=_BUTTON,
                                    tooltip="stop a Run after the row in progress")
        self.save_path = W.Text(placeholder="stream.jsonl", layout=W.Layout(width="150px"),
                                tooltip="the recording's file name")
        self.save_button = W.Button(description="Save", icon="save", layout=W.Layout(width="auto"),
                                    tooltip="the stream so far as a JSONL recording (an existing file is asked about)")
        self.overwrite_button = W.Button(description="Overwrite", icon="exclamation-triangle",
                                         button_style="warning", layout=W.Layout(width="auto", display="none"))
        self.help_button = W.ToggleButton(description="Help", icon="question-circle", layout=W.Layout(width="auto"))
        self.help = W.HTML(HELP.format(link=readme_link), layout=W.Layout(display="none"))
        self.help_button.observe(lambda ch: setattr(self.help.layout, "display", None if ch["new"] else "none"),
                                 "value")
        self.truth = W.HTML("")
        self.status = W.HTML("<span class='wb-status'>idle: nothing loaded yet (Step loads vLLM)</span>")
        self.progress = W.FloatProgress(value=0, min=0, max=1, layout=W.Layout(width="160px", visibility="hidden"))
        self.per_source = W.VBox([], layout=_CELL)
        self.texts = W.HBox([self.text, self.messages, self.tools], layout=W.Layout(width="100%"))
        self.write(inputs)
        self.source.observe(lambda _: self._show_source_fields(), "value")
        self._show_source_fields()
        grid = W.GridBox([W.VBox([self.tokenizer, self.tool_parser, self.reasoning_parser, self.config], layout=_CELL),
                          W.VBox([self.vllm, self.api, self.tool_choice, self.chunking], layout=_CELL),
                          W.VBox([self.source, self.per_source], layout=_CELL)],
                         layout=W.Layout(grid_template_columns="minmax(0, 1fr) minmax(0, 1fr) minmax(0, 1.3fr)",
                                         width="100%",
                                         grid_gap="0 8px"))
        self.settings = W.Accordion([W.VBox([grid, self.texts])],
                                    titles=("settings: parsers, API, source, script and request",),
                                    selected_index=0, layout=W.Layout(width="99%"))
        spacer = W.Box(layout=W.Layout(flex="1 1 auto"))
        buttons = W.HBox([self.step_button, self.run_button, self.stop_button, self.reset_button,
                          self.replay_button, self.progress, spacer, self.save_path, self.save_button,
                          self.overwrite_button, self.help_button], layout=W.Layout(width="99%", flex_flow="row wrap"))
        super().__init__([self.settings, buttons, self.help, self.truth, self.status])
        self.add_class("wb-controls")

    def _show_source_fields(self) -> None:
        """Only the fields of the picked source."""
        extra = {"recording": [self.recording], "engine": [self.model], "server": [self.server_url]}
        with self.hold_sync():
            self.per_source.children = extra.get(self.source.value, [])
            self.texts.children = [self.text, self.messages, self.tools] + \
                ([self.server_request] if self.source.value == "server" else [])

    def collapse(self, summary: str) -> None:
        """Fold the settings away (after the first Step); the title keeps what they say."""
        with self.hold_sync():
            self.settings.set_title(0, f"settings: {summary}")
            self.settings.selected_index = None

    @property
    def values(self) -> list[W.Widget]:
        """The widgets whose values make up ``Inputs``."""
        return [self.tokenizer, self.tool_parser, self.reasoning_parser, self.config,
                self.tool_choice, self.source, self.recording, self.chunking, self.model,
                self.text, self.messages, self.tools, self.server_url, self.server_request, self.vllm,
                self.api]

    @property
    def buttons(self) -> list[W.Button]:
        return [self.step_button, self.run_button, self.stop_button, self.reset_button,
                self.replay_button]

    writing = False  # observers ignore changes made by fill_names/write

    def fill_names(self, names: dict[str, list[str]]) -> None:
        """Every registered name, once vLLM is loaded."""
        self.writing = True
        try:
            for dd, kind in ((self.tool_parser, "tool"), (self.reasoning_parser, "reasoning")):
                current = dd.value or None
                dd.options = options(names[kind], current)
                dd.value = current or NO_VALUE
        finally:
            self.writing = False

    def write(self, i: Inputs) -> None:
        self.writing = True
        try:
            self._write(i)
        finally:
            self.writing = False

    def _write(self, i: Inputs) -> None:
        with self.hold_sync():
            for dd, value in ((self.tool_parser, i.tool_parser), (self.reasoning_parser, i.reasoning_parser),
                              (self.config, i.config), (self.recording, i.recording)):
                pick(dd, value)
            if i.tokenizer not in self.tokenizer.options:
                self.tokenizer.options = list(self.tokenizer.options) + [i.tokenizer]
            self.tokenizer.value = i.tokenizer
            vllm = i.vllm or NO_VALUE
            if vllm not in [v for _, v in self.vllm.options]:
                self.vllm.options = list(self.vllm.options) + [(vllm, vllm)]
            self.vllm.value = vllm
            self.api.value = i.api
            self.tool_choice.value = i.tool_choice or ""
            self.source.value = i.source
            self.chunking.value = i.chunking
            self.model.value = i.model or ""
            self.text.value = i.text
            self.messages.value = json.dumps(i.messages, ensure_ascii=False)
            self.tools.value = json.dumps(i.tools, ensure_ascii=False) if i.tools is not None else ""
            self.server_url.value = i.server_url
            self.server_request.value = (json.dumps(i.server_request, ensure_ascii=False)
                                         if i.server_request else "")

    def read(self, base: Inputs) -> Inputs:
        """The controls as Inputs; bad JSON raises WorkbenchError naming the editor."""
        messages = json_of(self.messages.value, "messages")
        if not isinstance(messages, list):
            raise WorkbenchError("messages: expected a JSON list of chat messages")
        tools = json_of(self.tools.value, "tools")
        if tools is not None and not isinstance(tools, list):
            raise WorkbenchError("tools: expected a JSON list of tools")
        server_request = json_of(self.server_request.value, "server request")
        if server_request is not None and not isinstance(server_request, dict):
            raise WorkbenchError("server request: expected a JSON object of request fields")
        return replace(base, server_url=self.server_url.value.strip(), server_request=server_request,
                       tokenizer=self.tokenizer.value, tool_parser=self.tool_parser.value or None,
                       reasoning_parser=self.reasoning_parser.value or None,
                       config=self.config.value or None,
                       tool_choice=self.tool_choice.value.strip() or None, source=self.source.value,
                       recording=self.recording.value or None, chunking=self.chunking.value.strip() or "token",
                       model=self.model.value.strip() or None, text=self.text.value,
                       messages=messages, tools=tools, vllm=self.vllm.value or None, api=self.api.value)

    def set_status(self, message: str, fraction: float | None = None, kind: str = "") -> None:
        """The last action's line (``kind`` "refused": a setting that cannot apply)."""
        with self.hold_sync():
            cls = f"wb-status wb-status-{kind}" if kind else "wb-status"
            mark = "⚠ " if kind == "refused" else ""
            self.status.value = f"<span class='{cls}'>{mark}{html.escape(message)}</span>"
            if fraction is None:
                self.progress.layout.visibility = "hidden"
            else:
                self.progress.layout.visibility = "visible"
                self.progress.value = max(0.0, min(1.0, fraction))

    def set_truth(self, line: str, waiting: list[str]) -> None:
        """What runs; ``waiting``: settings changed since, which Replay or Reset applies."""
        tail = (f" · <span class='wb-pending'>changed, not applied yet: {html.escape(', '.join(waiting))} "
                f"(Replay or Reset applies them)</span>" if waiting else "")
        self.truth.value = f"<span class='wb-truth'>{html.escape(line)}</span>{tail}"
