"""`workbench check REC --vllm 0.32.0,0.33.0`: findings x versions.

The same check command runs once per version (in this process for the installed
one, in a lane for the others) with ``--json``; findings are matched across
versions by what was compared and which field (``kind``, ``field``). A finding
present in the first version and gone in a later one is "fixed in" it; one that
appears only later is "new in" it.
"""

from __future__ import annotations

from workbench.cli import common

import json
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable


def _key(f: dict) -> tuple[str, str]:
    return f["kind"], f["field"]


def _cell(f: dict | None) -> str:
    if f is None:
        return "—"
    mark = "~" if f["severity"] == "cosmetic" else "!" if f["severity"] == "warning" else "✗"
    step = f" step {f['first_step']}" if f.get("first_step") else ""
    return f"{mark} {f['chunking']}{step}"


def notes(present: dict[str, dict | None], order: list[str]) -> str:
    """'fixed in 0.33.0' / 'new in 0.33.0' against the first version; '' when all agree."""
    base = present[order[0]] is not None
    out = []
    for v in order[1:]:
        now = present[v] is not None
        if base and not now:
            out.append(f"fixed in {v}")
        elif now and not base:
            out.append(f"new in {v}")
        elif now and present[v]["severity"] != present[order[0]]["severity"]:
            out.append(f"{present[v]['severity']} in {v}")
    return ", ".join(out)


def table(reports: dict[str, dict], order: list[str]) -> list[dict]:
    keys: list[tuple[str, str]] = []
    by_version: dict[str, dict] = {}
    for v in order:
        found = {}
        for f in reports[v]["findings"]:
            found.setdefault(_key(f), f)  # the first (earliest grouping) per key
            if _key(f) not in keys:
                keys.append(_key(f))
        by_version[v] = found
    rows = []
    for k in keys:
        present = {v: by_version[v].get(k) for v in order}
        rows.append({"kind": k[0], "field": k[1], "in": present, "note": notes(present, order)})
    return rows


def run(args: argparse.Namespace, argv: list[str], order: list[str], main: Callable[[list[str]], int]) -> int:
    """``main``: the CLI's entry point, which runs the installed version's check here."""
    from workbench.cli.vllm_option import run_captured

    base = argv if "--json" in argv else argv + ["--json"]
    reports, codes = {}, {}
    for v in order:
        done = run_captured(v, base, main)
        if done["rc"] == 2:  # bad input: the version's own one-line message
            last = (done["stderr"].strip().splitlines() or ["(no message)"])[-1]
            raise WorkbenchError(f"vLLM {v}: {last.removeprefix('workbench check: error: ')}")
        try:
            reports[v] = json.loads(done["stdout"])
        except json.JSONDecodeError:
            raise WorkbenchError(f"vLLM {v}: check printed no JSON report") from None
        codes[v] = done["rc"]
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
        t.add_row(f"{r['kind']} {r['field']}", *[_cell(r["in"][v]) for v in order], r["note"],
                  style="green" if r["note"].startswith("fixed") else "red" if "new in" in r["note"] else None)
    con.print(t)
    for v in order:
        rep = reports[v]
        terminal.say("vLLM {}: {}, {} finding(s)", v, "consistent" if rep["consistent"] else "INCONSISTENT",
                     len(rep["findings"]))
    if not rows:
        terminal.say("no findings in any version")
    return max(codes.values())
