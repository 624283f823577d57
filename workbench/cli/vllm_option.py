"""`--vllm VERSION` on replay, check, doctor, export and parsers.

The installed version runs the command in this process as always. Any other
listed version runs the *same* command line (minus ``--vllm``) inside its lane,
so every figure and file comes from the same code over that version's vLLM
(``workbench.cli.main`` decides where a command runs; this module has the pieces).
``parsers`` marks names that exist in only one version, and ``check`` with
several versions prints a table of findings x versions.
"""

from __future__ import annotations

from workbench.cli import common

import contextlib
import io
import sys
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError
from workbench.lanes import versions

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

IN_LANE = "workbench.cli.in_lane"  # the lane program that runs whole commands (`python -m` name)


def add_option(p: argparse.ArgumentParser, many: bool = False) -> None:
    more = " or a comma-separated list (a findings x versions table)" if many else ""
    p.add_argument("--vllm", metavar="VERSION" + ("[,VERSION...]" if many else ""),
                   help=f"the vLLM version whose parsers run: the installed one (default) or one "
                        f"listed in setup/vllm-lanes.lock{more}")


def strip_vllm(argv: list[str]) -> list[str]:
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--vllm":
            skip = True
        elif not a.startswith("--vllm="):
            out.append(a)
    return out


def run_captured(version: str, argv: list[str], main: Callable[[list[str]], int]) -> dict:
    """{"rc", "stdout", "stderr"} of `workbench ARGV` over ``version``'s vLLM; ``main``:
    the CLI's entry point, which runs it here for the installed version."""
    if versions.is_installed(version):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(argv)
        return {"rc": rc, "stdout": out.getvalue(), "stderr": err.getvalue()}
    from workbench.lanes import lane

    return lane.get(version, program=IN_LANE).call("cli", argv=argv)


def parser_entries(version: str) -> list[dict]:
    if versions.is_installed(version):
        from workbench.core.parsers import parser_table

        return parser_table()
    from workbench.lanes import lane

    return lane.get(version).call("parsers")["parsers"]


def marked_entries(version: str) -> list[dict]:
    """``version``'s registry, each name marked with the one version it exists in (or None)."""
    here = versions.installed()
    entries = parser_entries(version)
    if version == here:
        return [e | {"vllm": version, "only_in": None} for e in entries]
    other = {(e["kind"], e["name"]) for e in parser_entries(here)}
    mine = {(e["kind"], e["name"]) for e in entries}
    out = [e | {"vllm": version, "only_in": None if (e["kind"], e["name"]) in other else version}
           for e in entries]
    out += [{"kind": k, "name": n, "vllm": version, "registered": False, "only_in": here}
            for k, n in sorted(other - mine)]
    return out


def parsers(args: argparse.Namespace, wanted: list[str]) -> int:
    if len(wanted) > 1:
        raise WorkbenchError("parsers --vllm takes one version")
    entries = marked_entries(wanted[0])
    if args.json:
        common.print_json(entries)
        return 0
    from workbench.cli.render import console
    from workbench.core.writing import terminal

    t = terminal.Table(header_style="bold", title=f"vLLM {wanted[0]}")
    for col in ("kind", "name", "style", "only in", "class"):
        t.add_column(col)
    for e in entries:
        style = ("-" if e.get("registered") is False else "engine" if e.get("engine_based")
                 else "legacy" if e.get("engine_based") is False else "error")
        t.add_row(e["kind"], e["name"], style, e["only_in"] or "",
                  e.get("class") or e.get("error", ""), style="yellow" if e["only_in"] else None)
    console().print(t)
    counts = {k: sum(1 for e in entries if e["kind"] == k and e.get("registered", True)) for k in ("tool", "reasoning")}
    terminal.say("{} tool and {} reasoning parsers; {} name(s) in only one of {} and {}", counts["tool"],
                 counts["reasoning"], sum(1 for e in entries if e["only_in"]), wanted[0], versions.installed())
    return 0
