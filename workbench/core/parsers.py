"""Which vLLM parser to run: names -> the Parser class vLLM's server would compose.

A ``ParserSpec`` is plain data: a tool parser name, a reasoning parser name, or a
parser config file (``parsers/*.toml``, a declarative ``ParserEngineConfig``).
``compose`` asks ``ParserManager.get_parser`` for the class, the same call the
server makes at start-up, including its tokenizer validation.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.trust import file_sha256
from workbench.core.vllm_compat import TOOL_STRICT_LEVEL
from workbench.errors import WorkbenchError, close_matches

if TYPE_CHECKING:
    from collections.abc import Sequence

    from vllm.parser.abstract_parser import Parser
    from vllm.tokenizers import TokenizerLike
    from workbench.core.plugins import Plugin
    from workbench.core.trust import CallablePolicy


@dataclass(frozen=True)
class ParserSpec:
    tool_parser: str | None = None
    reasoning_parser: str | None = None
    config: str | None = None  # path to a parsers/*.toml file
    tool_strict_level: str = TOOL_STRICT_LEVEL  # passed explicitly (vllm_compat: 0.32 vs 0.33)

    def label(self) -> str:
        if self.config:
            return f"config:{self.config}"
        return f"{self.tool_parser or '-'}+{self.reasoning_parser or '-'}"

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def parse(cls, text: str) -> ParserSpec:
        """'hermes+qwen3', 'hermes', '+qwen3', or a path to a .toml config."""
        text = text.strip()
        if text.endswith(".toml") or text.startswith("config:"):
            return cls(config=text.removeprefix("config:"))
        tool, _, reasoning = text.partition("+")
        return cls(tool_parser=tool or None, reasoning_parser=reasoning or None)


def replay_parser(recorded: dict | None, given: ParserSpec | None,
                  plugins: tuple[str, ...] | list[str] = ()) -> tuple[ParserSpec | None, list[str]]:
    """(the ParserSpec to replay a recording with, notes).

    ``given``: the ParserSpec the user named on this run, or None. The recording's own
    parser is used only when it names no config and no plugin: those are code, and a
    recording never loads code. ``plugins``: the plugin files given on this run."""
    recorded = recorded or {}
    notes: list[str] = []
    given_files = {Path(p).name: p for p in plugins}
    for entry in recorded.get("plugins") or []:
        if entry["file"] not in given_files:
            if given is None:
                raise WorkbenchError(
                    f"made with plugin {entry['file']}: a recording never loads code; "
                    f"pass your copy again (--plugin {entry['file']}) to replay it")
            continue
        sha = file_sha256(given_files[entry["file"]])
        if entry.get("sha256") and sha != entry["sha256"]:
            notes.append(f"plugin {entry['file']} differs from the one the recording was made with "
                         f"(sha256 {(sha or '?')[:12]}, recorded {entry['sha256'][:12]})")
    config = recorded.get("config")
    if given is None:
        if config:
            raise WorkbenchError(
                f"made with config {config}: a recording never loads code; "
                f"pass your copy again (--config {Path(config).name}, or the widget's config picker)")
        if not recorded:
            return None, notes
        return ParserSpec(recorded.get("tool_parser"), recorded.get("reasoning_parser")), notes
    recorded_sha = recorded.get("config_sha256")
    if given.config and recorded_sha:
        sha = file_sha256(given.config)
        if sha != recorded_sha:
            notes.append(f"config {given.config} differs from the one the recording was made with "
                         f"(sha256 {(sha or '?')[:12]}, recorded {recorded_sha[:12]})")
    return given, notes


def registered_names() -> dict[str, list[str]]:
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    return {"tool": ToolParserManager.list_registered(),
            "reasoning": ReasoningParserManager.list_registered()}


def parser_table() -> list[dict]:
    """Each registered name with its class and whether it is engine-based (``workbench
    parsers``); a registered module that fails to import is listed with its error."""
    from vllm.parser.engine.adapters import ParserEngineReasoningAdapter, ParserEngineToolAdapter
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    classes = {"tool": (ToolParserManager.get_tool_parser, ParserEngineToolAdapter),
               "reasoning": (ReasoningParserManager.get_reasoning_parser, ParserEngineReasoningAdapter)}
    out = []
    for kind, names in registered_names().items():
        getter, engine_base = classes[kind]
        for name in names:
            entry: dict = {"kind": kind, "name": name}
            try:
                cls = getter(name)
                entry["class"] = f"{cls.__module__}.{cls.__qualname__}"
                entry["engine_based"] = issubclass(cls, engine_base)
            except Exception as e:  # a registered module that fails to import
                entry["class"] = None
                entry["engine_based"] = None
                entry["error"] = f"{type(e).__name__}: {e}"
            out.append(entry)
    return out


def check_names(spec: ParserSpec, loaded: Sequence[Plugin] = ()) -> None:
    """Unknown names fail with the close matches, before vLLM's TypeError; ``loaded``:
    this run's plugins, whose names the message lists."""
    from workbench.core.plugins import registered_by

    names = registered_names()
    for kind, name in (("tool", spec.tool_parser), ("reasoning", spec.reasoning_parser)):
        if name is not None and name not in names[kind]:
            raise WorkbenchError(f"unknown {kind} parser {name!r}{close_matches(name, names[kind])}"
                                 f"{registered_by(loaded)}")


