"""What the shared options (cli/options.py) become: a ``core.prepare.RunSpec`` (every file they
name read through the door), prepared with its notes printed; and the outputs and header fields
every command writes the same way."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core import run_options
from workbench.core.parsers import ParserSpec

if TYPE_CHECKING:
    import argparse
    from typing import Any

    from workbench.core.prepare import Prepared, Resolved, RunSpec
    from workbench.core.session import Setup


def parser_spec(args: argparse.Namespace) -> ParserSpec:
    """The parser flags (none given: no parser)."""
    return run_options.parser_spec(vars(args))


def template_options(args: argparse.Namespace) -> dict:
    return run_options.template_options(vars(args))


def run_spec(args: argparse.Namespace) -> RunSpec:
    """The flags as a RunSpec (core/run_options.py: every file they name read through the door
    first); a command sent to a lane (cli/in_lane.py) arrives with its spec made."""
    if getattr(args, "spec", None) is not None:
        return args.spec
    return run_options.spec_from_options(vars(args))


def prepare(args: argparse.Namespace, what: str = "replay", spec: RunSpec | None = None) -> Prepared:
    """The run the flags name, ready (core.prepare), its notes printed."""
    from workbench.core.prepare import prepare as prepare_run

    done = prepare_run(spec or run_spec(args), what=what)
    for line in done.notes:
        note(args, line)
    return done


def resolve(args: argparse.Namespace, what: str, with_parser: bool = True, spec: RunSpec | None = None) -> Resolved:
    """The flags' Setup and recording without a session (core.prepare.resolve), notes printed."""
    from workbench.core.prepare import resolve as resolve_run

    done = resolve_run(spec or run_spec(args), what=what, with_parser=with_parser)
    for line in done.notes:
        note(args, line)
    return done


def refuse_existing(path: str | Path, force: bool) -> None:
    """Every `-o`, `--save` and `--all DIR` never overwrites a file unless --force."""
    from workbench.core import outputs

    outputs.refuse_existing(path, force)


def write_output(path: str | Path, text: str, force: bool = False) -> None:
    from workbench.core import outputs

    outputs.write_text(path, text, force)


def print_json(value: Any, indent: int | None = None) -> None:
    """`--json`: one strict JSON object on stdout (no NaN, no Infinity, no raw control character)."""
    from workbench.core import outputs
    from workbench.core.writing import terminal

    terminal.document(outputs.strict_json(value, indent) + "\n")


def note(args: argparse.Namespace, line: str) -> None:
    from workbench.core.writing import terminal

    terminal.say("workbench {}: note: {}", args.command, line, err=True)


def api_header(setup: Setup) -> dict:
    """A recording header's API fields (absent for chat, so chat recordings stay as they were)."""
    if setup.api == "chat":
        return {}
    return {"api": setup.api, "api_request": setup.api_request}


def parser_header(setup: Setup) -> dict:
    """A recording header's ``parser``: what it was made with, hashes included."""
    from workbench.core import trust

    return trust.provenance(setup.parser, setup.plugins)


def template_header(setup: Setup) -> dict:
    """A recording header's ``chat_template`` (the --chat-template file's name and sha256), if any."""
    from workbench.core import templates

    return templates.provenance(setup.chat_template, setup.chat_template_file)
