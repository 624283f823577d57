"""`--vllm VERSION` on replay, check, doctor, export and parsers.

The installed version runs the command in this process as always. Any other
listed version runs the same command inside its lane, sent as typed data (its name,
the run as ``RunSpec.to_dict()``, its own options; never an argv), so every figure
and file comes from the same code over that version's vLLM
(``workbench.cli.dispatch`` decides where a command runs; this module has the pieces).
``parsers`` marks names that exist in only one version; ``check`` with several versions
prints a table of findings x versions, ``diff`` its A/B per version (cli/diff_matrix.py).
"""

from __future__ import annotations

from workbench.cli import common

from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError
from workbench.lanes import versions

if TYPE_CHECKING:
    import argparse

IN_LANE = "workbench.cli.in_lane"  # the lane program that runs whole commands (`python -m` name)


def add_option(p: argparse.ArgumentParser, many: bool = False, table: str = "a findings x versions table") -> None:
    more = f" or a comma-separated list ({table})" if many else ""
    p.add_argument("--vllm", metavar="VERSION" + ("[,VERSION...]" if many else ""),
                   help=f"the vLLM version whose parsers run: the installed one (default) or one "
                        f"listed in setup/vllm-lanes.lock{more}")


_NOT_SENT = frozenset({"run", "argv", "vllm", "spec", "command"})


def _has_source(args: argparse.Namespace) -> bool:
    return any(k in vars(args) for k in ("recording", "text"))


def command_options(args: argparse.Namespace) -> dict:
    """The command's own options (not the run's inputs; all of them for a command without a
    run, such as export-config), as plain values, every path absolute (lanes/carried.py);
    ``typed``: the command line as the user typed it, only ever shown (a doctor report's
    "Reproduce" line)."""
    from workbench.core.run_options import SPEC_OPTIONS
    from workbench.lanes import carried

    with_run = not _has_source(args)
    own = {k: v for k, v in vars(args).items() if k not in _NOT_SENT and (with_run or k not in SPEC_OPTIONS)}
    return carried.options(own, with_run) | {"typed": list(getattr(args, "argv", []) or [])}


def run_in_lane(version: str, args: argparse.Namespace) -> dict:
    """{"rc", "stdout", "stderr", "files"} of the command over ``version``'s vLLM: its lane
    gets the command's name, the run as ``RunSpec.to_dict()`` and the command's own options,
    every path absolute; the files it would write come back (``files``) for this process to
    write (``write_files``)."""
    from workbench.lanes import carried, lane

    spec = carried.spec(common.run_spec(args)) if _has_source(args) else None
    return lane.get(version, program=IN_LANE).call("command", name=args.command, spec=spec,
                                                   options=command_options(args))


def write_files(done: dict) -> None:
    """The files a command in a lane wrote there, written here through the writing door: the
    lane writes nothing in the user's folders (nor in the project checkout)."""
    from workbench.core import outputs

    outputs.write_staged(done.get("files") or [])


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
