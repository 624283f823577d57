"""The shared options, by their names (the CLI's flags, ``workbench.corpus(...)``'s keyword
arguments), as a ``RunSpec``: every file they name read through the reading door first.

``spec_from_options({"text": ..., "tool_parser": "hermes", "tools": "tools.json"})``: the
names are the flags' (``--tool-parser`` is ``tool_parser``, ``--plugin`` ``plugin``); an
absent name is an option not given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.core import door, limits, request as req
from workbench.core.parsers import ParserSpec
from workbench.core.prepare import RunSpec
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Mapping

# The option names a RunSpec is made of; any other option is the command's own.
SPEC_OPTIONS = frozenset({"recording", "text", "text_file", "deltas", "tokenizer", "tool_parser", "reasoning_parser",
                          "config", "messages", "tools", "tool_choice", "chat_template_kwargs",
                          "no_parallel_tool_calls", "max_tokens", "request", "api", "plugin", "allow_callable",
                          "chat_template", "trust_template", "chunking", "finish_reason",
                          "temperature", "top_p", "top_k", "sampling_seed"})
# The sampling options by name -> the request field each sets (check's --seed seeds its fuzzing,
# so record's --seed is named sampling_seed here).
SAMPLING_OPTIONS = {"temperature": "temperature", "top_p": "top_p", "top_k": "top_k", "sampling_seed": "seed"}


def template_options(o: Mapping[str, Any]) -> dict:
    """--chat-template FILE (read through the door) and --trust-template, as RunSpec fields."""
    path = o.get("chat_template")
    text = door.read_text(path, "chat template", limits.MAX_CONFIG_BYTES) if path else None
    return {"chat_template": text, "chat_template_file": path, "trust_template": bool(o.get("trust_template"))}


def parser_spec(o: Mapping[str, Any]) -> ParserSpec:
    """The parser options (none given: no parser)."""
    return ParserSpec(o.get("tool_parser"), o.get("reasoning_parser"), o.get("config"))


def given_parser(o: Mapping[str, Any]) -> ParserSpec | None:
    """The parser options, or None when none is given (a recording's own parser then)."""
    spec = parser_spec(o)
    return spec if spec.tool_parser or spec.reasoning_parser or spec.config else None


def request_body(o: Mapping[str, Any]) -> dict | None:
    """--request REQ.json: the body as given (a JSON object)."""
    if not o.get("request"):
        return None
    body = req.load_json_file(o["request"], "request")
    if not isinstance(body, dict):
        raise WorkbenchError(f"request file {o['request']}: expected a JSON object (the request body)")
    return body


def request_fields(o: Mapping[str, Any]) -> dict:
    """The request fields the options set (files read through the door): RunSpec.request."""
    out: dict = {}
    for name, kind in (("messages", "messages"), ("tools", "tools")):
        if o.get(name):
            out[name] = req.load_json_file(o[name], kind)
            if not isinstance(out[name], list):
                raise WorkbenchError(f"{kind} file {o[name]}: expected a JSON list of {kind}")
    if o.get("tool_choice"):
        out["tool_choice"] = req.tool_choice_arg(o["tool_choice"])
    if o.get("chat_template_kwargs") is not None:
        out["chat_template_kwargs"] = o["chat_template_kwargs"]
    if o.get("no_parallel_tool_calls"):
        out["parallel_tool_calls"] = False
    if o.get("max_tokens") is not None:
        if o["max_tokens"] < 1:
            raise WorkbenchError(f"--max-tokens must be >= 1, got {o['max_tokens']}")
        out["max_tokens"] = o["max_tokens"]
    for name, field in SAMPLING_OPTIONS.items():  # checked with the rest of the request (RequestSpec.check)
        if o.get(name) is not None:
            out[field] = o[name]
    return out


def source_text(o: Mapping[str, Any]) -> str | None:
    if o.get("text") is not None and o.get("text_file"):
        raise WorkbenchError("give --text or --text-file, not both")
    if o.get("text_file"):
        return door.read_text(o["text_file"], "text file")
    return o.get("text")


def spec_from_options(o: Mapping[str, Any]) -> RunSpec:
    """The options as a RunSpec."""
    text = source_text(o)
    recording = o.get("recording")
    if recording and text is not None:
        raise WorkbenchError("give a recording or --text/--text-file, not both")
    deltas = None
    if o.get("deltas"):
        if recording:
            raise WorkbenchError("give a recording or --deltas, not both")
        if o.get("chunking"):
            raise WorkbenchError("--deltas gives the grouping itself: drop --chunking")
        from workbench.core.chunking import read_deltas

        given = read_deltas(o["deltas"], text)
        deltas = tuple(given.texts) if given.texts is not None else tuple(tuple(g) for g in given.ids or [])
    return RunSpec(text=text, recording=str(recording) if recording else None, deltas=deltas,
                   tokenizer=o.get("tokenizer"), parser=given_parser(o), request=request_fields(o),
                   request_body=request_body(o), api=o.get("api"), plugins=tuple(o.get("plugin") or ()),
                   allow_callables=tuple(o.get("allow_callable") or ()), **template_options(o),
                   chunking=o.get("chunking"), finish_reason=o.get("finish_reason"), force=bool(o.get("force")))
