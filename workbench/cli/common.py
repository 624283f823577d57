"""What the shared options (cli/options.py) resolve to: the source (REC | --text | --text-file |
--deltas) and its Setup, the request, the parser; and the outputs and header fields every command
writes the same way."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core import door, limits, request as req
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    import argparse
    from typing import Any
    from workbench.core.session import Setup


def template_options(args) -> dict:
    """Setup fields for --chat-template FILE (read through the reading door) and --trust-template."""
    path = getattr(args, "chat_template", None)
    text = door.read_text(path, "chat template", limits.MAX_CONFIG_BYTES) if path else None
    return {"chat_template": text, "chat_template_file": path,
            "trust_template": bool(getattr(args, "trust_template", False))}


def parser_spec(args: argparse.Namespace) -> ParserSpec:
    """The parser flags (none given: no parser)."""
    # diff has no parser flags (its parsers are --a/--b) but opens recordings the same way
    return ParserSpec(getattr(args, "tool_parser", None), getattr(args, "reasoning_parser", None),
                      getattr(args, "config", None))


def given_parser(args: argparse.Namespace) -> ParserSpec | None:
    """The parser flags, or None when none is given (a recording's own parser then)."""
    spec = parser_spec(args)
    return spec if spec.tool_parser or spec.reasoning_parser or spec.config else None


_REQUEST_FLAGS = ("messages", "tools", "tool_choice", "chat_template_kwargs", "no_parallel_tool_calls",
                  "max_tokens")


def request_body(args: argparse.Namespace) -> dict | None:
    """--request REQ.json: the body as given (a JSON object)."""
    if not getattr(args, "request", None):
        return None
    body = req.load_json_file(args.request, "request")
    if not isinstance(body, dict):
        raise WorkbenchError(f"request file {args.request}: expected a JSON object (the request body)")
    return body


def api_request(args: argparse.Namespace, header: dict | None = None) -> tuple[str, dict | None]:
    """(api, its body or None) from --api / --request, or what a recording was made with."""
    recorded = (header or {}).get("api") or "chat"
    api = getattr(args, "api", None) or recorded
    body = request_body(args)
    if body is not None and api != "chat":
        given = [f"--{f.replace('_', '-')}" for f in _REQUEST_FLAGS if getattr(args, f, None)]
        if given:
            raise WorkbenchError(f"--request holds the whole {api} request: give {', '.join(given)} in it, "
                                 f"not as flags")
        return api, body
    if body is None and api == recorded and api != "chat":
        return api, (header or {}).get("api_request")
    return api, None


def request_spec(args: argparse.Namespace, base: dict | None = None) -> RequestSpec:
    from workbench.core.faces import bodies

    body = request_body(args)
    if body is not None and (getattr(args, "api", None) or "chat") == "chat":
        spec = bodies.spec_of("chat", body)
    else:
        spec = RequestSpec.from_dict(base) if base else RequestSpec()
    if args.messages:
        spec.messages = req.load_json_file(args.messages, "messages")
        if not isinstance(spec.messages, list):
            raise WorkbenchError(f"messages file {args.messages}: expected a JSON list of messages")
    if args.tools:
        spec.tools = req.load_json_file(args.tools, "tools")
        if not isinstance(spec.tools, list):
            raise WorkbenchError(f"tools file {args.tools}: expected a JSON list of tools")
    if args.tool_choice:
        spec.tool_choice = req.tool_choice_arg(args.tool_choice)
    if args.chat_template_kwargs is not None:
        spec.chat_template_kwargs = args.chat_template_kwargs
    if args.no_parallel_tool_calls:
        spec.parallel_tool_calls = False
    if args.max_tokens is not None:
        if args.max_tokens < 1:
            raise WorkbenchError(f"--max-tokens must be >= 1, got {args.max_tokens}")
        spec.max_tokens = args.max_tokens
    return spec


def source_text(args: argparse.Namespace) -> str | None:
    if args.text is not None and args.text_file:
        raise WorkbenchError("give --text or --text-file, not both")
    if args.text_file:
        return door.read_text(args.text_file, "text file")
    return args.text


@dataclass
class Source:
    """What REC | --text | --text-file | --deltas resolved to, with the settings for it."""

    setup: object  # workbench.core.session.Setup
    recording: object | None  # workbench.core.recording.Recording
    text: str | None
    given: object = None  # --deltas: core.chunking.GivenDeltas

    @property
    def prompt_ids(self) -> list[int] | None:
        return (self.recording.prompt_token_ids or None) if self.recording else None


def resolve_source(args: argparse.Namespace, what: str, with_parser: bool = True) -> Source:
    """The recording or text the command runs on; a recording brings its request."""
    from workbench.core.session import Setup

    text = source_text(args)
    recording = getattr(args, "recording", None)
    if recording and text is not None:
        raise WorkbenchError("give a recording or --text/--text-file, not both")
    given = given_deltas(args, text)
    if recording and given is not None:
        raise WorkbenchError("give a recording or --deltas, not both")
    code = {"plugins": tuple(args.plugin), "allow_callables": tuple(args.allow_callable), **template_options(args)}
    if recording:
        from workbench.core.open_recording import Given, open_recording

        opened = open_recording(recording, Given(
            tokenizer=args.tokenizer, parser=given_parser(args), plugins=tuple(args.plugin),
            allow_callables=tuple(args.allow_callable), force=args.force, choose_parser=with_parser,
            chat_template=code["chat_template"], trust_template=code["trust_template"]))
        r = opened.recording
        api, body = api_request(args, r.header)
        setup = Setup(tokenizer=opened.tokenizer, request=request_spec(args, r.request),
                      api=api, api_request=body, **code)
        if with_parser:
            setup.parser = opened.parser or parser_spec(args)
        for line in opened.notes:
            note(args, line)
        return Source(setup, r, None)
    if text is None and given is None:
        raise WorkbenchError(f"nothing to {what}: give REC.jsonl, --text, --text-file or --deltas")
    api, body = api_request(args)
    setup = Setup(tokenizer=args.tokenizer or "qwen3", request=request_spec(args),
                  chunking=args.chunking or "token", api=api, api_request=body, **code)
    if with_parser:
        setup.parser = parser_spec(args)
        config_notes(args, setup.parser.config)
    return Source(setup, None, text, given)


def config_notes(args: argparse.Namespace, config: str | None) -> None:
    """A config written for another vLLM: each field read in this one's spelling, once."""
    if config:
        from workbench.core.config import io as config_io

        for line in config_io.load_file(config).notes:
            note(args, f"{config}: {line}")


def given_deltas(args: argparse.Namespace, text: str | None) -> object:
    """--deltas FILE.json (core/chunking.py ``read_deltas``); None without it."""
    path = getattr(args, "deltas", None)
    if not path:
        return None
    if getattr(args, "chunking", None):
        raise WorkbenchError("--deltas gives the grouping itself: drop --chunking")
    from workbench.core.chunking import read_deltas

    return read_deltas(path, text)


def refuse_existing(path: str | Path, force: bool) -> None:
    """Every `-o`, `--save` and `--all DIR` never overwrites a file unless --force."""
    from workbench.core import outputs

    outputs.refuse_existing(path, force)


def write_output(path: str | Path, text: str, force: bool = False) -> None:
    from workbench.core import outputs

    outputs.write_text(path, text, force)


def print_json(value: Any, indent: int | None = None) -> None:
    """`--json`: one strict JSON object on stdout (no NaN, no Infinity, no raw control character)."""
    from workbench.core import outputs
    from workbench.core.writing import terminal

    terminal.document(outputs.strict_json(value, indent) + "\n")


def note(args: argparse.Namespace, line: str) -> None:
    from workbench.core.writing import terminal

    terminal.say("workbench {}: note: {}", args.command, line, err=True)


def api_header(setup: Setup) -> dict:
    """A recording header's API fields (absent for chat, so chat recordings stay as they were)."""
    if setup.api == "chat":
        return {}
    return {"api": setup.api, "api_request": setup.api_request}


def parser_header(setup: Setup) -> dict:
    """A recording header's ``parser``: what it was made with, hashes included."""
    from workbench.core import trust

    return trust.provenance(setup.parser, setup.plugins)


def template_header(setup: Setup) -> dict:
    """A recording header's ``chat_template`` (the --chat-template file's name and sha256), if any."""
    from workbench.core import templates

    return templates.provenance(setup.chat_template, setup.chat_template_file)


def load_source(args: argparse.Namespace, what: str = "replay", finish_reason: str = "stop"):
    """(Session, deltas, recording or None) for REC | --text | --text-file."""
    from workbench.core.session import Session

    src = resolve_source(args, what)
    session = Session(src.setup, prompt_token_ids=src.prompt_ids)
    if src.recording is not None:
        r = src.recording
        deltas = session.regroup(r.deltas, args.chunking) if args.chunking else r.deltas
        return session, deltas, r
    finish_reason = getattr(args, "finish_reason", None) or finish_reason
    if src.given is not None:
        deltas, notes = session.deltas_from_given(src.given, finish_reason)
        for line in notes:
            note(args, line)
        return session, deltas, None
    return session, session.deltas_from_text(src.text, finish_reason=finish_reason), None
