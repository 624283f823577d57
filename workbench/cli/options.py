"""The command-line options shared by replay, record, check, export, diff, doctor, corpus and
capture: their declarations and the argparse types that check a value as it is parsed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.core import door
from workbench.core.deltas import parse_chunking
from workbench.core.faces import APIS
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    import argparse


def add_source_options(p: argparse.ArgumentParser, recording: bool = True) -> None:
    if recording:
        p.add_argument("recording", nargs="?", metavar="REC.jsonl", help="a recording to replay")
    p.add_argument("--text", help="model output text to stream")
    p.add_argument("--text-file", metavar="F", help="read the model output text from a file")
    p.add_argument("--tokenizer", metavar="NAME|PATH", help="built-in tokenizer name or a folder (default qwen3)")
    p.add_argument("--chunking", type=chunking_arg,
                   help="how the tokens are grouped into deltas: token (default), whole, k:N, "
                        "random:SEED[:MAX][#I], split:K, merge:A-B,... (tokens A..B share a delta), at:I,J,... "
                        "(a delta ends after token I), holdback:D; tokens are numbered from 1, as steps are; "
                        "every grouping name `check` prints")
    p.add_argument("--deltas", metavar="FILE.json",
                   help="the stream's exact deltas: a JSON list of texts (each a delta's text) or of "
                        "token-id lists")
    add_finish_option(p)
    if recording:
        p.add_argument("--force", action="store_true",
                       help="replay a recording whose tokenizer name or sha256 differs (a note, not an "
                            "error); overwrite an existing output file (-o, --save)")


def add_finish_option(p: argparse.ArgumentParser) -> None:
    from workbench.core.recording import FINISH_REASONS

    p.add_argument("--finish-reason", choices=FINISH_REASONS,
                   help="how a --text stream ends, on its last delta: stop (then EOS; the default), length "
                        "(cut by max_tokens), abort, error, repetition")


def add_parser_options(p: argparse.ArgumentParser, config: bool = True) -> None:
    p.add_argument("--tool-parser", metavar="N", help="vLLM tool parser name (none: no tool parser)")
    p.add_argument("--reasoning-parser", metavar="N", help="vLLM reasoning parser name")
    if config:
        p.add_argument("--config", metavar="F.toml", help="a parser config file (declarative ParserEngine)")
    add_code_options(p)


def add_code_options(p: argparse.ArgumentParser) -> None:
    """The code this run may execute (README, "Trust"): named here, never by a recording."""
    p.add_argument("--plugin", action="append", default=[], metavar="FILE",
                   help="import a parser module, as vLLM's --tool-parser-plugin")
    p.add_argument("--allow-callable", action="append", default=[], metavar="MODULE:ATTR", type=callable_arg,
                   help="let a config call MODULE:ATTR (default: only the callables vLLM's own parser configs "
                        "use and this run's plugins)")


def add_template_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--chat-template", metavar="FILE",
                   help="render the prompt with this Jinja file (vLLM's flag), in a subprocess with a memory "
                        "and time limit")
    p.add_argument("--trust-template", action="store_true",
                   help="render a chat template the recording or request carries (chat_template_kwargs."
                        "chat_template; vLLM's --trust-request-chat-template), in that subprocess")


def add_request_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--api", choices=APIS, help="the API whose client reads the stream: chat (default), "
                                               "responses (/v1/responses) or messages (/v1/messages)")
    p.add_argument("--request", metavar="REQ.json",
                   help="the request in that API's own shape (a Chat Completions, Responses or Anthropic "
                        "body); rendered as the server renders it")
    p.add_argument("--tools", metavar="F.json", help="tools (OpenAI format) as a JSON file")
    p.add_argument("--messages", metavar="F.json", help="chat messages as a JSON file")
    p.add_argument("--tool-choice", metavar="auto|required|none|NAME")
    p.add_argument("--chat-template-kwargs", metavar="JSON", type=json_object_arg)
    add_template_options(p)
    p.add_argument("--no-parallel-tool-calls", action="store_true", help="parallel_tool_calls: false")
    p.add_argument("--max-tokens", type=int, metavar="N")


def chunking_arg(text: str) -> str:
    try:
        return parse_chunking(text)
    except WorkbenchError as e:
        import argparse

        raise argparse.ArgumentTypeError(str(e)) from None


def callable_arg(text: str) -> str:
    import argparse

    from workbench.core import trust

    try:
        return trust.allow_callable_arg(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def json_object_arg(text: str) -> dict:
    import argparse

    try:
        value = door.parse_json(door.check_arg(text, "JSON"), "JSON")
    except WorkbenchError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("JSON: ")) from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value
