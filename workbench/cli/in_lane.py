"""Whole `workbench` commands over another vLLM: the lane worker plus one op, ``command``.

``--vllm VERSION`` starts this module as its lane's program (``vllm_option.IN_LANE``),
so the lane worker itself (workbench/lanes/worker.py) runs the core and never the CLI.
A command arrives as data: its name, the run (``RunSpec.to_dict()``) and its own options
(``vllm_option.command_options``; one not sent has its default); it runs here as the CLI
runs it, its output captured.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import sys

from workbench.lanes.worker import Worker, main as serve


class CommandWorker(Worker):
    def op_command(self, name: str, spec: dict | None, options: dict) -> dict:
        from workbench.cli import defaults, execute
        from workbench.core import secrets
        from workbench.core.prepare import RunSpec

        module = importlib.import_module(f"workbench.cli.{name.replace('-', '_')}_cmd")
        typed = options.pop("typed", [])  # shown in a report, never parsed here
        args = argparse.Namespace(**(defaults(name) | options | dict(command=name, vllm=None, argv=typed, run=module.run)))
        args.spec = RunSpec.from_dict(spec) if spec is not None else None
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), secrets.scrubbed_stdio():
            rc = execute(args)
        return {"rc": rc, "stdout": out.getvalue(), "stderr": err.getvalue()}


if __name__ == "__main__":
    sys.exit(serve(CommandWorker))
