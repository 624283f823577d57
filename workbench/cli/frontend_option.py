"""`--frontend python|rust[@VERSION]` on replay and check; a diff side's `SPEC@rust[@VERSION]`.

``rust`` runs the Rust lane (workbench/rustfe): the same token ids through vllm-rs's own
parsers, of the locked version's wheel (the running vLLM's when it is locked, i.e. in a
lane; else the newest). On replay the rows are the SSE vllm-rs sent; on check, where the
Python parsers and vllm-rs disagree is a finding (``frontend``).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from workbench.cli import common, render

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.core.deltas import Delta
    from workbench.core.messages import Difference
    from workbench.core.session import Session, Setup

NAMES = ("python", "rust")


def parse(text: str) -> tuple[str, str | None]:
    """'rust' -> ('rust', None); 'rust@0.34.0' -> ('rust', '0.34.0'); 'python'."""
    name, _, version = text.strip().partition("@")
    if name not in NAMES or (version and name == "python") or (_ and not version):
        raise argparse.ArgumentTypeError(f"--frontend takes python or rust[@VERSION], not {text!r}")
    return name, version or None


def text(value: str) -> str:
    """``parse``'s check, the value kept as written (corpus passes it on to each check)."""
    parse(value)
    return value.strip()


def add_option(p: argparse.ArgumentParser, what: str, as_text: bool = False) -> None:
    p.add_argument("--frontend", type=text if as_text else parse, metavar="python|rust[@VERSION]", default=None,
                   help=f"which implementation parses: vLLM's Python parsers (default) or rust, the Rust "
                        f"frontend vllm-rs of a locked wheel (@VERSION; default the newest): {what}")


def of_capture(args: argparse.Namespace, source) -> str | None:
    """The vllm-rs version a capture's server ran (its header's ``server_frontend``) when
    --frontend was not given and that version is locked; a note when it is not."""
    if getattr(args, "frontend", None) is not None or source is None:
        return None
    frontend = (source.header.get("origin") or {}).get("server_frontend") or ""
    if not frontend.startswith("vllm-rs "):
        return None
    from workbench.lanes import versions

    version = frontend.removeprefix("vllm-rs ")
    if version not in versions.locked():
        common.note(args, f"the capture came from {frontend}, whose wheel is not locked: replayed on the "
                          f"Python parsers (add it to setup/vllm-lanes.lock to replay it on vllm-rs)")
        return None
    common.note(args, f"the capture came from {frontend}: replayed on its Rust parsers (--frontend python "
                      f"for vLLM's Python ones)")
    return version


def replay(args: argparse.Namespace, version: str, loaded: tuple | None = None) -> int:
    """`workbench replay --frontend rust`: the rows vllm-rs streamed, its non-streaming answer;
    for a capture, beside the server's chunks. ``loaded``: (session, deltas, source) if read."""
    from workbench.capture import chunk_compare as capture_compare
    from workbench.core.writing import terminal
    from workbench.rustfe import lane

    if getattr(args, "save", None):
        from workbench.errors import WorkbenchError

        raise WorkbenchError("--save writes the deltas; save them from the Python replay (drop --frontend rust)")
    if loaded is None:
        prepared = common.prepare(args)
        loaded = prepared.session, prepared.deltas, prepared.recording
    session, deltas, source = loaded
    server = None
    captured = source is not None and capture_compare.is_capture(source.header) and session.setup.chunking == "token"
    if captured:
        deltas, notes = capture_compare.deltas(session, source)
    result = lane.run(session, deltas, version)
    if captured:
        here = result.parser["label"]
        if (source.header.get("origin") or {}).get("api") is None:
            server = capture_compare.compare(result, source, here, notes)
        elif result.face is not None:
            from workbench.capture import api_compare

            server = api_compare.compare(result.face, result.rows, source, here, notes,
                                         (session.setup.api_request or {}).get("tools"))
    if args.json:
        out = result.to_dict()
        out["api"] = session.api
        if result.face is not None:
            out.update({k: v for k, v in result.face.to_dict().items() if k != "notes"})
        if server is not None:
            out["server"] = server.to_dict()
        common.print_json(out)
    elif server is not None:
        from workbench.cli.capture_cmd import comparison_table

        render.console().print(comparison_table(server))
    else:
        con = render.console()
        con.print(f"frontend: {result.parser['label']} (the Rust parsers of vllm-rs, fed these token ids)")
        con.print(render.rows_table(result.rows))
        con.print(render.final_table(result.stream, result.nonstream))
        if result.face is not None and result.face.client is not None:
            client = result.face.client
            terminal.say("the {} SDK over this stream: {}", "OpenAI" if session.api == "responses" else "Anthropic",
                         "ends with its object" if "object" in client else client.get("error"))
    for note in result.notes:
        terminal.say("workbench replay: {}", note, err=True)
    if server is not None and server.first_difference is not None:
        terminal.say("workbench replay: the server's {} differ from {}'s from step {}: {}",
                     server.unit, result.parser["label"],
                     server.first_difference, server.cause, err=True)
    errors = result.errors
    if errors:
        terminal.say("workbench replay: vllm-rs answered an error at step {}: {}", errors[0].step,
                     errors[0].error, err=True)
        return 1
    return 0


def check_findings(args: argparse.Namespace, session: Session, deltas: Sequence[Delta],
                   version: str) -> list[Difference]:
    """The Python parsers (this vLLM) against vllm-rs ``version`` on the source's deltas."""
    from workbench.rustfe import side_by_side

    sides = (side_by_side.Side(session.setup.parser), side_by_side.Side(session.setup.parser, version, rust=True))
    result = side_by_side.compare(session.setup, *sides, deltas=deltas, prompt_token_ids=session.prompt_ids)
    return side_by_side.findings(result)


def doctor_diagnosis(setup: Setup, deltas: Sequence[Delta], prompt_ids: Sequence[int], version: str):
    """doctor --frontend rust: the Python parsers against vllm-rs ``version`` on the source's
    deltas, as a diagnosis (None when they agree)."""
    from workbench.rustfe import side_by_side

    sides = (side_by_side.Side(setup.parser), side_by_side.Side(setup.parser, version, rust=True))
    result = side_by_side.compare(setup, *sides, deltas=deltas, prompt_token_ids=prompt_ids)
    return side_by_side.diagnosis(result)
