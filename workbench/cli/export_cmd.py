"""`workbench export`: a case as a standalone pytest file, or as a vLLM replay-test sample."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.cli import check_cmd

if TYPE_CHECKING:
    import argparse


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("export", help="write a standalone pytest file (or a vLLM sample) for a case")
    check_cmd.add_check_options(p)
    p.add_argument("-o", "--output", required=True, metavar="test_NAME.py",
                   help="the file to write (a .jsonl line with --format vllm-sample)")
    p.add_argument("--format", choices=("pytest", "vllm-sample"), default="pytest",
                   help="pytest (default): standalone test; vllm-sample: one JSONL line in the shape "
                        "of vLLM's replay-test samples")
    p.add_argument("--fuzz", type=int, default=100, metavar="N",
                   help="random groupings searched for a failing one to pin (default 100)")
    p.add_argument("--seed", type=int, default=20260902, metavar="S")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from workbench.check import Options, check
    from workbench.export import pytest_file as export
    from workbench.export import authored as export_code
    from workbench.cli import common
    from workbench.core.writing.terminal import say

    common.refuse_existing(args.output, args.force)
    session, deltas, _ = check_cmd.load(args)
    if args.format == "vllm-sample":
        if session.api != "chat":
            from workbench.errors import WorkbenchError

            raise WorkbenchError(f"a vLLM replay-test sample is a chat parser case: it has no --api "
                                 f"{session.api} (export --format pytest --api {session.api} does)")
        case = export.build_case(session, deltas)
        result = session.replay(deltas)
        sample = export.vllm_sample(case, result.nonstream, Path(args.output).stem,
                                    description=f"stream: {result.stream}")
        path = export.write_sample(args.output, sample, args.force)
        say("wrote {}: {} tokens, expected = the non-streaming answer", path, len(sample["tokens"]))
        return 0
    report = check(session, deltas, Options(fuzz=args.fuzz, seed=args.seed, text_budget_s=0, cost=False))
    case = export.build_case(session, deltas, report)
    code = export_code.copies(session)
    path = export.write_pytest(args.output, case, args.force, code)
    failures = export.self_check(path)
    total = 1 + 2 * len(case["groupings"]) + 1
    say("wrote {}: {} tests over {} tokens ({} groupings besides one-token deltas)", path, total,
        len(case["token_ids"]), len(case["groupings"]))
    for name, _ in code:
        say("  beside it: {} (the test loads this copy; fix it there, or export again)", path.parent / name)
    if failures:
        say("it FAILS now ({} of {}), as it should while the bug is present:", len(failures), total)
        for test_id, message in failures:
            say("  {}: {}", test_id, message[:200])
    else:
        severe = [f for f in report.findings if f.severe]
        if severe:
            say("it passes now; note: check's {} finding(s) are outside the parser (e.g. the serving layer's "
                "finish_reason), which the file does not test", len(severe))
        else:
            say("it passes now")
    if session.api != "chat":
        say("note: it tests the parser as vLLM's {} server calls it (that API's request); the {} events "
            "themselves (`workbench check --api {}`) are not in it", session.api, session.api, session.api)
    from workbench.core.writing import command

    say("run it: {}", command.join(["pytest", "-q", path], env={"PARSER_TOKENIZER": case["tokenizer"]["path"]}))
    return 0
