"""`workbench parsers`: every registered tool and reasoning parser name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.cli import common


from workbench.cli.vllm_option import add_option as add_vllm_option
from workbench.core.parsers import parser_table

if TYPE_CHECKING:
    import argparse


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("parsers", help="list vLLM's registered tool and reasoning parsers")
    p.add_argument("--json", action="store_true")
    add_vllm_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    entries = parser_table()
    if args.json:
        common.print_json(entries)
        return 0
    from workbench.cli.render import console
    from workbench.core.writing.terminal import Table

    t = Table(header_style="bold")
    for col in ("kind", "name", "style", "class"):
        t.add_column(col)
    for e in entries:
        style = "engine" if e["engine_based"] else "legacy" if e["engine_based"] is False else "error"
        t.add_row(e["kind"], e["name"], style, e.get("class") or e.get("error", ""))
    console().print(t)
    return 0
