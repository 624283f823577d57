"""`workbench replay`: a recording or a text through vLLM's parsers, one row per delta."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.cli import common, frontend_option, options, render
from workbench.cli.vllm_option import add_option as add_vllm_option
from workbench.runs.on_spec import rust_version

if TYPE_CHECKING:
    import argparse
    from workbench.core.faces.face import Face
    from workbench.core.session import Session


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("replay", help="stream a recording or text through vLLM's parsers")
    options.add_source_options(p)
    options.add_parser_options(p)
    options.add_request_options(p)
    p.add_argument("--save", metavar="REC.jsonl", help="write the deltas as a recording")
    p.add_argument("--json", action="store_true", help="one JSON object: stream, nonstream, rows")
    add_vllm_option(p)
    frontend_option.add_option(p, "its rows are the SSE vllm-rs streamed")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from workbench.capture import chunk_compare as capture_compare
    from workbench.core import recording as rec
    from workbench.core.tokenizers import tokenizer_sha256, ensure_tokenizer

    common.refuse_existing(args.save, args.force)
    rust = rust_version(getattr(args, "frontend", None))
    if rust is not None:
        return frontend_option.replay(args, rust)
    prepared = common.prepare(args)
    session, deltas, source = prepared.session, prepared.deltas, prepared.recording
    rust = frontend_option.of_capture(args, source)
    if rust is not None:
        return frontend_option.replay(args, rust, (session, deltas, source))
    if args.save:
        origin = {"kind": "recording", "path": prepared.spec.recording} if source else {"kind": "text"}
        header = rec.make_header(session.setup.tokenizer,
                                 tokenizer_sha256(ensure_tokenizer(session.setup.tokenizer)),
                                 session.setup.request.to_dict(), session.prompt_ids, origin,
                                 common.parser_header(session.setup)) | common.api_header(session.setup)
        header |= common.template_header(session.setup)
        rec.save(args.save, header, deltas, overwrite=args.force)
    server = None
    captured = source is not None and capture_compare.is_capture(source.header) and not prepared.spec.chunking
    if captured:
        deltas, notes = capture_compare.deltas(session, source)
    result = session.replay(deltas)
    from workbench.core import faces

    face = faces.run(session, result)
    if captured:
        ps = session.setup.parser
        here = f"{ps.tool_parser}+{ps.reasoning_parser}"
        if (source.header.get("origin") or {}).get("api") is None:
            server = capture_compare.compare(result, source, here, notes)
        elif face is None:
            from workbench.errors import WorkbenchError

            raise WorkbenchError(f"a {source.header['origin']['api']} capture is compared on its own API "
                                 f"(drop --api chat)")
        else:
            from workbench.capture import api_compare

            server = api_compare.compare(face, result.rows, source, here, notes,
                                         (session.setup.api_request or {}).get("tools"))
    if args.json:
        out = result.to_dict()
        out["request"] = session.request_view()
        out.update(api_json(session, face, out["rows"]))
        if server is not None:
            out["server"] = server.to_dict()
        common.print_json(out)
    elif server is not None:
        from workbench.cli.capture_cmd import comparison_table

        render.console().print(comparison_table(server))
        if server.api != "chat":  # a Responses / Anthropic capture: what the SDK ends with, both sides
            from workbench.cli import render_faces

            render.console().print(render_faces.server_final_table(face, server.client))
    else:
        con = render.console()
        info = result.parser
        con.print(f"parser: {info['kind']} {info['class']} "
                  f"(reasoning={info['reasoning']}, tool={info['tool']})")
        con.print(render.rows_table(result.rows))
        if face is None:
            con.print(render.final_table(result.stream, result.nonstream, result.rows))
        else:
            from workbench.cli import render_faces

            render_faces.show(con, face, result.rows)
    from workbench.core.writing import terminal

    if server is not None and server.first_difference is not None:
        terminal.say("workbench replay: the server's {} differ from this vLLM's from step {}: {}",
                     server.unit, server.first_difference, server.cause, err=True)
    if face is None:  # as TRT-LLM's warn_if_tool_call_unparsed: HTTP 200, and the call is lost
        from workbench.check import silent

        line = silent.warning(silent.findings(session, result, "source"))
        if line:
            terminal.say("workbench replay: warning: {}", line, err=True)
    errors = result.errors
    if errors:
        terminal.say("workbench replay: {} delta(s) raised in the parser; first at step {}: {}", len(errors),
                     errors[0].step, errors[0].error, err=True)
        return 1
    return 0


def api_json(session: Session, face: Face, rows: list[dict]) -> dict:
    """``--json``'s API fields: "api"; for responses / messages the stream's "events", the
    non-streaming "response", the SDK's "client" object, and per row its "api_events"
    (and "api_channels" on the Harmony path)."""
    if face is None:
        return {"api": "chat"}
    for i, row in enumerate(rows):
        row["api_events"] = face.row_events(i)
        if face.channels is not None:  # gpt-oss: the Harmony channel(s) of the row's segments
            row["api_channels"] = face.channels[i]
    return face.to_dict()
