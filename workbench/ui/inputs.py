"""What the controls say, as plain data (widget-free): ``Inputs`` -> ``RunSpec`` (the one way in,
core/prepare.py) -> Setup."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from workbench.core.door_parse import lone_surrogate
from workbench.core.door_value import check_value
from workbench.core.parsers import ParserSpec
from workbench.core.prepare import text_setup
from workbench.core.request import DEFAULT_MESSAGES, RequestSpec, tool_choice_arg
from workbench.core.run_spec import RunSpec
from workbench.core.session import Setup
from workbench.errors import WorkbenchError, close_matches
from workbench.core.clip import clip

SOURCES = ("text", "recording", "engine", "server")
TOOL_CHOICES = ("auto", "required", "none")
SAMPLING_FIELDS = ("temperature", "top_p", "top_k", "max_tokens", "seed")  # the engine source's boxes
MODEL_MAX_TOKENS = 64  # a real model's default: a Run of a sampling model ends in about a minute
REPO = Path(__file__).resolve().parents[2]


def resolve(path: str | None) -> str | None:
    """A path the notebook names: as given when it is there from the kernel's working folder
    (the notebook's), else the repository's (the pickers list repo-relative paths: notebooks
    run in notebooks/). ``./x`` and ``../x`` are always the notebook's, never the repository's
    file of that name; a path found nowhere stays as given. A lane gets it absolute
    (lanes/carried.py)."""
    if not path or Path(path).is_absolute() or Path(path).exists() or path.startswith(("./", "../")):
        return path
    candidate = REPO / path
    return str(candidate) if candidate.exists() else path


@dataclass(frozen=True)
class Inputs:
    """What the controls say (the widget's settings), frozen: a change is a new Inputs."""

    tokenizer: str = "qwen3"
    tool_parser: str | None = "hermes"
    reasoning_parser: str | None = "qwen3"
    config: str | None = None  # a parsers/*.toml path; replaces the two names
    tool_choice: str | None = None  # auto | required | none | a function name
    messages: list[dict] = field(default_factory=lambda: [dict(m) for m in DEFAULT_MESSAGES])
    tools: list[dict] | None = None
    text: str = ""
    recording: str | None = None
    source: str = "text"  # text | recording | engine | server
    chunking: str = "token"
    model: str | None = None  # a real model for the engine source: "smollm2" or an HF folder
    # Sampling for the engine source (None: the model's generation config, else vLLM's defaults).
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    max_tokens: int | None = None
    seed: int | None = None
    engine: dict | None = None  # more EngineSpec fields (tensor_parallel_size, max_model_len, ...)
    prompt_token_ids: list[int] | None = None  # from a recording's header
    # The editor's last good config text: when set, it is the parser (over the pickers).
    config_text: str | None = None
    # The editor's last good Python plugin text: when set, the parsers it registers fill their
    # roles (over the pickers'; core/live_plugin.spec_for). At most one of the two is set.
    plugin_text: str | None = None
    # The "server" source: a live vLLM server's stream, one chunk per Step.
    server_url: str = ""
    server_request: dict | None = None  # more request fields (model, vllm_xargs, ...)
    vllm: str | None = None  # whose parsers run: None = the installed vLLM, else a lane's version
    api: str = "chat"  # which API's client reads the stream: chat | responses | messages
    # "module:attr" names a config's callables may use beyond vLLM's own (the CLI's --allow-callable)
    allow_callable: list[str] | None = None

    def parser(self) -> ParserSpec:
        if self.config:
            return ParserSpec(config=resolve(self.config))
        return ParserSpec(self.tool_parser or None, self.reasoning_parser or None)

    def request(self) -> RequestSpec:
        return RequestSpec(messages=self.messages, tools=self.tools,
                           tool_choice=tool_choice_arg(self.tool_choice), **self.sampling())

    def sampling(self) -> dict:
        """The sampling fields that are set (``SAMPLING_FIELDS``), as the request takes them."""
        return {name: getattr(self, name) for name in SAMPLING_FIELDS if getattr(self, name) is not None}

    def server_body(self) -> dict:
        """The chat request the server source sends: messages, tools, tool_choice + extras."""
        body = {"messages": self.messages}
        if self.tools is not None:
            body["tools"] = self.tools
        if self.tool_choice:
            body["tool_choice"] = tool_choice_arg(self.tool_choice)
        return {**body, **(self.server_request or {})}

    def spec(self) -> RunSpec:
        """The settings as a RunSpec, what every front end translates its inputs into: the
        script text or the recording (the live sources make their deltas as they run), the
        parser, the request fields, the API, the grouping and the vLLM version."""
        source = ({"text": self.text} if self.source == "text" else
                  {"recording": resolve(self.recording)} if self.source == "recording" and self.recording else {})
        request = {"messages": self.messages, "tools": self.tools, "tool_choice": tool_choice_arg(self.tool_choice),
                   **self.sampling()}
        return RunSpec(**source, tokenizer=self.tokenizer, parser=self.parser(), request=request, api=self.api,
                       chunking=self.chunking, vllm=self.vllm, allow_callables=tuple(self.allow_callable or ()))

    def setup(self) -> Setup:
        """The Setup ``core.prepare`` makes of ``spec()`` (a recording's header settings are
        already the pickers' here: ``recordings.inputs_from``)."""
        return replace(text_setup(self.spec()), trust_spelling="notebook")


DEFAULT_TEXT = ('<think>Weather is needed.</think>\n\n<tool_call>{"name": "get_weather", '
                '"arguments": {"city": "Paris"}}</tool_call>')  # the seed's script
HEIGHTS = (100, 5000)  # px: the table's rows on screen


def with_model(inputs: Inputs, options: dict) -> Inputs:
    """A real model's defaults where ``options`` (what the call gave) leaves them open: the engine
    source, the model's own tokenizer (``instance.model_tokenizer``), no reasoning parser (the
    seed's qwen3 is the tiny model's; a reasoning model names its own) and ``MODEL_MAX_TOKENS``,
    so that a Run of a sampling model ends (free generation, no script, is ``Workbench``'s)."""
    from dataclasses import replace

    from workbench.engine import instance

    if not inputs.model:
        return inputs
    return replace(inputs, source=options.get("source", "engine"),
                   tokenizer=instance.model_tokenizer(inputs.model, options.get("tokenizer")) or inputs.tokenizer,
                   reasoning_parser=options.get("reasoning_parser"),
                   max_tokens=options.get("max_tokens", MODEL_MAX_TOKENS))


def check_height(height: object) -> int:
    """``Workbench(height=...)``: pixels, a whole number within ``HEIGHTS``."""
    low, high = HEIGHTS
    if not isinstance(height, int) or isinstance(height, bool) or not low <= height <= high:
        raise WorkbenchError(f"Workbench(height={clip(height)}) must be a whole number of pixels from "
                             f"{low} to {high}")
    return height


def check_recording(recording: object) -> str | None:
    """``Workbench(recording=...)``: a path (a str or a ``pathlib.Path``) as a str, or None."""
    return None if recording is None else check_path(recording, "Workbench(recording=...)")


def check_path(path: object, what: str) -> str:
    """A path argument (``recording=``, ``save_recording(path)``): a str or a ``pathlib.Path``,
    as a str; anything else is one line."""
    p = os.fspath(path) if isinstance(path, os.PathLike) else path
    if isinstance(p, str) and p:
        return p
    raise WorkbenchError(f"{what} must be a path (str), got {repr(p) if isinstance(p, str) else type(path).__name__}")


def _bad_entry(kind: str, value: list) -> str | None:
    """What is wrong with a list option's entries (``list[dict]``, ``list[int]``), or None."""
    want = {"list[dict]": dict, "list[int]": int, "list[str]": str}.get(kind.split(" ")[0])
    for i, v in enumerate(value):
        if want is not None and (not isinstance(v, want) or isinstance(v, bool)
                                 or (want is int and not 0 <= v < 1 << 63)):
            what = {dict: "an object", int: "a token id (an int >= 0)", str: "a string"}[want]
            return f"entry {i} must be {what}, got {clip(v)}"
    return None


def _not_text(value: object) -> str | None:
    """A string anywhere in ``value`` that is not Unicode text (a lone surrogate), or None:
    the tokenizer and every output would fail on it later, far from this cell."""
    if (found := lone_surrogate(value)) is None:
        return None
    text, at = found
    return f"holds a lone surrogate at character {at + 1} ({clip(text[at:at + 1])}), not text"


def given(text: object, options: dict) -> Inputs:
    """``Workbench(text, **options)``'s arguments as Inputs, or one line naming the first bad one
    (an unknown name, a wrong type or list entry, a string that is not text, a source or API
    outside the pickers' choices)."""
    from workbench.core.faces import APIS

    names = {f.name: f for f in fields(Inputs)}
    for key, value in {"text": text, **options}.items():
        if key not in names:
            raise WorkbenchError(f"Workbench() has no option {key!r}{close_matches(key, names)}")
        kind = str(names[key].type)  # "str", "str | None", "list[dict] | None", ...
        base = {"str": str, "list": list, "dict": dict}.get(kind.split("[")[0].split(" ")[0])
        want = (base, type(None)) if kind.endswith("| None") else (base,)
        if base and not isinstance(value, want):
            raise WorkbenchError(f"Workbench({key}=...) must be {kind}, got {type(value).__name__}")
        check_value(value, f"Workbench({key}=...)")  # before anything below walks it
        problem = (_bad_entry(kind, value) if isinstance(value, list) else None) or _not_text(value)
        if problem:
            raise WorkbenchError(f"Workbench({key}=...): {problem}")
    for key, choices in (("source", SOURCES), ("api", APIS)):
        if key in options and options[key] not in choices:
            raise WorkbenchError(f"Workbench({key}={options[key]!r}): give one of {', '.join(choices)}")
    if options.get("allow_callable"):
        from workbench.core import trust

        trust.policy(allow_callables=options["allow_callable"], spelling="notebook")  # one line for a bad name
    inputs = Inputs(text=text, **options)  # type: ignore[arg-type]
    try:  # the request's own types (a non-empty messages list, ...), here rather than at the first Step
        inputs.request().check()
    except WorkbenchError as e:
        named = re.match(r"request\.(\w+) (must .*)", str(e))
        if named and named.group(1) in SAMPLING_FIELDS and named.group(1) in options:  # a sampling option by name
            raise WorkbenchError(f"Workbench({named.group(1)}=...) {named.group(2)}") from None
        raise WorkbenchError(f"Workbench(...): {e}") from None
    return inputs
