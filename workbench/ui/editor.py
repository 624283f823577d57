"""The live config editor: TOML in a code editor, Reload, and a problems banner beside it.

The editor is CodeMirror 6 in an anywidget (``static/editor.js``, bundled by
``js/build.mjs``): line numbers, TOML highlighting, and each problem marked on
its line. A reload replays the same recorded stream through the edited config
(see ``WorkbenchModel.reload_config``); a text with problems changes nothing, its
problems show here and on their lines, and the last good config stays active.
"""

from __future__ import annotations

import html
from pathlib import Path

import anywidget
import ipywidgets as W
import traitlets as T

from workbench.core import door, limits
from workbench.ui.panels import _KIND_CSS, Banner
from workbench.ui.shared import Shared

STATIC = Path(__file__).parent / "static"
EDITOR_SOURCE = "<editor>"  # the source name LiveConfig gives the editor's text

START_HINT = ("# Pick a parser config file in the `config` picker (its text appears here),\n"
              "# or write one: parsers/teaching.toml is the smallest complete example.\n")


EDITOR = Shared.of(STATIC / "editor.js", STATIC / "editor.css")


class CodeEditor(anywidget.AnyWidget):
    """A CodeMirror editor; ``value`` reaches Python after a short pause in typing,
    on blur, or on Ctrl/Cmd-Enter. ``problems``: [{line, message}] marked inline."""

    _esm = EDITOR.esm
    value = T.Unicode("").tag(sync=True)
    problems = T.List(T.Dict()).tag(sync=True)
    height = T.Unicode("340px").tag(sync=True)

    def __init__(self, **kwargs) -> None:
        EDITOR.ensure()
        super().__init__(**kwargs)


def line_marks(problems) -> list[dict]:
    """The problems written in the editor's own text (not in a file it extends), by line."""
    return [{"line": p.line, "message": f"{p.path}: {p.message}" if p.path else p.message}
            for p in problems if p.line and p.file in (None, EDITOR_SOURCE)]


class ConfigEditor(W.VBox):
    def __init__(self) -> None:
        self.text = CodeEditor(value=START_HINT, layout=W.Layout(flex="1 1 auto", width="auto", min_width="0"))
        self.reload_button = W.Button(description="Reload", icon="refresh", button_style="primary",
                                      tooltip="replay the same stream through this config")
        self.auto = W.Checkbox(value=True, description="reload on change", indent=False,
                               layout=W.Layout(width="auto"))
        self.use = W.ToggleButton(value=False, description="editor config: off", icon="toggle-off",
                                  tooltip="on: the editor's config is the parser; off: the pickers' (or the config file's)")
        self.active = W.HTML("<i>active: the pickers' parser (no editor config yet)</i>")
        self.problems = Banner(layout=W.Layout(flex="0 0 36%", display="none"))
        self.switching = False  # set_on's own change, which the observer ignores
        super().__init__([W.HBox([self.use, self.reload_button, self.auto, self.active],
                                 layout=W.Layout(align_items="center", flex_flow="row wrap")),
                          W.HBox([self.text, self.problems],
                                 layout=W.Layout(width="100%", align_items="flex-start"))],
                         layout=W.Layout(width="100%"))

    def set_on(self, on: bool) -> None:
        """The switch as the model says (the editor's config is the parser, or not)."""
        self.switching = True
        try:
            with self.use.hold_sync():
                self.use.value = on
                self.use.description = f"editor config: {'on' if on else 'off'}"
                self.use.icon = "toggle-on" if on else "toggle-off"
                self.use.button_style = "success" if on else ""
        finally:
            self.switching = False

    def load_file(self, path: str | None) -> None:
        """Show a config file's text (without reloading it)."""
        if not path:
            return
        from workbench.ui.inputs import REPO

        p = Path(path) if Path(path).is_absolute() else REPO / path
        with self.hold_sync():
            self.auto.value, auto = False, self.auto.value
            self.text.value = door.read_text(p, "config", limits.MAX_CONFIG_BYTES)
            self.text.problems = []
            self.auto.value = auto
            self.active.value = f"<i>showing {html.escape(str(path))}</i>"

    def show_problems(self, problems) -> None:
        items = "".join(f"<li>{html.escape(str(p))}</li>" for p in problems)
        self.problems.value = (
            f"<div class='wb-banner wb-error' style='{_KIND_CSS['error']};padding:4px 8px'><b>{len(problems)} "
            f"problem(s); the last good config stays active</b><ul style='margin:0'>{items}</ul></div>")
        self.problems.kind = "error"
        self.problems.layout.display = None  # beside the editor only while there are problems
        self.text.problems = line_marks(problems)

    def show_ok(self, changed: int, rows: int) -> None:
        self.problems.clear()
        self.problems.layout.display = "none"
        self.text.problems = []
        self.set_on(True)
        self.active.value = (f"<b>active: the editor's config</b> · replayed {rows} deltas, "
                             f"{changed} rows changed")


