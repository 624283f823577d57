"""`workbench serve-check`: your parser in vLLM's real OpenAI server, forced to the case's
text, against this workbench's rows: "same chunks" (exit 0) or the first difference (exit 1).

The server is `python -m vllm.entrypoints.openai.api_server` on 127.0.0.1 with the tiny model
made for --tokenizer (capture/serve_check.py); it is stopped before the command ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.cli import common, options
from workbench.core.writing.terminal import say

if TYPE_CHECKING:
    import argparse


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("serve-check", help="serve your parser with vLLM's real server; compare its chunks with "
                                           "the rows")
    p.add_argument("recording", nargs="?", metavar="REC.jsonl", help="a recording whose token ids the server emits")
    p.add_argument("--text", help="model output text the server is forced to emit")
    p.add_argument("--text-file", metavar="F", help="read that text from a file")
    p.add_argument("--tokenizer", metavar="NAME|PATH",
                   help="built-in tokenizer name or a folder (default qwen3); the server runs the tiny model made "
                        "for it")
    options.add_parser_options(p)
    options.add_request_options(p)
    p.add_argument("--port", type=int, metavar="N", help="the server's port on 127.0.0.1 (default: a free one)")
    p.add_argument("--timeout", type=float, default=600.0, metavar="S",
                   help="how long the server may take to come up (default 600)")
    p.add_argument("--server-log", metavar="F", help="keep the server's log in this file")
    p.add_argument("--force", action="store_true",
                   help="use a recording whose tokenizer name or sha256 differs (a note, not an error)")
    p.add_argument("--json", action="store_true", help="one JSON object: same, first difference, steps")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from workbench.capture import serve_check
    from workbench.core.clip import clip

    serve_check.check_port(args.port)  # before anything slow
    if args.timeout <= 0:
        from workbench.errors import WorkbenchError

        raise WorkbenchError(f"--timeout must be > 0, got {args.timeout:g}")
    prepared = common.prepare(args, what="serve")
    serve_check.require_parser(prepared.setup)
    outcome = _stopping_on_sigterm(lambda: serve_check.run(prepared, port=args.port, timeout=args.timeout,
                                                           server_log=args.server_log))
    cmp = outcome.comparison
    if args.json:
        common.print_json({"same": outcome.same, "field": outcome.first_field,
                           "server_value": outcome.server_value, "here_value": outcome.here_value, **cmp.to_dict()})
    elif outcome.same:
        say("same chunks: {} step(s), vllm serve (vLLM {}) streamed what the workbench's rows predict",
            len(cmp.steps), cmp.server_version or "?")
    else:
        say("first difference at step {}, {}: server {} | workbench {}", cmp.first_difference,
            outcome.first_field or "the chunks", clip(outcome.server_value, 200), clip(outcome.here_value, 200))
        say("likely cause: {}", cmp.cause)
    return 0 if outcome.same else 1


def _stopping_on_sigterm(call):
    """``call()`` with SIGTERM read as Ctrl-C, so that the server is stopped on either (its
    ``finally``); SIGKILL leaves it behind, in its own process group."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return call()

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        return call()
    finally:
        signal.signal(signal.SIGTERM, before)
