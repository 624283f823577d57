"""The settings' transitions (widget-free): a picker, a box, the config editor, the text
and language the parser editor shows (its reload, either language: ``ui/plugin_editor.py``).

A setting that cannot go with the others is refused the moment it is chosen: the state
keeps its settings (the picker, drawn from them, goes back) and the status line says why.
What cannot go together: the editor's parser and a lane (the editor's config or plugin is
built by the installed vLLM), a live source (engine, server) and a lane, another API than
chat and a lane (the widget reads the API faces in-process). A JSON box whose text does not parse yet
is a draft: it waits, named in the pending list, and Step, Replay or Reset say what is wrong.
With no stream on screen the settings apply at once (the next Step starts with them).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from workbench.errors import WorkbenchError
from workbench.core.request import RequestSpec
from workbench.lanes import versions
from workbench.ui.inputs import SAMPLING_FIELDS
from workbench.ui.state import Editor, State, frozen, switched, with_outcome

if TYPE_CHECKING:
    from workbench.ui.runtime import Runtime

PICKED_PARSER = ("tool_parser", "reasoning_parser", "config")  # a pick here turns the editor off
JSON_BOXES = {"messages": list, "tools": list, "server_request": dict}
EXPECTED = {"messages": "a JSON list of chat messages", "tools": "a JSON list of tools",
            "server_request": "a JSON object of request fields"}
NONE_IF_EMPTY = ("tool_parser", "reasoning_parser", "config", "recording", "tool_choice", "model", "vllm")


def conflict(vllm: str | None, source: str, api: str, editor: bool) -> str | None:
    """Why these settings cannot run together, or None."""
    if versions.is_installed(vllm):
        return None
    here = versions.installed()
    if editor:
        return (f"vLLM {vllm} with the parser editor on: the editor's parser runs on the installed "
                f"vLLM ({here}) only; switch the editor off (parser editor tab) to pick another vLLM")
    if source in ("engine", "server"):
        return (f"vLLM {vllm} with the {source} source: a live stream runs on the installed vLLM ({here}); "
                f"save it as a recording, then replay that on {vllm}")
    if api != "chat":
        return (f"vLLM {vllm} with API {api}: the widget shows another API's events on the installed vLLM "
                f"({here}); on a lane use `workbench replay --vllm {vllm} --api {api}`")
    return None


def normal(name: str, value: Any) -> Any:
    """A control's value as the settings hold it ("" in a picker or box: None; a sampling
    box's text as its number where it reads as one)."""
    if isinstance(value, str) and name in SAMPLING_FIELDS:
        try:
            return number_of(name, value)
        except WorkbenchError:
            return value.strip()
    if isinstance(value, str):
        value = value.strip() if name not in ("text",) else value
        if name == "chunking":
            return value or "token"
        if name in NONE_IF_EMPTY and not value:
            return None
    return value


def settled(s: State) -> State:
    """With no stream on screen, the settings are what the next Step runs."""
    return s if s.stream.started else replace(s, stream=replace(s.stream, applied=s.settings))


def number_of(name: str, text: str) -> int | float | None:
    """A sampling box's text: "" is None (the default); top_k, max_tokens and seed are whole numbers."""
    text = text.strip()
    if not text:
        return None
    whole = name in ("top_k", "max_tokens", "seed")
    try:
        return int(text) if whole else float(text)
    except ValueError:
        raise WorkbenchError(f"{name}: expected {'a whole number' if whole else 'a number'}, got {text!r}") from None


def set_number(s: State, name: str, text: str) -> State:
    """A sampling box's text: its value when the request takes it, else a draft that names
    what is wrong (Step, Replay and Reset say it)."""
    try:
        value = number_of(name, text)
        RequestSpec(**{name: value}).check()
    except WorkbenchError as e:
        drafts = dict(s.drafts) | {name: (text, str(e))}
        return with_outcome(replace(s, drafts=frozen(drafts)), "ok", "", name)
    return set_setting(replace(s, drafts=frozen({k: v for k, v in s.drafts.items() if k != name})), name, value)


