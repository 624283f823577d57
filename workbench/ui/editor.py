"""The live parser editor: a TOML config or a Python plugin in a code editor, its language,
Reload, and a problems banner beside it.

The editor is CodeMirror 6 in an anywidget (``static/editor.js``, bundled by
``js/build.mjs``): line numbers, TOML or Python highlighting, and each problem marked on
its line. The language is shown and set in the toolbar (*TOML config* / *Python plugin*),
as JupyterLab's own editors show theirs; a config file picked shows TOML. A reload replays
the same recorded stream through the edited config or plugin (``plugin_editor.reload``); a
text with problems changes nothing, its problems show here and on their lines, and the last
good parser stays active. Drawn from ``state.editor``.
"""

from __future__ import annotations

import html
from pathlib import Path

import anywidget
import ipywidgets as W
import traitlets as T

from workbench.ui import what_runs
from workbench.ui.panels import _KIND_CSS, Banner
from workbench.ui.shared import Shared
from workbench.ui.state import State

STATIC = Path(__file__).parent / "static"
EDITOR_SOURCE = "<editor>"  # the source name LiveConfig gives the editor's text
LANGUAGES = [("TOML config", "toml"), ("Python plugin", "python")]
WHAT = {"toml": "config", "python": "plugin"}

EDITOR = Shared.of(STATIC / "editor.js", STATIC / "editor.css")


class CodeEditor(anywidget.AnyWidget):
    """A CodeMirror editor; ``value`` reaches Python after a short pause in typing,
    on blur, or on Ctrl/Cmd-Enter. ``problems``: [{line, message}] marked inline;
    ``language``: "toml" or "python" (the highlighting)."""

    _esm = EDITOR.esm
    value = T.Unicode("").tag(sync=True)
    problems = T.List(T.Dict()).tag(sync=True)
    height = T.Unicode("340px").tag(sync=True)
    language = T.Unicode("toml").tag(sync=True)

    def __init__(self, **kwargs) -> None:
        EDITOR.ensure()
        super().__init__(**kwargs)


def line_marks(problems) -> list[dict]:
    """The problems written in the editor's own text (not in a file it extends), by line."""
    return [{"line": p.line, "message": f"{p.path}: {p.message}" if p.path else p.message}
            for p in problems if p.line and p.file in (None, EDITOR_SOURCE)]


class ConfigEditor(W.VBox):
    def __init__(self) -> None:
        self.text = CodeEditor(layout=W.Layout(flex="1 1 auto", width="auto", min_width="0"))
        self.language = W.ToggleButtons(options=LANGUAGES, value="toml", style={"button_width": "auto"},
                                        tooltips=["a parsers/*.toml config (vLLM's ParserEngine)",
                                                  "a ToolParser / ReasoningParser subclass registered by name, "
                                                  "as a --tool-parser-plugin file"])
        self.language.add_class("wb-editor-language")
        self.reload_button = W.Button(description="Reload", icon="refresh", button_style="primary",
                                      tooltip="replay the same stream through this config or plugin")
        self.auto = W.Checkbox(value=True, description="reload on change", indent=False,
                               layout=W.Layout(width="auto"))
        self.use = W.ToggleButton(value=False, description="editor config: off", icon="toggle-off",
                                  tooltip="on: the editor's config or plugin is the parser; off: the pickers' "
                                          "(or the config file's)")
        self.active = W.HTML("<i>active: the pickers' parser (no editor config yet)</i>")
        self.problems = Banner(layout=W.Layout(flex="0 0 36%", display="none"))
        self.switching = False  # set_on's own change, which the observer ignores
        self.typing = False  # render's own text change, which the observer ignores
        self._drawn: tuple | None = None
        super().__init__([W.HBox([self.language, self.use, self.reload_button, self.auto, self.active],
                                 layout=W.Layout(align_items="center", flex_flow="row wrap")),
                          W.HBox([self.text, self.problems],
                                 layout=W.Layout(width="100%", align_items="flex-start"))],
                         layout=W.Layout(width="100%"))

    def set_on(self, on: bool, what: str) -> None:
        """The switch as the model says (the editor's ``what``, config or plugin, is the parser, or not)."""
        self.switching = True
        try:
            with self.use.hold_sync():
                self.use.value = on
                self.use.description = f"editor {what}: {'on' if on else 'off'}"
                self.use.icon = "toggle-on" if on else "toggle-off"
                self.use.button_style = "success" if on else ""
        finally:
            self.switching = False

    def show_problems(self, problems, what: str) -> None:
        items = "".join(f"<li>{html.escape(str(p))}</li>" for p in problems)
        good = "config" if what == "config" else "parser"
        self.problems.value = (
            f"<div class='wb-banner wb-error' style='{_KIND_CSS['error']};padding:4px 8px'><b>{len(problems)} "
            f"problem(s); the last good {good} stays active</b><ul style='margin:0'>{items}</ul></div>")
        self.problems.kind = "error"
        self.problems.layout.display = None  # beside the editor only while there are problems
        self.text.problems = line_marks(problems)

    def render(self, s: State) -> None:
        """The editor's text and language, its switch (on: the editor's config or plugin is
        the parser in the settings), its problems and what is active (what made the rows on
        screen)."""
        e = s.editor
        i, applied = s.settings, s.stream.applied
        key = (e, i.config_text, i.plugin_text, applied.config_text, applied.plugin_text, id(s.stream.parser))
        if key == self._drawn:
            return
        self._drawn = key
        with self.hold_sync():
            self.switching = True  # the language picker's echo is not the user's pick either
            try:
                self.language.value = e.language
            finally:
                self.switching = False
            self.text.language = e.language
            if self.text.value != e.text:
                self.typing = True
                try:
                    self.text.value = e.text
                finally:
                    self.typing = False
            on = "config" if i.config_text is not None else "plugin" if i.plugin_text is not None else None
            self.set_on(on is not None, on or WHAT[e.language])
            if e.problems:
                self.show_problems(e.problems, WHAT[e.language])
            else:
                self.problems.clear()
                self.problems.layout.display = "none"
                self.text.problems = []
            note = f" · {html.escape(e.note)}" if e.note else ""
            shown = f" · showing {html.escape(e.file)}" if e.file and applied.config_text is None else ""
            self.active.value = f"<b>active: {html.escape(active(s))}</b>{note}{shown}"


def active(s: State) -> str:
    """What made the rows on screen, as the editor's toolbar says it."""
    applied = s.stream.applied
    if applied.config_text is not None:
        return "the editor's config"
    if applied.plugin_text is not None:
        classes = what_runs.plugin_classes(s.stream.parser)
        return f"the editor's plugin{' (' + ', '.join(classes) + ')' if classes else ''}"
    return "the pickers' parser"
