"""A parser config file -> the ParserEngine class vLLM would run for it.

The class does reasoning and tools in one machine, as vLLM's family classes do:
it is a ``ParserEngine`` subclass whose ``parser_engine_config`` is the file's,
with ``make_adapters`` applied (so it also exposes the reasoning/tool adapter
classes the serving layer looks for) and validated against the tokenizer the
way ``ParserManager.validate_parser_tokenizer`` validates a named parser.

When the file names ``parser_class`` (a vLLM family class such as
``Qwen3Parser``), the built class inherits from it, so the family's Python
hooks (argument conversion, prompt checks, reasoning swaps) run around the
file's table (``config.plain.engine_class``, the same code an exported test and an
``export-config --python`` plugin paste).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TYPE_CHECKING

from workbench.core.config import io as config_io
from workbench.core.trust import DEFAULT, CallablePolicy
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from vllm.tokenizers import TokenizerLike


def parser_class_from_config(path: str | Path, tokenizer: TokenizerLike,
                             policy: CallablePolicy = DEFAULT) -> type:
    """The ParserEngine subclass for ``path``; WorkbenchError lists every problem."""
    if not Path(path).is_file():
        raise WorkbenchError(f"config file {path}: not found")
    loaded = config_io.load_file(path, policy)
    config_io.raise_for(loaded)
    return build_parser_class(loaded, tokenizer)


def parser_class_from_text(text: str, tokenizer: TokenizerLike, base_dir: str | Path | None = None,
                           policy: CallablePolicy = DEFAULT) -> type:
    loaded = config_io.load_text(text, base_dir=base_dir, policy=policy)
    config_io.raise_for(loaded)
    return build_parser_class(loaded, tokenizer)


def build_parser_class(loaded: config_io.LoadedConfig, tokenizer: TokenizerLike) -> type:
    from workbench.core.config.plain import engine_class

    cls = engine_class(loaded.config, loaded.parser_class, {
        "__module__": __name__, "_workbench_config": loaded.config, "_workbench_source": loaded.source,
        "_workbench_notes": tuple(loaded.notes),
        "__doc__": f"ParserEngine built from {loaded.source}"})
    if tokenizer is not None:
        validate(cls, tokenizer, loaded.source)
    return cls


def config_of(cls: type | None) -> Any:
    """The ParserEngineConfig a class built here runs; None for any other class."""
    return getattr(cls, "_workbench_config", None)


def notes_of(cls: type | None) -> list[str]:
    """The fields of a class built here that were read in this vLLM's spelling (config/spelling.py)."""
    return list(getattr(cls, "_workbench_notes", ()))


def calls_tools(config: Any) -> bool:
    """Whether the config can make a tool call: a transition emits a tool event, or leads
    into a state whose text is a tool's name or arguments (else it is reasoning-only)."""
    from vllm.parser.engine.events import EventType

    tool = {EventType.TOOL_CALL_START, EventType.TOOL_NAME, EventType.ARG_VALUE_CHUNK, EventType.TOOL_CALL_END}
    into = {tr.next_state for tr in config.transitions.values()} | {config.initial_state}
    return (any(tool & set(tr.events) for tr in config.transitions.values())
            or any(config.content_events.get(state) in tool for state in into))


def validate(cls: type, tokenizer: TokenizerLike, source: str) -> None:
    """vLLM's start-up check: the class must instantiate with this tokenizer."""
    from vllm.parser.parser_manager import ParserManager

    try:
        ParserManager.validate_parser_tokenizer(cls, tokenizer, tool_parser_name=source,
                                                reasoning_parser_name=source)
    except TypeError as e:
        cause = e.__cause__ or e
        raise WorkbenchError(f"config {source} cannot be used with this tokenizer: "
                             f"{type(cause).__name__}: {str(cause).splitlines()[0]}") from None
