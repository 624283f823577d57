"""`workbench matrix CASES...`: every case on every vLLM version x frontend x API x grouping,
one verdict per cell (match, differs, stream≠nonstream, error, n/a).

Exit 1 when a failing cell is undocumented (no known divergence allows it, and some version
passes its case); with ``--require LIST`` only when a required cell fails. 2 on bad input.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.cli import common
from workbench.core.writing.terminal import say
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    import argparse


def _list(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("matrix", help="a conformance matrix: cases x vLLM versions x frontends x APIs x groupings")
    p.add_argument("cases", nargs="+", metavar="CASES",
                   help="case files (*.toml), folders of them (parsers/cases), globs, or ai-dynamo "
                        "fixtures-stream-v2 files (*.yaml)")
    p.add_argument("--vllm", metavar="A,B,C", help="vLLM versions (default: the installed one)")
    p.add_argument("--frontend", default="python", metavar="python,rust",
                   help="frontends: vLLM's Python parsers, vllm-rs of the same version (default: python)")
    p.add_argument("--api", default="chat", metavar="chat,responses,messages", help="APIs (default: chat)")
    p.add_argument("--chunking", default="token", metavar="whole,token,markers,random:N",
                   help="groupings of the tokens into deltas (default: token); markers cuts at every "
                        "start and end of the format's markers")
    p.add_argument("--config", metavar="PARSER.toml", help="run every case with this parser config instead")
    p.add_argument("--plugin", action="append", default=[], metavar="FILE.py",
                   help="load a parser plugin for every case (repeatable)")
    p.add_argument("--dynamo-parser", metavar="TOOL[+REASONING]",
                   help="ai-dynamo fixtures: the vLLM parser names of their family (default: the family)")
    p.add_argument("--dynamo-tokenizer", metavar="NAME", default=None,
                   help="ai-dynamo fixtures: the tokenizer of their token ids (default: qwen3)")
    p.add_argument("-o", "--output", metavar="CELLS.jsonl", help="one JSON line per cell")
    p.add_argument("--html", metavar="PAGE.html", help="a static page: summary, filters, each cell's first step")
    p.add_argument("--dynamo-out", metavar="DIR",
                   help="write the cases as ai-dynamo fixtures-stream-v2 YAML (expected.vllm_python, vllm_rust)")
    p.add_argument("--against", metavar="OLD.jsonl", help="mark each cell fixed / broken / new / gone since OLD")
    p.add_argument("--require", metavar="LIST.txt",
                   help="cells that must pass, one name (or glob) a line: exit 1 when one fails")
    p.add_argument("--workers", type=int, metavar="N", help="processes (default: one per core)")
    p.add_argument("--ray", metavar="auto|ADDRESS", help="run on Ray: auto starts one on this machine")
    p.add_argument("--force", action="store_true", help="overwrite -o / --html / --dynamo-out files")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from workbench.core import door
    from workbench.lanes import versions
    from workbench.conformance import cells as cells_mod, html, run as run_mod, sources

    common.refuse_existing([args.output, args.html], args.force)
    required = (cells_mod.required(door.read_text(args.require, "--require list").splitlines())
                if args.require else None)
    old = _read_cells(args.against) if args.against else None
    cases = sources.load(args.cases, parser=args.dynamo_parser, tokenizer=args.dynamo_tokenizer)
    recordings = None
    for out in (args.output, args.html):
        if out:
            recordings = str(_beside(out))
            break
    opt = run_mod.Options(versions=versions.parse_list(args.vllm) if args.vllm else [],
                          frontends=_list(args.frontend), apis=_list(args.api), groupings=_list(args.chunking),
                          config=args.config, plugins=list(args.plugin), recordings=recordings,
                          workers=args.workers, ray=args.ray)
    if args.config:
        door.read_text(args.config, "--config file")
    for plugin in args.plugin:
        door.read_text(plugin, "--plugin file")
    from workbench.core import outputs

    partial = outputs.create(args.output, force=args.force) if args.output else None
    if partial is not None:  # each task's cells as it finishes: a run cut short keeps what it did
        def sink(done: list[dict]) -> None:
            partial.write("".join(outputs.strict_json(c) + "\n" for c in done))
            partial.flush()

        opt.sink = sink
    try:
        got = run_mod.run(cases, opt)
    finally:
        if partial is not None:
            partial.close()
    cells = got.cells
    changes = cells_mod.against(old, cells) if old is not None else None
    if changes is not None:
        by_name = {c["name"]: c["change"] for c in changes}
        for c in cells:
            c["change"] = by_name.get(cells_mod.name_of(c))
    if args.output:  # again, in the run's order, with --against's changes
        outputs.write_text(args.output, "".join(outputs.strict_json(c) + "\n" for c in cells), force=True)
    if args.html:
        from workbench.conformance import pyrs

        names = pyrs.names(opt.versions) if "rust" in opt.frontends else None
        common.write_output(args.html, html.page(cells, changes, title=f"workbench matrix: {len(got.cells)} cells",
                                                 names=names), force=args.force)
    if args.dynamo_out:
        from workbench.conformance import dynamo

        dynamo.export(cases, args.dynamo_out, opt, force=args.force)
    counts = cells_mod.counts(cells)
    failing_required = cells_mod.check_required(required, cells) if required is not None else None
    loose = cells_mod.undocumented(cells)
    head = (f"matrix: {len(cells)} cells of {got.cases} case(s) in {got.seconds:.1f} s on {got.runner} · "
            + ", ".join(f"{v} {n}" for v, n in counts.items() if n))
    if args.json:
        common.print_json({"cells": len(cells), "cases": got.cases, "tasks": got.tasks,
                           "seconds": round(got.seconds, 3), "runner": got.runner, "verdicts": counts,
                           "summary": cells_mod.summary(cells), "changes": changes,
                           "required_failing": failing_required,
                           "undocumented": [cells_mod.name_of(c) for c in loose]})
    else:
        _print(head, cells, changes, failing_required, loose)
    if failing_required is not None:
        return 1 if failing_required else 0
    return 1 if loose else 0


def _beside(path: str):
    from pathlib import Path

    p = Path(path)
    return p.with_name(p.stem + ".cases")


def _read_cells(path: str) -> list[dict]:
    from workbench.core import door

    out = []
    for i, line in enumerate(door.read_text(path, "--against file").splitlines(), 1):
        if line.strip():
            cell = door.parse_json(line, f"--against {path} line {i}")
            if not isinstance(cell, dict) or not {"case", "vllm", "frontend", "api", "grouping", "verdict"} <= set(cell):
                raise WorkbenchError(f"--against {path} line {i}: not a matrix cell (`workbench matrix -o`)")
            out.append(cell)
    return out


def _print(head: str, cells: list[dict], changes, failing_required, loose) -> None:
    from workbench.cli.render import console
    from workbench.core.writing import terminal
    from workbench.conformance import cells as cells_mod

    summary = cells_mod.summary(cells)
    columns = sorted({col for per in summary.values() for col in per})
    t = terminal.Table(header_style="bold", title="verdicts per parser (match/failing/n-a)")
    t.add_column("parser")
    for col in columns:
        t.add_column(col)
    for parser, per in sorted(summary.items()):
        row = []
        for col in columns:
            n = per.get(col, {})
            fail = sum(n.get(v, 0) for v in cells_mod.FAILING)
            row.append(f"{n.get('match', 0)}/{fail}/{n.get('n/a', 0)}" if n else "")
        t.add_row(parser, *row)
    console().print(t)
    say("{}", head)
    for c in [c for c in cells if c["verdict"] in cells_mod.FAILING][:20]:
        say("  {} {}: {}{}", cells_mod.name_of(c), c["verdict"], c.get("detail") or "",
            " (allowed: " + c["allowed"]["reason"] + ")" if c.get("allowed") else "")
    for ch in changes or []:
        say("  {} {}: {} -> {}", ch["change"], ch["cell"], ch["was"], ch["now"])
    for f in failing_required or []:
        say("workbench matrix: required cell {} is {}: {}", f["cell"], f["verdict"], f["detail"] or "", err=True)
    if failing_required is None and loose:
        say("workbench matrix: {} failing cell(s) no known divergence allows (first: {})", len(loose),
            cells_mod.name_of(loose[0]), err=True)
