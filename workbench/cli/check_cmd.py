"""`workbench check`: stream vs non-stream, chunking invariance, client contract, parser cost.

Exit 1 when any finding is not cosmetic (with --strict: any finding), else 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING


from workbench.cli import common, frontend_option, options
from workbench.cli.vllm_option import add_option as add_vllm_option
from workbench.runs.on_spec import rust_version

if TYPE_CHECKING:
    import argparse


def add_check_options(p: argparse.ArgumentParser, many_versions: bool = False) -> None:
    """Source, parser and request options as `replay`, plus how the stream ends."""
    options.add_source_options(p)
    options.add_parser_options(p)
    options.add_request_options(p)
    add_vllm_option(p, many=many_versions)


def add_fuzz_options(p: argparse.ArgumentParser, fuzz: int = 100) -> None:
    """How hard check looks: the groupings and the shrinking (also `workbench corpus`, per recording)."""
    p.add_argument("--fuzz", type=int, default=fuzz, metavar="N", help=f"random groupings (default {fuzz})")
    p.add_argument("--seed", type=int, default=20260902, metavar="S",
                   help="seed of the random groupings (default 20260902, vLLM's)")
    p.add_argument("--max-chunk", type=int, default=4, metavar="K", help="random delta size 1..K (default 4)")
    p.add_argument("--holdback", type=int, default=1, metavar="D",
                   help="detokenizer holdback: text D deltas after its ids (0: off; default 1)")
    p.add_argument("--shrink-budget", type=float, default=5.0, metavar="S",
                   help="seconds for each shrink (grouping, then text; 0: no text shrinking)")
    p.add_argument("--splits", choices=("all", "markers"), default="all",
                   help="two-chunk splits: all (default), or only next to the format's markers and every 16th")


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("check", help="find parser bugs: stream vs non-stream, groupings, client contract")
    add_check_options(p, many_versions=True)
    add_fuzz_options(p)
    p.add_argument("--no-cost", action="store_true", help="skip the per-delta cost profile")
    p.add_argument("--jobs", type=int, default=0, metavar="N", help="processes for the groupings (0: per core)")
    p.add_argument("--strict", action="store_true", help="exit 1 on cosmetic findings too")
    p.add_argument("--json", action="store_true",
                   help='one JSON object: {"consistent", "findings": [...], "checked", "cost"}')
    frontend_option.add_option(p, "where the Python parsers and vllm-rs disagree on this stream is a finding")
    p.set_defaults(run=run)


def _config_lines(session: object, deltas: list, grouping: str | None, step: int) -> list[str]:
    """For a config parser: the transition and terminal that fired at ``step``, with their
    lines (diagnosis/config/where.py; whose fault it is is the doctor's to say)."""
    from workbench.diagnosis.config import where as config_where
    from workbench.core.config.parser import config_of

    if config_of(session.parser_cls) is None:  # type: ignore[attr-defined]
        return []
    grouped = deltas if grouping in (None, "token", "source") else session.regroup(list(deltas), grouping)  # type: ignore[attr-defined]
    w = config_where.locate(session, grouped, step, session.setup.parser.config)  # type: ignore[arg-type, attr-defined]
    return ["config: " + part for part in config_where.machine_parts(w)[1:]]


def check_options(args: argparse.Namespace):
    """check's Options from the flags (also the version matrix's, in every lane)."""
    from workbench.check import Options
    from workbench.errors import WorkbenchError

    if args.fuzz < 0 or args.max_chunk < 1 or args.holdback < 0:
        raise WorkbenchError("--fuzz and --holdback must be >= 0, --max-chunk >= 1")
    return Options(fuzz=args.fuzz, seed=args.seed, max_chunk=args.max_chunk, holdback=args.holdback,
                   shrink_budget_s=max(args.shrink_budget, 0.1), text_budget_s=args.shrink_budget,
                   cost=not args.no_cost, jobs=args.jobs, splits=args.splits)


def load(args: argparse.Namespace):
    """(session, deltas, the RunSpec) like replay, with --finish-reason applied to a text source."""
    prepared = common.prepare(args, "check")
    return prepared.session, prepared.deltas, prepared.spec


def run(args: argparse.Namespace) -> int:
    from workbench.check import check
    from workbench.check.cost import summary
    from workbench.core.writing.terminal import say

    options = check_options(args)
    session, deltas, spec = load(args)
    label = spec.chunking if spec.chunking and spec.chunking != "token" else None
    report = check(session, deltas, label=label, options=options)
    rust = rust_version(getattr(args, "frontend", None))
    if rust is not None:
        report.findings += frontend_option.check_findings(args, session, deltas, rust)
        report.checked["frontend"] = f"vllm-rs {rust}"
    if args.json:
        common.print_json(report.to_dict())
        return report.exit_code(args.strict)
    spec = session.setup.parser
    holdback = f", holdback:{args.holdback}" if args.holdback else ""
    say("check: {} on {}: {} tokens, {} groupings against one-token deltas (whole, k-token batches, {} random "
        "seed {}, two-chunk splits{})", spec.label(), session.setup.tokenizer, report.checked["tokens"],
        report.checked["groupings"], args.fuzz, args.seed, holdback)
    from workbench.check import steps

    for f in report.findings:
        say("{}{}", "  ~ " if f.cosmetic else "  ! " if f.severity == "warning" else "  ✗ ", f.headline())
        grouping = label if f.chunking in ("token", "source", None) else f.chunking
        where = steps.at(session, deltas, grouping, f.first_step)
        if where is not None:
            say("      {}", steps.describe(where))
            for line in _config_lines(session, deltas, grouping, f.first_step):
                say("      {}", line)
        if f.extra.get("grouping") not in (None, "token"):
            say("      replay it: --chunking {}", f.extra["grouping"])
        if "minimal_grouping" in f.extra:
            sh = f.extra["shrink"]
            say("      minimal grouping {} (shrunk from {} in {} replays{})", f.extra["minimal_grouping"],
                f.extra["shrunk_from"], sh["tests"], "" if sh["complete"] else ", budget ran out")
        if "minimal_text" in f.extra:
            m = f.extra["minimal_text"]
            say("      minimal text ({} of {} tokens{}): {!r}", m["tokens"], m["of_tokens"],
                "" if m["complete"] else ", budget ran out", m["text"])
    if report.cost:
        say("  {}", summary(report.cost))
    severe = sum(f.severe for f in report.findings)
    warnings = sum(f.severity == "warning" for f in report.findings)
    cosmetic = len(report.findings) - severe - warnings
    verdict = "consistent" if report.consistent else "INCONSISTENT"
    say("{}: {} finding(s), {} warning(s), {} cosmetic", verdict, severe, warnings, cosmetic)
    return report.exit_code(args.strict)
