"""`workbench corpus PATH...`: check (or diff) every recording under PATH, in parallel.

The parser, request and fuzz options are check's own; they become one RunSpec and check's
options (corpus/spec.py), run on each recording as `workbench check` (or `diff`) would. Exit 1 when a recording has a finding (check;
with --strict a cosmetic one too) or could not run; else 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.cli import common, options
from workbench.core.writing.terminal import say
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    import argparse

def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    from workbench.cli import check_cmd
    from workbench.corpus.spec import CORPUS_FUZZ
    from workbench.cli.vllm_option import add_option as add_vllm_option

    p = sub.add_parser("corpus", help="check or diff every recording under folders/globs, in parallel")
    p.add_argument("paths", nargs="*", metavar="PATH", help="folders (every *.jsonl below), files or globs")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--check", action="store_true", help="check each recording (the default)")
    what.add_argument("--diff", action="store_true", help="A/B each recording: --a SPEC --b SPEC")
    what.add_argument("--synth", type=int, metavar="N", help="write N synthetic recordings into -o DIR")
    p.add_argument("--a", metavar="SPEC", help="--diff: parser A (as for `workbench diff`)")
    p.add_argument("--b", metavar="SPEC", help="--diff: parser B")
    p.add_argument("--tokenizer", metavar="NAME|PATH", help="replay on this tokenizer (default: each header's)")
    p.add_argument("--chunking", type=options.chunking_arg, help="regroup each recording: token, k:N, random:SEED")
    p.add_argument("--force", action="store_true",
                   help="replay recordings whose tokenizer differs (a note); overwrite -o / --html")
    options.add_parser_options(p)
    options.add_request_options(p)
    check_cmd.add_fuzz_options(p, fuzz=CORPUS_FUZZ)
    from workbench.cli import frontend_option

    frontend_option.add_option(p, "--check: each recording's disagreements are findings (--diff: a side's "
                                  "SPEC@rust)", as_text=True)
    add_vllm_option(p, many=True)
    p.add_argument("-o", "--output", metavar="RESULTS.jsonl",
                   help="results, one line per recording, written as each finishes (--synth: the folder)")
    p.add_argument("--resume", action="store_true", help="go on with -o: skip recordings already in it")
    p.add_argument("--html", metavar="REPORT.html", help="write the report as a self-contained page")
    p.add_argument("--workers", type=int, metavar="N", help="processes (default: one per core)")
    p.add_argument("--ray", metavar="auto|ADDRESS",
                   help="run on Ray: auto starts one on this machine (127.0.0.1), ADDRESS joins a cluster")
    p.add_argument("--families", metavar="A,B", help="--synth: only these families (default: all)")
    p.add_argument("--strict", action="store_true", help="exit 1 on cosmetic findings too")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(run=run)


def build_spec(args: argparse.Namespace):
    from workbench.corpus import spec as spec_mod
    from workbench.lanes import versions

    mode = "diff" if args.diff else "check"
    if mode == "diff":
        if not (args.a and args.b):
            raise WorkbenchError("--diff needs --a SPEC and --b SPEC")
        if args.vllm:
            raise WorkbenchError("--diff compares versions with @VERSION in --a/--b, not --vllm")
    elif args.a or args.b:
        raise WorkbenchError("--a/--b are for --diff")
    return spec_mod.build(vars(args), mode, versions.parse_list(args.vllm) if args.vllm else [])


def run(args: argparse.Namespace) -> int:
    if args.synth is not None:
        return synth(args)
    from workbench.cli import corpus_terminal as terminal
    from workbench.corpus import html, progress, run as run_mod, summary

    if args.output is None and args.resume:
        raise WorkbenchError("--resume needs -o RESULTS.jsonl")
    if args.diff and args.frontend:
        raise WorkbenchError("--frontend goes with --check; for --diff name a side SPEC@rust[@VERSION]")
    if args.html:
        common.refuse_existing(args.html, args.force)  # --resume appends to -o; it rewrites nothing else
    spec = build_spec(args)
    bar = progress.TerminalBar()
    opt = run_mod.Options(args.output, args.resume, args.force, args.workers, args.ray, bar)
    out = run_mod.run(spec, args.paths, opt)
    s = summary.summarise(out.lines)
    rate = out.ran / out.seconds if out.seconds else 0.0
    where = out.runner if out.runner != "pool" else f"{out.workers} worker(s)"
    head = (f"corpus: {s.recordings} recordings ({out.ran} ran now, {out.resumed} resumed) in {out.seconds:.1f} s, "
            f"{rate:.1f}/s on {where}; {s.with_findings} with findings, "
            f"{sum(x['count'] for x in s.errors)} errors · {spec.label()}")
    if args.html:
        common.write_output(args.html, html.page(s, out.lines, "workbench corpus: " + spec.label()),
                            force=args.force)
    if args.json:
        common.print_json(s.to_dict() | {"seconds": round(out.seconds, 3), "ran": out.ran, "resumed": out.resumed,
                                         "runner": out.runner, "spec": spec.label()})
    else:
        terminal.print_report(s, head)
        if args.output:
            say("results: {}{}", args.output, f" · report: {args.html}" if args.html else "")
    return exit_code(s, out.lines, args.strict)


def exit_code(s, lines: list[dict], strict: bool) -> int:
    if s.errors:
        return 1
    if s.mode == "diff":
        return 0
    return 1 if any(k.severe or strict for k in s.kinds) else 0


def synth(args: argparse.Namespace) -> int:
    from workbench.corpus import synth as synth_mod

    if args.output is None:
        raise WorkbenchError("--synth N needs -o DIR")
    families = [f.strip() for f in args.families.split(",")] if args.families else None
    made = synth_mod.write(args.output, args.synth, seed=args.seed, families=families, force=args.force)
    say("corpus --synth: {} recordings in {}", len(made), args.output)
    return 0