def set_setting(s: State, name: str, value: Any) -> State:
    """One setting, as a picker or box gives it; refused when it cannot go with the others."""
    if name in JSON_BOXES and isinstance(value, str):
        return set_json(s, name, value)
    if name in SAMPLING_FIELDS and isinstance(value, str):
        return set_number(s, name, value)
    value = normal(name, value)
    base = switched(s, value) if name == "source" and value != s.settings.source else s
    new = replace(base.settings, **{name: value})
    if name == "model" and value:
        new = with_model_tokenizer(new)
    on = editor_on(s.settings)
    if name in PICKED_PARSER and on:
        new = replace(new, config_text=None, plugin_text=None)  # a picker's parser takes over from the editor
    why = conflict(new.vllm, new.source, new.api, editor_on(new))
    if why:
        return with_outcome(s, "refused", f"refused: {why}", name)
    drafts = {k: v for k, v in s.drafts.items() if k != name}
    picked_config = name == "config" and value and value != s.settings.config
    s = replace(base, settings=new, drafts=frozen(drafts))
    if picked_config:
        s = show(s, "toml", config_text_of(value), value)
    elif name in PICKED_PARSER and on:
        s = replace(s, editor=replace(s.editor, note="the pickers' parser (Replay to apply)"))
    return settled(with_outcome(s, "ok", "", name))


def pick_recording(s: State, rt: Runtime, path: str) -> State:
    """The recording picker: the recording and the settings it was made with (its header's
    tokenizer, parser, request and prompt) wait for Replay or Reset like any pick (with no
    stream on screen they apply at once); the script stays the text's and the engine's, and
    the request the others share comes back when another source is picked (``switched``).
    Its request replaces the messages and tools: a draft in their boxes goes."""
    from workbench.ui.runtime import label

    if not path:
        return set_setting(s, "recording", path)
    s = replace(s, drafts=frozen({k: v for k, v in s.drafts.items() if k not in ("messages", "tools")}))
    s = switched(s, "recording")
    settings, notes = rt.open_recording(s.settings, str(path))
    s = replace(s, settings=settings, notes=tuple(notes), editor=replace(s.editor, problems=(), note=""))
    if s.stream.started:
        return with_outcome(s, "ok", f"recording {path} picked: Replay or Reset applies it", "recording")
    return settled(with_outcome(s, "ok", f"recording {path}: {settings.tokenizer}, {label(settings)}; "
                                         "Step or Run to replay it", "recording"))


def with_model_tokenizer(i):
    """A model typed in the box brings its own tokenizer (the picker can name another after),
    once it names the asset or a folder with a config; a half-typed name changes nothing."""
    from pathlib import Path

    from workbench.core import models
    from workbench.engine import instance

    if not (models.is_asset(i.model) or (Path(i.model) / "config.json").is_file()):
        return i
    try:
        return replace(i, tokenizer=instance.model_tokenizer(i.model, None) or i.tokenizer)
    except WorkbenchError:  # not a model after all: Step says why
        return i


def editor_on(i) -> bool:
    """Whether the editor's parser (a config or a plugin) is the parser of these settings."""
    return i.config_text is not None or i.plugin_text is not None


def set_json(s: State, name: str, text: str) -> State:
    """A JSON box's text: its value when it parses as the box expects, else a draft."""
    from workbench.ui.choices import json_of

    try:
        value = json_of(text, NAMES_OF.get(name, name))
        if value is not None and not isinstance(value, JSON_BOXES[name]):
            raise WorkbenchError(f"{NAMES_OF.get(name, name)}: expected {EXPECTED[name]}")
        if name == "messages" and value is None:
            raise WorkbenchError(f"messages: expected {EXPECTED[name]}")
        if name in ("messages", "tools"):  # what the request would refuse later, refused here
            RequestSpec(**{name: value}).check()
    except WorkbenchError as e:
        drafts = dict(s.drafts) | {name: (text, str(e))}
        return with_outcome(replace(s, drafts=frozen(drafts)), "ok", "", name)
    return set_setting(replace(s, drafts=frozen({k: v for k, v in s.drafts.items() if k != name})), name, value)


NAMES_OF = {"messages": "messages", "tools": "tools", "server_request": "server request"}


def config_text_of(path: str) -> str:
    """A config file's text, for the editor to show (read through the door): the file that
    runs (``inputs.resolve``), never the repository's file of that name in its place."""
    from workbench.core import door, limits
    from workbench.ui.inputs import resolve

    return door.read_text(resolve(path) or path, "config", limits.MAX_CONFIG_BYTES)


# -- the parser editor: its text and language; the config editor ---------
LANGUAGES = ("toml", "python")  # a parser config, a parser plugin
TOML_START = ("# Pick a parser config file in the `config` picker (its text appears here),\n"
              "# or write one: parsers/teaching.toml is the smallest complete example.\n")
