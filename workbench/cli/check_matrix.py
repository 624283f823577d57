"""`workbench check REC --vllm 0.32.0,0.33.0`: findings x versions.

The table comes from ``runs.version_matrix`` (one check per version, the installed one
here, the others in their lanes); this module prints it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.lanes.fixed_in import ordered
from workbench.runs.version_matrix import exit_code, reports_of, table
from workbench.cli import common

if TYPE_CHECKING:
    import argparse


def _cell(f: dict | None) -> str:
    if f is None:
        return "—"
    mark = "~" if f["severity"] == "cosmetic" else "!" if f["severity"] == "warning" else "✗"
    step = f" step {f['first_step']}" if f.get("first_step") else ""
    return f"{mark} {f['chunking']}{step}"


def _style(row: dict) -> str | None:
    """Green when the newest version is rid of it, red when it came (back) and stays there."""
    newest = row["in"][list(row["in"])[-1]]
    if newest is None:
        return "green" if row["fixed_in"] else None
    return "red" if row["back_in"] or row["new_in"] else None


def run(args: argparse.Namespace, order: list[str]) -> int:
    from workbench.cli.check_cmd import check_options

    options = check_options(args)
    order = ordered(order)  # the columns read as the notes do: oldest first
    spec = common.run_spec(args)
    reports = reports_of(spec, options, order)
    codes = {v: exit_code(r, args.strict) for v, r in reports.items()}
    rows = table(reports, order)
    if args.json:
        common.print_json({"versions": order, "findings": rows, "reports": reports})
        return max(codes.values())
    from workbench.cli.render import console
    from workbench.core.writing import terminal

    con = console()
    t = terminal.Table(header_style="bold", title="check: findings x vLLM versions")
    for col in ["finding"] + order + ["note"]:
        t.add_column(col, overflow="fold")
    for r in rows:
        t.add_row(f"{r['kind']} {r['field']}", *[_cell(r["in"][v]) for v in order], r["note"], style=_style(r))
    con.print(t)
    for v in order:
        rep = reports[v]
        terminal.say("vLLM {}: {}, {} finding(s)", v, "consistent" if rep["consistent"] else "INCONSISTENT",
                     len(rep["findings"]))
    if not rows:
        terminal.say("no findings in any version")
    return max(codes.values())