def compose(spec: ParserSpec, tokenizer: TokenizerLike, policy: CallablePolicy | None = None,
            loaded: Sequence[Plugin] = ()) -> type[Parser] | None:
    """The Parser *class* vLLM would use, or None when no parser is configured.
    ``policy``: the modules a config's callables may live in (``core.trust``); ``loaded``:
    this run's plugins (named in an unknown-name message)."""
    if spec.config:
        from workbench.core.config.parser import parser_class_from_config
        from workbench.core.trust import DEFAULT

        return parser_class_from_config(spec.config, tokenizer, policy or DEFAULT)
    check_names(spec, loaded)
    from vllm.parser.parser_manager import ParserManager

    from workbench.core.tokenizers import model_type

    try:
        cls = ParserManager.get_parser(
            tool_parser_name=spec.tool_parser,
            reasoning_parser_name=spec.reasoning_parser,
            # The server's --enable-auto-tool-choice, which vLLM accepts only with
            # --tool-call-parser: on whenever a tool parser is named (auto_tools reads it back).
            enable_auto_tools=spec.tool_parser is not None,
            tool_strict_level=spec.tool_strict_level,
            # As the server decides: hf_config.model_type == "gpt_oss" composes HarmonyParser.
            is_harmony=model_type(tokenizer) == "gpt_oss",
            tokenizer=tokenizer,
        )
    except TypeError as e:  # vLLM's own start-up validation message
        raise WorkbenchError(str(e).splitlines()[0]) from None
    if cls is not None and cls.__name__ == "HarmonyParser":
        # get_parser sets the sub-parsers on the one HarmonyParser class; a server
        # composes it once, the workbench many times (A/B, doctor). A subclass per
        # compose keeps each session's choice; no method is overridden.
        cls = type("HarmonyParser", (cls,), {"__module__": cls.__module__,
                                              "reasoning_parser_cls": cls.reasoning_parser_cls,
                                              "tool_parser_cls": cls.tool_parser_cls,
                                              "tool_strict_level": cls.tool_strict_level})
    return cls


def auto_tools(parser_cls: type[Parser] | None) -> bool:
    """The one ``enable_auto_tools`` rule, read from the composed class: the server's
    --enable-auto-tool-choice, which vLLM refuses without --tool-call-parser
    (``validate_parsed_serve_args``). On when the class parses tool calls: a tool parser
    was named (``get_parser`` gives the class a ``tool_parser_cls`` only then), or a
    config has a transition that starts a call; off for a reasoning-only config, which
    vLLM would serve with --reasoning-parser alone."""
    if parser_cls is None or parser_cls.tool_parser_cls is None:
        return False
    from workbench.core.config.parser import calls_tools, config_of

    config = config_of(parser_cls)
    return config is None or calls_tools(config)


def describe(parser_cls: type[Parser] | None) -> dict:
    """Which kind of Parser vLLM composed, and from which sub-classes."""
    if parser_cls is None:
        return {"kind": "none", "class": None, "reasoning": None, "tool": None, "engine_based": False}
    from vllm.parser.abstract_parser import DelegatingParser
    from vllm.parser.engine.parser_engine import ParserEngine

    mro_names = [c.__name__ for c in parser_cls.__mro__]
    if issubclass(parser_cls, ParserEngine):
        kind = "engine"
    elif "HarmonyParser" in mro_names:
        kind = "harmony"
    elif "ResponseTemplateParser" in mro_names:
        kind = "template"
    elif parser_cls.__module__ == "vllm.parser.parser_manager" and issubclass(parser_cls, DelegatingParser):
        kind = "delegating"
    else:
        kind = "composite"
    rcls, tcls = parser_cls.reasoning_parser_cls, parser_cls.tool_parser_cls
    from workbench.core.config.parser import notes_of

    notes = notes_of(parser_cls)  # a config read in this vLLM's spelling
    return {
        **({"notes": notes} if notes else {}),
        "kind": kind,
        "class": _qualname(parser_cls),
        "bases": [_qualname(b) for b in parser_cls.__bases__],
        "reasoning": _qualname(rcls) if rcls else None,
        "tool": _qualname(tcls) if tcls else None,
        "engine_based": {
            "reasoning": bool(rcls and getattr(rcls, "engine_based_streaming", False)),
            "tool": bool(tcls and getattr(tcls, "engine_based_streaming", False)),
        },
    }


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"
