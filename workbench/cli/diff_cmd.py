"""`workbench diff`: one stream through two parsers, rows side by side."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.cli import common, options
from workbench.cli.vllm_option import add_option as add_vllm_option
from workbench.core.faces import APIS

if TYPE_CHECKING:
    import argparse
    from typing import Any

SPEC_HELP = ("'hermes+qwen3', 'hermes', '+qwen3' or a parsers/*.toml path; "
             "'@VERSION' runs it on that vLLM (hermes+qwen3@0.33.0); '@rust' on vllm-rs, the Rust "
             "frontend's own parsers (hermes+qwen3@rust, hermes+qwen3@rust@0.34.0)")


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("diff", help="A/B: the same stream through two parsers")
    options.add_source_options(p)
    p.add_argument("--a", required=True, metavar="SPEC", type=_spec, help=f"parser A: {SPEC_HELP}")
    p.add_argument("--b", required=True, metavar="SPEC", type=_spec, help=f"parser B: {SPEC_HELP}")
    options.add_code_options(p)
    options.add_request_options(p)
    p.add_argument("--api-b", choices=APIS, metavar="API",
                   help="side B reads the stream through this API (chat, responses, messages) while side A "
                        "reads it through --api: the two clients compared step by step (what each received) "
                        "and at the end (what each holds)")
    add_vllm_option(p, many=True, table="the same A/B in each version, side by side, and where their difference "
                                      "appears, goes or comes back; no @VERSION on --a/--b then")
    p.add_argument("--json", action="store_true", help="one JSON object: first_step, final, steps (several "
                   "--vllm versions: versions, per_version (one such object each), differences, timeline)")
    p.add_argument("--changed", action="store_true", help="show only the steps that differ")
    p.set_defaults(run=run)


def _spec(text: str) -> str:
    """The side as typed (a lane gets it as text), once it parses."""
    from workbench.runs.on_spec import parse_side

    try:
        parse_side(text)
    except ValueError:
        import argparse

        raise argparse.ArgumentTypeError(f"empty parser spec; use {SPEC_HELP}") from None
    return text.strip()


def result_of(args: argparse.Namespace):
    """The A/B the flags name, here (its notes printed)."""
    from workbench.runs.on_spec import diff_spec, parse_side

    result, notes = diff_spec(common.run_spec(args), parse_side(args.a), parse_side(args.b), args.api_b)
    for line in notes:
        common.note(args, line)
    return result


def run(args: argparse.Namespace) -> int:
    result = result_of(args)
    if args.json:
        common.print_json(result.to_dict())
    else:
        _print(result, args.changed)
    from workbench.core.diff import raised

    line = raised(result)
    if line is not None:
        from workbench.core.writing import terminal

        terminal.say("workbench diff: {}", line, err=True)
        return 1
    return 0


def _print(result, changed_only: bool) -> None:
    from workbench.cli.render import console
    from workbench.core.rows import format_tool_calls
    from workbench.core.writing.terminal import Table

    con = console()
    con.print(f"A: {result.label_a}  ({result.a.parser['class']}) on {result.api_a}")
    con.print(f"B: {result.label_b}  ({result.b.parser['class']}) on {result.api_b}")
    t = Table(header_style="bold")
    for col in ("step", "text", "A phase", "A output", "B phase", "B output", "differs"):
        t.add_column(col, overflow="fold")

    faced = result.api_a == result.api_b != "chat"  # else "events" are the machines' (or absent)

    def out(v: Any):
        if v is None:
            return "(no step)"
        if faced and v.get("events") is not None:  # an API face: its events for the step
            from workbench.cli.render_faces import event_summary

            return "; ".join(f"{e.get('type')} {event_summary(e)}".strip() for e in v["events"]) or "(no event)"
        d = v.get("visible") or v["delta"] or {}
        parts = [f"{k[0]}:{d[k]!r}" for k in ("reasoning", "content") if d.get(k) is not None]
        if d.get("tool_calls"):
            parts.append(format_tool_calls(d["tool_calls"]))
        if v["error"]:
            parts.append(f"error: {v['error']}")
        sent = any(d.get(k) for k in ("reasoning", "content", "tool_calls")) if "visible" in v else v["sse"]
        return " ".join(parts) + ("" if sent else " (nothing sent)")

    for s in result.steps:
        if changed_only and s.same:
            continue
        what = ", ".join(s.output + (["machine"] if s.machine else []))
        ref = s.a or s.b
        t.add_row(str(s.step), repr(ref["text"]), (s.a or {}).get("phase", ""), out(s.a),
                  (s.b or {}).get("phase", ""), out(s.b), what,
                  style="yellow" if s.output else ("cyan" if s.machine else None))
    con.print(t)
    f = Table(title="final message (stream: what the client ends with; nonstream: the non-streaming answer)",
              header_style="bold")
    for col in ("mode", "field", "A", "B", ""):
        f.add_column(col, overflow="fold")
    for mode, diffs in result.final.items():
        for d in diffs:
            f.add_row(mode, d.field, repr(d.a), repr(d.b), "" if d.same else "≠",
                      style=None if d.same else "yellow")
    con.print(f)
    _print_versions(con, result.across_versions)
    if result.same:
        con.print("same: every step, every state and both final messages agree")
        return
    first = result.first_step
    con.print(f"first differing step: {first if first is not None else 'none'}"
              + (f"; state machine first differs at step {result.first_machine_step}"
                 if result.first_machine_step is not None else "")
              + ("" if result.finals_same else "; final messages differ"))


def _print_versions(con, across: list[dict] | None) -> None:
    """The same parser on two vLLM versions: what each version's own answers show, "fixed in V"."""
    from workbench.core.writing import terminal
    from workbench.lanes.version_diff import verdicts

    for line in verdicts(across) if across is not None else []:
        con.print(terminal.markup("versions: {}", line))
