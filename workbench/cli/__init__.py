"""`workbench` command line. Each sub-command lives in its own ``*_cmd`` module
with ``add_parser(subparsers)`` and ``run(args) -> int``."""

from __future__ import annotations

import argparse
import functools
import importlib
import sys

from workbench.errors import LaneFailed, WorkbenchError

COMMANDS = ["tokenizers", "parsers", "replay", "export_config", "diff", "record", "check", "export", "doctor",
            "capture", "corpus"]


class ArgumentParser(argparse.ArgumentParser):
    """argparse with its usage errors as one line, like every other bad input."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


@functools.cache
def build_parser() -> argparse.ArgumentParser:
    """Built once per process (argparse takes ~0.1 s for every command's options; `corpus`
    runs a command per recording). ``parse_args`` leaves it unchanged."""
    parser = ArgumentParser(
        prog="workbench",
        description="See every delta vLLM's tool-call and reasoning parsers produce.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"workbench.cli.{name}_cmd").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    import workbench.core.env  # noqa: F401
    from workbench.core import secrets

    with secrets.scrubbed_stdio():  # the output boundary: no secret leaves on stdout or stderr
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # a usage error (one line, above) or --help
        return e.code if isinstance(e.code, int) else 2
    from workbench.cli import stdout

    real, sys.stdout = sys.stdout, stdout.Guarded(sys.stdout)
    try:
        check_text_args(args)
        args.argv = sys.argv[1:] if argv is None else [str(a) for a in argv]  # doctor re-runs it as check
        elsewhere = dispatch(args, args.argv)
        code = args.run(args) if elsewhere is None else elsewhere
        sys.stdout.flush()
        return code
    except stdout.StdoutFailed as e:
        return stdout.ended(e, args.command, real)
    except WorkbenchError as e:
        print(f"workbench {args.command}: error: {e}", file=sys.stderr)
        return e.exit_code
    except LaneFailed as e:  # a bug inside a version lane: one line here, its traceback kept
        print(f"workbench {args.command}: error: {e} (a workbench bug inside the lane, not bad input; "
              f"the lane's traceback: {_keep_traceback(e.worker_traceback)})", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print(f"workbench {args.command}: interrupted", file=sys.stderr)
        return 130
    finally:
        sys.stdout = real


def _keep_traceback(text: str) -> str:
    """A lane worker's traceback, scrubbed of secrets, in a file of its own; its path."""
    import tempfile

    from workbench.core import secrets

    with tempfile.NamedTemporaryFile("w", prefix="workbench-lane-", suffix=".traceback.txt",
                                     delete=False, encoding="utf-8") as f:
        f.write(secrets.scrub(text or "(the worker sent no traceback)\n"))
    return f.name


def check_text_args(args: argparse.Namespace) -> None:
    """Every string option is UTF-8: argv's other bytes arrive as lone surrogates, which
    no output (stdout, a recording, --json) can carry."""
    from workbench.core.door import check_arg

    for key, value in vars(args).items():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str):
                check_arg(v, f"--{key.replace('_', '-')}" if key != "recording" else "the recording's path")


def dispatch(args: argparse.Namespace, argv: list[str]) -> int | None:
    """The exit code when --vllm sends the command elsewhere; None to run it here."""
    given = getattr(args, "vllm", None)
    if not given or args.command == "corpus":  # corpus passes --vllm on to each recording's check
        return None
    from workbench.cli import vllm_option
    from workbench.lanes import versions

    wanted = versions.parse_list(given)
    if args.command == "parsers":
        return vllm_option.parsers(args, wanted)
    if len(wanted) > 1:
        if args.command != "check":
            raise WorkbenchError(f"--vllm takes one version for {args.command} (several only for check)")
        from workbench.cli.check_matrix import run as check_matrix

        return check_matrix(args, vllm_option.strip_vllm(argv), wanted, main)
    if versions.is_installed(wanted[0]):
        return None
    from workbench.lanes.lane import LaneDied

    try:
        done = vllm_option.run_captured(wanted[0], vllm_option.strip_vllm(argv), main)
    except LaneDied as e:
        if args.command != "replay":
            raise
        from workbench.cli import lane_rows

        return lane_rows.replay(args, wanted[0], str(e))
    sys.stdout.write(done["stdout"])
    sys.stderr.write(done["stderr"])
    return done["rc"]


if __name__ == "__main__":
    sys.exit(main())