PYTHON_START = '''# A parser plugin, as vLLM's --tool-parser-plugin files are: a ToolParser (or ReasoningParser)
# subclass registered under a name. Edit it: the stream replays through it after a pause in
# typing (or on Ctrl-Enter); a mistake is one line with its line number, and the last good
# parser stays active. parsers/plugins/example_tool_parser.py is a complete example.
from vllm.entrypoints.generate.base.protocol import DeltaMessage, ExtractedToolCallInformation
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager


@ToolParserManager.register_module("my_parser")
class MyToolParser(ToolParser):
    def extract_tool_calls(self, model_output, request):
        return ExtractedToolCallInformation(tools_called=False, tool_calls=[], content=model_output)

    def extract_tool_calls_streaming(self, previous_text, current_text, delta_text, *ids_and_request):
        return DeltaMessage(content=delta_text) if delta_text else None
'''
STARTS = {"toml": TOML_START, "python": PYTHON_START}


def show(s: State, language: str, text: str | None = None, file: str | None = None) -> State:
    """The editor showing ``language``: ``text`` (from ``file``) when given, else the text it
    last had in that language (or that language's start). The other language's text is kept."""
    if language not in LANGUAGES:
        raise WorkbenchError(f"the editor's language is one of {', '.join(LANGUAGES)}, not {language!r}")
    e = s.editor
    if language == e.language:
        return s if text is None else replace(s, editor=replace(e, text=text, file=file or e.file, problems=()))
    kept = dict(e.kept) | {e.language: (e.text, e.file)}
    shown = kept.pop(language, (STARTS[language], None))
    text, file = (text, file) if text is not None else shown
    return replace(s, editor=Editor(text=text, file=file, note=e.note, language=language, kept=frozen(kept)))


def editor_text(s: State, text: str) -> State:
    """Typed in the editor (applied by a reload)."""
    return replace(s, editor=replace(s.editor, text=text))


def editor_deltas(s: State, rt: Runtime, base) -> list:
    """The deltas an editor's parser replays: the stream's so far, else what ``base`` (the
    settings without the editor's parser) makes."""
    return rt.recorded() if s.stream.started else rt.deltas(base, rt.session_for(base))


def replay_through_editor(s: State, rt: Runtime, settings, session) -> tuple[State, str]:
    """``settings`` (holding the editor's text) applied with the editor's live ``session`` and
    the stream replayed through it; the state with the editor's note, and "N deltas replayed,
    M rows changed"."""
    from workbench.ui import transitions as T

    rt.adopt(settings, session)
    # the same stream replayed through it (or, when the settings make other deltas now, a new
    # stream from them: what is on screen is always what the applied settings make)
    s = T.replay(replace(s, settings=settings, editor=replace(s.editor, problems=())), rt)
    changed, n = len(s.stream.changed), len(s.stream.rows)
    s = replace(s, editor=replace(s.editor, note=f"replayed {n} deltas, {changed} rows changed"))
    return s, f"{n} deltas replayed, {changed} rows changed"


def editor_before_a_live_stream(s: State, rt: Runtime, base, text: str) -> State:
    """No stream to replay yet (an engine or server source): the text is checked as a config,
    and when it has no problems it is the parser the next Step starts with."""
    from workbench.core.config import io as config_io, parser as config_parser
    from workbench.core.config.io import ConfigProblem
    from workbench.ui.runtime import config_dir

    session = rt.session_for(base)
    loaded = config_io.load_text(text, base_dir=config_dir(base) or config_io.PARSERS_DIR, source="<editor>",
                                 policy=session.policy)
    if loaded.ok:
        try:
            config_parser.build_parser_class(loaded, session.tokenizer)
        except WorkbenchError as e:
            loaded.problems.append(ConfigProblem("", None, str(e), "<editor>"))
    if not loaded.ok:
        return with_outcome(replace(s, editor=replace(s.editor, problems=tuple(loaded.problems))), "warning",
                            f"config: {len(loaded.problems)} problem(s); the last good config stays active", "editor")
    s = replace(s, settings=replace(s.settings, config_text=text, plugin_text=None),
                editor=replace(s.editor, problems=(), note="the parser of the next Step"))
    return settled(with_outcome(s, "ok", "the editor's config is the parser: Step or Run streams through it",
                                "editor"))


def editor_off(s: State, rt: Runtime) -> State:
    """The pickers' parser (or the config file's) runs again; a stream is replayed through it."""
    from workbench.ui import transitions as T

    s = replace(s, settings=replace(s.settings, config_text=None, plugin_text=None),
                editor=replace(s.editor, note="the pickers' parser"))
    if s.stream.started:
        return T.replay(s, rt)
    return settled(with_outcome(s, "ok", "the parser editor is off: the pickers' parser runs at the next Step",
                                "editor"))
