"""`workbench diff --vllm 0.32.0,0.33.0,0.34.0`: the same A/B in each version, side by side.

Each version runs the same A/B (``runs.on_spec.diff_in``): the installed one here, the others
in their lanes (the lane worker's ``diff`` op: the RunSpec and the two sides, its answer as data).
``lanes.version_diff.differences`` pairs the versions' answers and gives each way A and B
differ its timeline ("fixed in 0.33.0": they agree from 0.33.0 on); this module prints it.
"""

from __future__ import annotations

import argparse
import json

from workbench.cli import common
from workbench.lanes import versions
from workbench.lanes.fixed_in import ordered
from workbench.errors import WorkbenchError

_SHOWN = 48  # characters of a final field's value per side in a cell


def refuse_versioned_sides(args: argparse.Namespace) -> None:
    """--vllm runs both sides on each version it lists: a side naming its own is one line."""
    from workbench.runs.on_spec import parse_side

    for name in ("a", "b"):
        _, version, rust = parse_side(getattr(args, name))
        if rust:
            raise WorkbenchError(f"--{name} {getattr(args, name)} runs on vllm-rs, --vllm on Python vLLM "
                                 "versions: drop one of them")
        if version:
            raise WorkbenchError(f"--{name} {getattr(args, name)} names its vLLM and --vllm runs both sides "
                                 f"on each listed version: drop @{version} or --vllm")


def diff_in(version: str, args: argparse.Namespace) -> tuple[dict, int]:
    """(diff's --json object, its exit code) of the A/B over ``version``'s vLLM, its notes and
    a parser that raised said on stderr."""
    from workbench.core.writing import terminal
    from workbench.runs.on_spec import diff_in as run_in

    data, notes, line = run_in(version, common.run_spec(args), args.a, args.b, args.api_b)
    for note in notes:
        if versions.is_installed(version):
            common.note(args, note)
        else:
            terminal.say("workbench diff: vLLM {}: note: {}", version, note, err=True)
    if line is not None:
        terminal.say("workbench diff: vLLM {}: {}", version, line, err=True)
    return data, 0 if line is None else 1


def run(args: argparse.Namespace, order: list[str]) -> int:
    from workbench.lanes.version_diff import differences

    order = ordered(order)
    done = {v: diff_in(v, args) for v in order}
    per = {v: d for v, (d, _) in done.items()}
    rows, overall = differences(per)
    code = max(rc for _, rc in done.values())
    if args.json:
        common.print_json({"versions": order, "a": args.a, "b": args.b, "per_version": per,
                           "differences": rows, "timeline": overall})
        return code
    _print(args, order, per, rows, overall)
    return code


def _cell(kind: str, what: dict | None) -> str:
    if what is None:
        return "same"
    if kind == "step":
        fields = ", ".join(what.get("fields", []))
        return f"from step {what['first_step']}" + (f" ({fields})" if fields else "")
    return f"A {_short(what['a'])} | B {_short(what['b'])}"


def _short(value: object) -> str:
    if isinstance(value, list) and all(isinstance(c, dict) and "index" in c for c in value):
        text = "; ".join(f"{c.get('name')}({c.get('arguments') or ''})" for c in value) or "[]"
    else:
        text = repr(value) if not isinstance(value, (list, dict)) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _SHOWN else text[:_SHOWN - 1] + "…"


def _print(args: argparse.Namespace, order: list[str], per: dict, rows: list[dict], overall: dict) -> None:
    from workbench.cli.render import console
    from workbench.core.writing import terminal

    con = console()
    first = per[order[0]]
    con.print(terminal.markup("A: {}  ({}) on {}", args.a, first["a"]["parser"].get("class"), first["a"]["api"]))
    con.print(terminal.markup("B: {}  ({}) on {}", args.b, first["b"]["parser"].get("class"), first["b"]["api"]))
    t = terminal.Table(header_style="bold", title="diff: A/B x vLLM versions")
    for col in ["difference"] + order + ["note"]:
        t.add_column(col, overflow="fold")
    for r in rows:
        newest = r["in"][order[-1]]
        style = ("green" if r["fixed_in"] else None) if newest is None else (
            "red" if r["back_in"] or r["new_in"] else "yellow")
        t.add_row(f"{r['kind']} {r['field']}", *[_cell(r["kind"], r["in"][v]) for v in order], r["note"],
                  style=style)
    if rows:
        con.print(t)
    for v in order:
        d = per[v]
        terminal.say("vLLM {}: {}", v, "A and B agree" if d["same"] else
                     f"A and B differ (first step {d['first_step']})" if d["first_step"] is not None
                     else "A and B differ")
    terminal.say("A/B across versions: {}", overall["text"])
