"""The control panel: pickers, editors, buttons, status line. Reads/writes ``Inputs``."""

from __future__ import annotations

import json
from pathlib import Path

import ipywidgets as W

from workbench.errors import WorkbenchError
from workbench.ui.inputs import REPO, SOURCES, TOOL_CHOICES, Inputs, resolve

NONE = "(none)"
# A Dropdown whose value is None shows a blank box, so "(none)" is the value "".
NO_VALUE = ""
_WIDE = W.Layout(width="98%")


def config_files() -> list[str]:
    root = REPO / "parsers"
    return sorted(str(p.relative_to(REPO)) for p in root.glob("**/*.toml")) if root.is_dir() else []


def recording_files() -> list[str]:
    found = []
    for root in (REPO / "parsers" / "recordings", REPO / "notebooks" / "data"):
        if root.is_dir():
            found += [str(p.relative_to(REPO)) for p in root.glob("**/*.jsonl")]
    return sorted(found)


def tokenizer_names() -> list[str]:
    from workbench.core.tokenizers import list_tokenizers

    return [t.name for t in list_tokenizers()]


def _options(names, current) -> list:
    names = list(names)
    if current and current not in names:
        names.append(current)
    return [(NONE, NO_VALUE)] + [(n, n) for n in sorted(names)]


def _same_file(a: str, b: str) -> bool:
    pa, pb = resolve(a), resolve(b)
    return pa == pb or (Path(pa).exists() and Path(pb).exists() and Path(pa).samefile(pb))


def _pick(dd: W.Dropdown, value: str | None) -> None:
    """Select ``value``; a path already listed under another spelling (absolute vs
    relative to the repository) selects that entry instead of adding a copy."""
    if value is None:
        dd.value = NO_VALUE
        return
    listed = [v for _, v in dd.options]
    if value not in listed:
        same = [v for v in listed if v and _same_file(v, value)]
        if same:
            value = same[0]
        else:
            dd.options = list(dd.options) + [(value, value)]
    dd.value = value


def _json(text: str, what: str):
    text = text.strip()
    if not text:
        return None
    from workbench.core import door

    return door.parse_json(text, what)