class EditorActions:
    """The Workbench's editor methods (mixed into ``Workbench``)."""

    def _init_editor(self) -> ConfigEditor:
        self.editor = ConfigEditor()
        c = self.controls
        self.editor.reload_button.on_click(self._guard(lambda _: self.reload_config(), "Reload"))
        self.editor.use.observe(self._guard(self._on_editor_switch, "editor", False), "value")
        self.editor.text.observe(self._guard(self._on_editor_text, "editor", False), "value")
        for dd in (c.tool_parser, c.reasoning_parser, c.config):
            dd.observe(self._guard(self._on_parser_pick, "parser", False), "value")
        if self.model.inputs.config:
            self.editor.load_file(self.model.inputs.config)
        return self.editor

    def reload_config(self, text: str | None = None) -> list:
        """Replay the same stream through ``text`` (default: the editor's text).

        Returns the problems ([] when it became the active config); with problems
        nothing changes and they show in the banner next to the editor.
        """
        if text is not None:
            auto, self.editor.auto.value = self.editor.auto.value, False
            self.editor.text.value = text
            self.editor.auto.value = auto
        if self.model.session is None:
            self.load()
        else:
            self._apply_inputs()
        problems = self.model.reload_config(self.editor.text.value)
        if problems:
            self.editor.show_problems(problems)
            self._status(f"config: {len(problems)} problem(s); the last good config stays active")
            return problems
        self.editor.show_ok(len(self.model.changed), len(self.model.rows))
        self._sync()
        self._status(f"reloaded the editor's config: {len(self.model.rows)} deltas replayed, "
                     f"{len(self.model.changed)} rows changed")
        return []

    def _on_editor_text(self, change: dict) -> None:
        if self.editor.auto.value:
            self.reload_config()

    def _on_editor_switch(self, change: dict) -> None:
        if self.editor.switching:
            return
        if change["new"]:
            why = self._refusal(editor=True)
            if why:
                self.editor.set_on(False)
                self._refuse(why)
                return
            if self.reload_config():  # problems: it stays off
                self.editor.set_on(False)
            return
        self.editor_off()

    def editor_off(self) -> None:
        """The pickers' parser (or the config file's) runs again; a stream is replayed through it."""
        from dataclasses import replace

        self.editor.set_on(False)
        self.model.inputs = replace(self.model.inputs, config_text=None)
        self.editor.active.value = "<i>active: the pickers' parser</i>"
        if self.model.source is not None:
            self.replay()
        else:
            self._status("the config editor is off: the pickers' parser runs at the next Step")

    def _on_parser_pick(self, change: dict) -> None:
        if self.controls.writing:
            return
        from dataclasses import replace

        self.model.inputs = replace(self.model.inputs, config_text=None)
        self.editor.set_on(False)
        self.editor.active.value = "<i>active: the pickers' parser (Replay to apply)</i>"
        if change["owner"] is self.controls.config and change["new"]:
            self.editor.load_file(change["new"])
