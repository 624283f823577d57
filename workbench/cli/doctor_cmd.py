"""`workbench doctor`: why a client sees what it sees, diagnosed by running vLLM's parsers.

Exit 1 when a problem is diagnosed, 0 when only notes (or nothing) remain.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.cli import common


from workbench.cli import check_cmd, common

if TYPE_CHECKING:
    import argparse


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("doctor", help="diagnose tool calls in content, thinking in content, cut-off calls...")
    check_cmd.add_check_options(p)
    p.add_argument("--json", action="store_true",
                   help='one JSON object: {"ok", "setup", "diagnoses", "tool_parsers", "reasoning_parsers", '
                        '"failures"}')
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from workbench.check.doctor import diagnose

    src = common.resolve_source(args, "diagnose")
    setup = src.setup
    if src.recording is not None:
        report = diagnose(setup, deltas=src.recording.deltas, prompt_ids=src.prompt_ids)
        from workbench.capture import compare as capture_compare

        if capture_compare.is_capture(src.recording.header):
            found = capture_compare.diagnosis(setup, src.recording)
            report.diagnoses[:0] = [found] if found else []
    else:
        report = diagnose(setup, text=src.text, finish_reason=args.finish_reason or "stop")
    if args.json:
        common.print_json(report.to_dict())
        return 0 if report.ok else 1
    s = report.setup
    print(f"doctor: {setup.parser.label()} on {s['tokenizer']}, {s['tools']} tool(s), "
          f"tool_choice={s['tool_choice']}, finish_reason={s['finish_reason']}")
    for d in report.diagnoses:
        print(f"  {'✗' if d.severity == 'problem' else 'i'} {d.code}: {d.message}")
        if d.fix:
            print(f"      fix: {d.fix}")
    if report.tool_parsers:
        print("  tool parsers that extract calls from this text (best first):")
        for r in report.tool_parsers[:8]:
            print(f"    {r['parser']:<16} {r['calls']} call(s) {', '.join(r['names'])}"
                  f"{'' if r['stream_agrees'] else '  (stream differs)'}{'' if r['valid_json'] else '  (bad JSON)'}")
    if report.reasoning_parsers:
        print("  reasoning parsers that extract the thinking: "
              + ", ".join(r["parser"] for r in report.reasoning_parsers[:8]))
    if report.failures:
        print(f"  {len(report.failures)} parser(s) could not run on this tokenizer/text: "
              + ", ".join(f"{f['kind']}:{f['parser']}" for f in report.failures))
    if not report.diagnoses:
        print("  nothing wrong found")
    return 0 if report.ok else 1
