"""The parser editor's reload (widget-free): its text as the parser, a TOML config through
``core/live.py`` or a Python plugin through ``core/live_plugin.py`` (one path, ``reload_as``);
the editor's language; which reload a change runs.

The editor holds a TOML config or a Python plugin (``state.Editor.language``, which the
user sees and sets in the editor's toolbar, as JupyterLab's editors show their language;
a config file picked shows TOML, ``wb.reload_plugin`` shows Python). A Python text is
loaded as vLLM loads a ``--tool-parser-plugin`` file, under a fresh module name each time;
the parsers it registers fill their roles (the pickers' names fill the rest) and the same
stream replays through them. A text that does not load (a syntax error, an exception while
it imports or builds its parser, no parser registered) is one line with its line number,
in the editor's problems and the status line; the last good parser stays active.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from workbench.ui.runtime import LIVE
from workbench.ui.settings import (conflict, editor_before_a_live_stream, editor_deltas, replay_through_editor,
                                   settled, show)
from workbench.ui.state import State, with_outcome

if TYPE_CHECKING:
    from workbench.ui.inputs import Inputs
    from workbench.ui.runtime import Runtime


def set_language(s: State, rt: Runtime, language: str) -> State:
    """The editor shows ``language``: its text in that language (nothing runs until a reload)."""
    if language == s.editor.language:
        return s
    what = "a Python plugin" if language == "python" else "a TOML config"
    return with_outcome(show(s, language), "ok", f"the editor shows {what}; Reload (or an edit) makes it the parser",
                        "editor")


def reload(s: State, rt: Runtime, text: str | None = None) -> State:
    """The editor's text as the parser, as its language says (Reload, an edit, the switch)."""
    return reload_as(s, rt, s.editor.language, text)


def reload_config(s: State, rt: Runtime, text: str | None = None) -> State:
    """The editor's TOML text as the parser: with problems nothing changes but the editor's
    list of them (the last good config stays active); else the stream is replayed through it."""
    return reload_as(s, rt, "toml", text)


def reload_plugin(s: State, rt: Runtime, text: str | None = None) -> State:
    """The editor's Python text as the parser: the stream replays through the parsers it
    registers; a text that does not load changes nothing but the editor's problem."""
    return reload_as(s, rt, "python", text)


def reload_as(s: State, rt: Runtime, language: str, text: str | None = None) -> State:
    """The editor's text (``text`` when given) shown in ``language`` and made the parser: a
    TOML config through ``core/live.py``, a Python plugin through ``core/live_plugin.py``."""
    from workbench.ui import transitions as T

    s = show(s, language, text)
    text = s.editor.text
    why = conflict(s.settings.vllm, s.settings.source, s.settings.api, True)
    if why:
        return with_outcome(s, "refused", f"refused: {why}", "editor")
    T.ready(s)
    base = replace(s.settings, config_text=None, plugin_text=None)
    python = language == "python"
    if not s.stream.started and base.source in LIVE:
        return (before_a_live_stream if python else editor_before_a_live_stream)(s, rt, base, text)
    deltas = editor_deltas(s, rt, base)
    if python:
        live = rt.live_plugin(base, deltas)
        error = live.reload(text)
        if error:
            return refused_text(s, error)
        applied, what = replace(s.settings, config_text=None, plugin_text=text), f"plugin ({live.plugin.names()})"
    else:
        live = rt.live_config(base, deltas)
        problems = live.reload(text)
        if problems:
            return with_outcome(replace(s, editor=replace(s.editor, problems=tuple(problems))), "warning",
                                f"config: {len(problems)} problem(s); the last good config stays active", "editor")
        applied, what = replace(s.settings, config_text=text, plugin_text=None), "config"
    s, replayed = replay_through_editor(s, rt, applied, live.session)
    return with_outcome(s, "ok", f"reloaded the editor's {what}: {replayed}", "editor")


def problem(error: str):
    """The editor's one line as a problem marked on its line ('line 5: NameError: ...')."""
    from workbench.core.config.io import ConfigProblem
    from workbench.core.live_plugin import line_of

    line = line_of(error)
    return ConfigProblem("", line, error.split(": ", 1)[1] if line else error)


def refused_text(s: State, error: str) -> State:
    s = replace(s, editor=replace(s.editor, problems=(problem(error),)))
    return with_outcome(s, "warning", f"plugin: {error}; the last good parser stays active", "editor")


def before_a_live_stream(s: State, rt: Runtime, base: Inputs, text: str) -> State:
    """No stream to replay yet (an engine or server source): the text is loaded and its parser
    composed; when it composes it is the parser the next Step starts with."""
    from workbench.core import parsers
    from workbench.core.live_plugin import spec_for
    from workbench.errors import WorkbenchError

    session = rt.session_for(base)
    try:
        plugin = rt.editor_plugin(text)
        parsers.compose(spec_for(plugin, session.setup.parser), session.tokenizer, session.policy, (plugin,))
    except WorkbenchError as e:
        return refused_text(s, str(e))
    s = replace(s, settings=replace(s.settings, config_text=None, plugin_text=text),
                editor=replace(s.editor, problems=(), note="the parser of the next Step"))
    return settled(with_outcome(s, "ok", f"the editor's plugin ({plugin.names()}) is the parser: Step or Run "
                                         "streams through it", "editor"))
