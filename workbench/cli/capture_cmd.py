"""`workbench capture`: record a real vLLM server's stream (or a saved SSE log) as a recording.

`--api responses|messages` captures /v1/responses or /v1/messages instead of chat
completions (capture/api_capture.py). `workbench replay CAPTURE.jsonl` then shows, per
row, what the server sent beside what this vLLM's parsers produce; `workbench check`
fuzzes its chunking.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from workbench.cli import common, options
from workbench.core.faces import APIS
from workbench.core.writing.terminal import say

if TYPE_CHECKING:
    import argparse


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("capture", help="capture a vLLM server's stream (token ids, chunking, chunks)")
    p.add_argument("--url", metavar="http://HOST:PORT/v1", help="the server's OpenAI API base URL")
    p.add_argument("--from-sse", metavar="LOG.sse", help="a saved SSE log instead of a server")
    p.add_argument("--api", choices=APIS, default="chat",
                   help="the endpoint: chat (/v1/chat/completions, default), responses (/v1/responses) or "
                        "messages (/v1/messages)")
    p.add_argument("--request", required=True, metavar="REQ.json",
                   help="the request in that API's shape (an OpenAI chat, a Responses or an Anthropic body)")
    p.add_argument("-o", "--output", required=True, metavar="REC.jsonl", help="the recording to write")
    p.add_argument("--tokenizer", default="qwen3", metavar="NAME|PATH",
                   help="the server's tokenizer: a built-in name or a folder (default qwen3)")
    options.add_parser_options(p, config=False)
    options.add_template_options(p)
    p.add_argument("--api-key-env", metavar="VAR", help="read the API key from this environment variable")
    p.add_argument("--timeout", type=_seconds("--timeout"), default=60.0, metavar="S",
                   help="the longest wait for the server's next answer or chunk (default 60)")
    p.add_argument("--deadline", type=_seconds("--deadline"), default=600.0, metavar="S",
                   help="the whole capture, however the server trickles it (default 600)")
    p.add_argument("--nonstream", action="store_true",
                   help="also fetch the non-streaming answer (or set \"workbench_nonstream\": true)")
    p.add_argument("--force", action="store_true", help="overwrite an existing -o file")
    p.add_argument("--json", action="store_true", help="one JSON object: path, chunks, tokens, notes")
    p.set_defaults(run=run)


def _seconds(flag: str):
    def parse(text: str) -> float:
        import argparse

        from workbench.capture.stream import seconds
        from workbench.errors import WorkbenchError

        try:
            return seconds(text, flag)
        except WorkbenchError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    return parse


def run(args: argparse.Namespace) -> int:
    from workbench.capture import api_capture, capture, sse
    from workbench.core import request as req
    from workbench.errors import WorkbenchError

    if bool(args.url) == bool(args.from_sse):
        raise WorkbenchError("give --url (a live server) or --from-sse LOG.sse, one of them")
    request = req.load_json_file(args.request, "request")
    if not isinstance(request, dict):
        raise WorkbenchError(f"request file {args.request}: expected a JSON object (the request body)")
    opts = capture.Options(url=args.url or "", request=request, output=args.output,
                           tokenizer=args.tokenizer, parser=common.parser_spec(args),
                           api_key_env=args.api_key_env, timeout=args.timeout, deadline=args.deadline,
                           nonstream=args.nonstream, progress=not args.json,
                           plugins=tuple(args.plugin), force=args.force, **common.template_options(args))
    if args.api != "chat":
        done = (sse.from_api_sse(opts, args.api, args.from_sse) if args.from_sse
                else api_capture.capture(opts, args.api))
    else:
        done = sse.from_sse(opts, args.from_sse) if args.from_sse else capture.capture(opts)
    if args.json:
        common.print_json({"path": str(done.path), "chunks": done.chunks, "tokens": done.tokens,
                          "notes": done.notes, "error": done.error,
                          "origin": {k: v for k, v in done.header.get("origin", {}).items()
                                     if k not in ("opening_chunk", "nonstream")}})
    else:
        for note in done.notes if not done.error else ():  # a failure is one line (the notes are in the header)
            say("note: {}", note, err=True)
        what = "deltas" if args.api != "chat" else "chunks"
        mark = done.notes[0] if args.api != "chat" and done.notes else sse.MARK if args.from_sse else ""
        say("{}: {} {}, {} tokens{}", done.path, done.chunks, what, done.tokens, f" ({mark})" if mark else "")
    if done.error:
        say("workbench capture: error: {} ({} {} kept in {})", done.error, done.chunks,
            "chunks" if args.api == "chat" else "deltas", done.path, err=True)
        return 2
    return 0


def _brief(chunks: list[str]) -> str:
    from workbench.capture.chunk_compare import normal

    from workbench.capture.chunks import parse

    parts = []
    for c in chunks:
        obj = normal(c)
        if obj.get("error"):
            parts.append(f"error {parse(c).error}")
            continue
        for choice in obj.get("choices") or []:
            d = {k: v for k, v in (choice.get("delta") or {}).items() if v is not None}
            fin = f" finish={choice['finish_reason']}" if choice.get("finish_reason") else ""
            parts.append(json.dumps(d, ensure_ascii=False) + fin)
        if obj.get("usage"):
            parts.append(f"usage {json.dumps(obj['usage'])}")
    return " | ".join(parts) or "(none)"


def _events_brief(events: list[dict]) -> str:
    from workbench.cli.render_faces import event_summary

    return " | ".join(f"{e.get('type')} {event_summary(e)}".strip() for e in events) or "(none)"


def comparison_table(cmp):
    """Per row: what the server sent, what this vLLM's rows send; the first difference marked."""
    from workbench.core.writing.terminal import Table

    brief = _brief if cmp.api == "chat" else _events_brief
    what = "same chunks" if cmp.api == "chat" else f"same {cmp.api} events"
    title = (f"server (vLLM {cmp.server_version}) vs here: "
             + (what if cmp.first_difference is None
                else f"first difference at step {cmp.first_difference}: {cmp.cause}"))
    t = Table(title=title, header_style="bold")
    for col in ("step", "", "server sent", "this vLLM sends"):
        t.add_column(col, overflow="fold")
    for s in cmp.steps:
        mark = "=" if s.same else ("▶" if s.step == cmp.first_difference else "≠")
        style = None if s.same else ("bold red" if s.step == cmp.first_difference else "red")
        t.add_row(str(s.step), mark, brief(s.a), brief(s.b), style=style)
    return t
