"""The control panel: pickers, boxes, buttons and the two status lines, drawn from the state.

``render(state)`` sets every picker and box to the state's settings (a box keeps the text
being typed while it means the same value), the buttons to what can run now, the first line
to what runs (``views.pending_html``), the second to what the last action did. A change
by the user goes to ``on_setting(name, value)``; nothing here decides anything.

The pickers sit in a grid of three columns; the fields of a source show only while that
source is picked, so a fresh widget with its settings open stays short.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable

import ipywidgets as W

from workbench.core.faces import APIS
from workbench.ui import views
from workbench.ui.choices import NO_VALUE, config_files, options, pick, recording_files, tokenizer_names
from workbench.ui.inputs import SAMPLING_FIELDS, SOURCES, TOOL_CHOICES, Inputs
from workbench.ui.state import State

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
        "The first line under the buttons says what made the rows on screen: which parser class, "
        "from where, on which vLLM, for which API, on which stream; a setting changed since is "
        "listed after it until Replay or Reset applies it. The whole page is below (docs/widget-guide.md in the "
        "repository; JupyterLab serves no file outside the folder it started in, so it is shown here).</div>")
# settings field -> the control's attribute
FIELDS = ("tokenizer", "tool_parser", "reasoning_parser", "config", "vllm", "api", "tool_choice", "chunking",
          "source", "recording", "model", *SAMPLING_FIELDS, "server_url", "server_request", "text", "messages", "tools")
JSON_FIELDS = ("messages", "tools", "server_request")
SAMPLING_BOXES = (  # name, placeholder, tooltip
    ("temperature", "1.0", "0 picks the likeliest token; higher spreads the choice (request.temperature)"),
    ("top_p", "1.0", "sample from the smallest set of tokens whose probability reaches this (0 < p <= 1)"),
    ("top_k", "all", "sample from the k likeliest tokens only (-1 or empty: all)"),
    ("max_tokens", "no limit", "the request's max_tokens: the Run stops after this many tokens"),
    ("seed", "random", "the same seed gives the same rows again"),
)


def _box(widget: W.Widget) -> W.Widget:
    widget.layout = W.Layout(width="auto", min_width="0")
    widget.style = _STYLE
    return widget


def _area(description: str, flex: str, placeholder: str = "") -> W.Textarea:
    return W.Textarea(description=description, placeholder=placeholder, style=_STYLE,
                      layout=W.Layout(flex=flex, height="88px", min_width="220px"))  # five lines; drag to grow


def shown_value(name: str, value) -> object:
    """A setting as its control shows it."""
    if name in JSON_FIELDS:
        return "" if value is None else json.dumps(value, ensure_ascii=False)
    if name in ("tool_choice", "model") or name == "server_url":
        return value or ""
    if name in SAMPLING_FIELDS:
        return "" if value is None else str(value)
    return value


class Controls(W.VBox):
    def __init__(self, inputs: Inputs, help_page: str = "") -> None:
        """``help_page``: the widget's page as HTML, shown under the short help."""
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
        self.tool_choice = _box(W.Combobox(options=list(TOOL_CHOICES), placeholder="default: auto",
                                           description="tool_choice", ensure_option=False,
                                           tooltip="empty: the request's default (auto with tools, else none)"))
        self.chunking = _box(W.Text(description="chunking", placeholder="token, k:N, random:N",
                                    tooltip="how tokens group into deltas: token (one a delta), whole, k:N, "
                                            "random:SEED[:MAX], split:K, merge:A-B, at:I,J or holdback:D"))
        self.source = W.ToggleButtons(options=list(SOURCES), description="source",
                                      style={"button_width": "auto", "description_width": "auto"})
        self.recording = _box(W.Dropdown(options=options(recording_files(), inputs.recording),
                                         description="recording"))
        self.model = _box(W.Text(description="model", placeholder="the embedded tiny model",
                                 tooltip='"smollm2" or an HF model folder: it samples, under the grammar'))
        # a real model's sampling (the tiny model's tokens are forced by the script): "" is the default
        for name, hint, tip in SAMPLING_BOXES:
            setattr(self, name, _box(W.Text(description=name, placeholder=hint, tooltip=tip)))
        self.sampling = W.GridBox([getattr(self, name) for name, _, _ in SAMPLING_BOXES],
                                  layout=W.Layout(grid_template_columns="repeat(2, minmax(0, 1fr))", width="auto",
                                                  grid_gap="0 4px"))
        self.sampling.add_class("wb-sampling")
        self.server_url = _box(W.Text(description="server", placeholder="http://HOST:PORT/v1"))
        self.server_request = _area("request", "1 1 0", '{"model": …, "vllm_xargs": …}')
        self.text = _area("script", "2 1 0", "what the model writes")
        self.seed_button = W.Button(description="seed script", icon="seedling",
                                    layout=W.Layout(width="auto", align_self="flex-start"),
                                    tooltip="the seed's script in the script box (Replay or Reset runs it)")
        self.messages = _area("messages", "1 1 0")
        self.tools = _area("tools", "1 1 0", "[] (OpenAI tools JSON)")
        self.step_button = W.Button(description="Step", icon="step-forward", button_style="primary", layout=_BUTTON)
        self.run_button = W.Button(description="Run", icon="play", layout=_BUTTON)
        self.reset_button = W.Button(description="Reset", icon="undo", layout=_BUTTON)
        self.replay_button = W.Button(description="Replay", icon="refresh", layout=_BUTTON,
                                      tooltip="the same stream through the current settings (another "
                                              "script, recording or grouping: a new stream from them)")
        self.stop_button = W.Button(description="Stop", icon="stop", disabled=True, layout=_BUTTON,
                                    tooltip="stop a Run after the row in progress")
        self.save_path = W.Text(placeholder="stream.jsonl", layout=W.Layout(width="150px"),
                                tooltip="the recording's file name")
        self.save_button = W.Button(description="Save", icon="save", layout=W.Layout(width="auto"),
                                    tooltip="the stream so far as a JSONL recording (an existing file is asked about)")
        self.overwrite_button = W.Button(description="Overwrite", icon="exclamation-triangle",
                                         button_style="warning", layout=W.Layout(width="auto", display="none"))
        self.help_button = W.ToggleButton(description="Help", icon="question-circle", layout=W.Layout(width="auto"))
        self.help = W.HTML("", layout=W.Layout(display="none"))  # filled at the first click: a page
        self.help.add_class("wb-help-page")                       # per widget is state a reload carries
        self._help_page = help_page
        self.help_button.observe(self._toggle_help, "value")
        self.truth = W.HTML("")
        self.status = W.HTML("<span class='wb-status'>idle: nothing loaded yet (Step loads vLLM)</span>")
        self.progress = W.FloatProgress(value=0, min=0, max=1, layout=W.Layout(width="160px", visibility="hidden"))
        self.per_source = W.VBox([], layout=_CELL)
        self.texts = W.HBox([self.text, self.messages, self.tools],
                            layout=W.Layout(width="100%", flex_flow="row wrap"))
        self.writing = False  # render's own changes, which the observers ignore
        self._shown: dict[str, object] = {}  # what each control shows, as a setting
        self._drawn: State | None = None
        self.names_for: object = False  # the vLLM version whose parser names the pickers list
        grid = W.GridBox([W.VBox([self.tokenizer, self.tool_parser, self.reasoning_parser, self.config], layout=_CELL),
                          W.VBox([self.vllm, self.api, self.tool_choice, self.chunking], layout=_CELL),
                          W.VBox([self.source, self.per_source], layout=_CELL)],
                         layout=W.Layout(grid_template_columns="minmax(0, 1fr) minmax(0, 1fr) minmax(0, 1.3fr)",
                                         width="100%", grid_gap="0 8px"))
        self.settings = W.Accordion([W.VBox([grid, self.texts])], titles=("settings: parsers, API, source, script and request",),
                                    selected_index=0, layout=W.Layout(width="99%"))
        spacer = W.Box(layout=W.Layout(flex="1 1 auto"))
        buttons = W.HBox([self.step_button, self.run_button, self.stop_button, self.reset_button,
                          self.replay_button, self.progress, spacer, self.save_path, self.save_button,
                          self.overwrite_button, self.help_button], layout=W.Layout(width="99%", flex_flow="row wrap"))
        super().__init__([self.settings, buttons, self.help, self.truth, self.status])
        self.add_class("wb-controls")

    def _toggle_help(self, change: dict) -> None:
        if change["new"] and not self.help.value:
            self.help.value = HELP + self._help_page
        self.help.layout.display = None if change["new"] else "none"

    def on_setting(self, callback: Callable[[str, object], None]) -> None:
        """``callback(field, value)`` when the user changes a control."""
        for name in FIELDS:
            widget = getattr(self, name)

            def changed(change, name=name) -> None:
                if self.writing:
                    return
                value = change["new"]
                self._shown[name] = value if name not in JSON_FIELDS else ("typed", value)
                callback(name, value)
            widget.observe(changed, "value")

    @property
    def values(self) -> list[W.Widget]:
        """The widgets whose values make up the settings."""
        return [getattr(self, name) for name in FIELDS]

    @property
    def buttons(self) -> list[W.Button]:
        return [self.step_button, self.run_button, self.stop_button, self.reset_button, self.replay_button]

    def fill_names(self, names: dict[str, list[str]]) -> None:
        """Every registered name of the vLLM in use (once it is loaded)."""
        self.writing = True
        try:
            for dd, kind in ((self.tool_parser, "tool"), (self.reasoning_parser, "reasoning")):
                current = dd.value or None
                dd.options = options(names[kind], current)
                dd.value = current or NO_VALUE
        finally:
            self.writing = False

    # -- drawing ---------------------------------------------------------
    def render(self, s: State) -> None:
        old = self._drawn
        self._drawn = s
        with self.hold_sync():
            refused = s.outcome.kind == "refused" and (old is None or s.outcome is not old.outcome)
            if old is None or s.settings is not old.settings or s.drafts is not old.drafts or refused:
                self._write(s)  # a refused pick goes back to the settings' value
            if old is None or s.running != old.running:
                self.step_button.disabled = self.run_button.disabled = self.replay_button.disabled = s.running
                self.stop_button.disabled = not s.running
            if old is None or s.stream.started != old.stream.started or s.stream.applied is not old.stream.applied:
                self.settings.set_title(0, views.settings_title(s))
                if s.stream.started and (old is None or not old.stream.started):
                    self.settings.selected_index = None  # folded after the first Step; the title says what runs
            truth = views.pending_html(s)
            if truth != self.truth.value:
                self.truth.value = truth
            line, kind = views.status_line(s)
            self.set_status(line, s.outcome.progress if s.running else None, kind)

    def _write(self, s: State) -> None:
        self.writing = True
        try:
            i = s.settings
            for name in FIELDS:
                value = getattr(i, name)
                if name in s.drafts:
                    text, _ = s.drafts[name]
                    if getattr(self, name).value != text:
                        getattr(self, name).value = text
                    continue
                if name in JSON_FIELDS and self._shown.get(name) == ("typed", getattr(self, name).value) \
                        and _parses_to(getattr(self, name).value, value):
                    continue  # the text being typed means this value: left as typed
                self._set(name, value)
                self._shown[name] = value
            self._show_source_fields(i.source)
        finally:
            self.writing = False

    def _set(self, name: str, value) -> None:
        widget = getattr(self, name)
        if name in ("tool_parser", "reasoning_parser", "config", "recording"):
            pick(widget, value)
        elif name == "tokenizer":
            if value not in widget.options:
                widget.options = list(widget.options) + [value]
            widget.value = value
        elif name == "vllm":
            v = value or NO_VALUE
            if v not in [x for _, x in widget.options]:
                widget.options = list(widget.options) + [(v, v)]
            widget.value = v
        else:
            from workbench.ui.settings import normal

            if normal(name, widget.value) != value:  # a box being typed in keeps its spaces
                widget.value = shown_value(name, value)

    def _show_source_fields(self, source: str) -> None:
        """Only the fields of the picked source."""
        extra = {"recording": [self.recording], "engine": [self.model, self.sampling, self.seed_button],
                 "server": [self.server_url], "text": [self.seed_button]}
        children = extra.get(source, [])
        if list(self.per_source.children) != children:
            self.per_source.children = children
        script = [self.text] if source in ("text", "engine") else []  # a recording and a server have none
        texts = script + [self.messages, self.tools] + ([self.server_request] if source == "server" else [])
        if list(self.texts.children) != texts:
            self.texts.children = texts

    def set_status(self, message: str, fraction: float | None = None, kind: str = "") -> None:
        """The last action's line (``kind`` "refused": a setting that cannot apply)."""
        cls = f"wb-status wb-status-{kind}" if kind else "wb-status"
        mark = "⚠ " if kind == "refused" else ""
        value = f"<span class='{cls}'>{mark}{html.escape(message)}</span>"
        if value != self.status.value:
            self.status.value = value
        if fraction is None:
            self.progress.layout.visibility = "hidden"
        else:
            self.progress.layout.visibility = "visible"
            self.progress.value = max(0.0, min(1.0, fraction))


def _parses_to(text: str, value) -> bool:
    from workbench.errors import WorkbenchError
    from workbench.ui.choices import json_of

    try:
        return json_of(text, "box") == value
    except WorkbenchError:
        return False