class Controls(W.VBox):
    def __init__(self, inputs: Inputs) -> None:
        self.problems: list[str] = []  # shown in the widget's banner
        try:
            names = tokenizer_names()
        except Exception as e:  # the picker still works with the given name; say why it is alone
            names = []
            self.problems.append(f"the tokenizer list could not be read ({type(e).__name__}: {e}); "
                                 f"only {inputs.tokenizer!r} is offered")
        self.tokenizer = W.Dropdown(options=sorted(set(names) | {inputs.tokenizer}),
                                    description="tokenizer")
        self.tool_parser = W.Dropdown(options=_options([], inputs.tool_parser), description="tool parser")
        self.reasoning_parser = W.Dropdown(options=_options([], inputs.reasoning_parser),
                                           description="reasoning")
        self.config = W.Dropdown(options=_options(config_files(), inputs.config), description="config")
        from workbench.lanes.lane_ui import choices as vllm_choices

        self.vllm = W.Dropdown(options=vllm_choices(), description="vLLM",
                               tooltip="whose parsers run: the installed vLLM, or a lane's version")
        self.tool_choice = W.Combobox(options=list(TOOL_CHOICES), placeholder="default (auto with tools)",
                                      description="tool_choice", ensure_option=False)
        self.source = W.ToggleButtons(options=list(SOURCES), description="source",
                                      style={"button_width": "90px"})
        self.recording = W.Dropdown(options=_options(recording_files(), inputs.recording),
                                    description="recording")
        self.chunking = W.Text(description="chunking", placeholder="token | k:N | random:SEED[:MAX]")
        self.model = W.Text(description="model", placeholder="embedded tiny model (or a real one on GPU)")
        self.server_url = W.Text(description="server", placeholder="http://HOST:PORT/v1 (source server)")
        self.server_request = W.Textarea(description="request", placeholder='{"model": ..., "vllm_xargs": ...} '
                                         "(more fields for the server source)",
                                         layout=W.Layout(width="98%", height="40px"))
        self.text = W.Textarea(description="script", layout=W.Layout(width="98%", height="80px"))
        self.messages = W.Textarea(description="messages", layout=W.Layout(width="98%", height="60px"))
        self.tools = W.Textarea(description="tools", placeholder="[] (OpenAI tools JSON)",
                                layout=W.Layout(width="98%", height="60px"))
        self.step_button = W.Button(description="Step", icon="step-forward", button_style="primary")
        self.run_button = W.Button(description="Run", icon="play")
        self.reset_button = W.Button(description="Reset", icon="undo")
        self.replay_button = W.Button(description="Replay", icon="refresh",
                                      tooltip="the same recorded stream through the current settings")
        self.stop_button = W.Button(description="Stop", icon="stop", disabled=True,
                                    tooltip="stop a Run after the row in progress")
        self.status = W.HTML("<i>idle: nothing loaded yet (Step loads vLLM)</i>")
        self.progress = W.FloatProgress(value=0, min=0, max=1, layout=W.Layout(width="200px",
                                                                                visibility="hidden"))
        self.write(inputs)
        pickers = W.HBox([W.VBox([self.tokenizer, self.tool_parser, self.reasoning_parser, self.config,
                                  self.vllm]),
                          W.VBox([self.tool_choice, self.source, self.recording, self.chunking, self.model,
                                  self.server_url])])
        self.settings = W.Accordion([W.VBox([pickers, self.text, self.messages, self.tools,
                                             self.server_request])],
                                    titles=("settings: parsers, source, script and request",),
                                    selected_index=0, layout=_WIDE)
        buttons = W.HBox([self.step_button, self.run_button, self.stop_button, self.reset_button,
                          self.replay_button, self.progress])
        super().__init__([self.settings, buttons, self.status])

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
                self.text, self.messages, self.tools, self.server_url, self.server_request, self.vllm]

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
                dd.options = _options(names[kind], current)
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
                _pick(dd, value)
            if i.tokenizer not in self.tokenizer.options:
                self.tokenizer.options = list(self.tokenizer.options) + [i.tokenizer]
            self.tokenizer.value = i.tokenizer
            if i.vllm not in [v for _, v in self.vllm.options]:
                self.vllm.options = list(self.vllm.options) + [(i.vllm, i.vllm)]
            self.vllm.value = i.vllm
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
        messages = _json(self.messages.value, "messages")
        if not isinstance(messages, list):
            raise WorkbenchError("messages: expected a JSON list of chat messages")
        tools = _json(self.tools.value, "tools")
        if tools is not None and not isinstance(tools, list):
            raise WorkbenchError("tools: expected a JSON list of tools")
        server_request = _json(self.server_request.value, "server request")
        if server_request is not None and not isinstance(server_request, dict):
            raise WorkbenchError("server request: expected a JSON object of request fields")
        from dataclasses import replace

        return replace(base, server_url=self.server_url.value.strip(), server_request=server_request,
                       tokenizer=self.tokenizer.value, tool_parser=self.tool_parser.value or None,
                       reasoning_parser=self.reasoning_parser.value or None,
                       config=self.config.value or None,
                       tool_choice=self.tool_choice.value.strip() or None, source=self.source.value,
                       recording=self.recording.value or None, chunking=self.chunking.value.strip() or "token",
                       model=self.model.value.strip() or None, text=self.text.value,
                       messages=messages, tools=tools, vllm=self.vllm.value)

    def set_status(self, message: str, fraction: float | None = None) -> None:
        import html

        with self.hold_sync():
            self.status.value = f"<span class='wb-status'>{html.escape(message)}</span>"
            if fraction is None:
                self.progress.layout.visibility = "hidden"
            else:
                self.progress.layout.visibility = "visible"
                self.progress.value = max(0.0, min(1.0, fraction))
