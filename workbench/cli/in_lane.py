"""Whole `workbench` commands over another vLLM: the lane worker plus one op, ``command``.

``--vllm VERSION`` starts this module as its lane's program (``vllm_option.IN_LANE``),
so the lane worker itself (workbench/lanes/worker.py) runs the core and never the CLI.
A command arrives as data: its name, the run (``RunSpec.to_dict()``) and its own options
(``vllm_option.command_options``; one not sent has its default), every path absolute
(lanes/carried.py); it runs here as the CLI runs it, in the worker's empty private folder,
its output captured. The files it writes (``-o``, ``--report``, ``--all DIR``) are staged in
that folder (``core.outputs.staged``) and sent back: the calling process writes them.

One more op, ``matrix``: a matrix task's cells (conformance/task.py's payload: one case on this
version, every API x grouping), computed here as the installed version's are, one request for all.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import sys

from workbench.lanes.worker import Worker, main as serve


class CommandWorker(Worker):
    def op_command(self, name: str, spec: dict | None, options: dict) -> dict:
        import shutil
        import tempfile

        from workbench.cli import defaults, execute
        from workbench.core import outputs, secrets
        from workbench.core.prepare import RunSpec
        from workbench.lanes import carried

        module = importlib.import_module(f"workbench.cli.{name.replace('-', '_')}_cmd")
        typed = options.pop("typed", [])  # shown in a report, never parsed here
        args = argparse.Namespace(**(defaults(name) | options | dict(command=name, vllm=None, argv=typed, run=module.run)))
        args.spec = RunSpec.from_dict(carried.arrived(spec)) if spec is not None else None
        out, err = io.StringIO(), io.StringIO()
        folder = tempfile.mkdtemp(prefix="written-", dir=".")  # in the worker's private folder
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), secrets.scrubbed_stdio(), \
                    outputs.staged(os.path.abspath(folder)) as written:
                rc = execute(args)
                files = written.files()
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return {"rc": rc, "stdout": out.getvalue(), "stderr": err.getvalue(), "files": files}

    def op_matrix(self, payload: dict) -> dict:
        from workbench.conformance import task
        from workbench.lanes import carried, versions

        if payload.get("version") != versions.installed() or payload.get("frontend") != "python":
            from workbench.errors import WorkbenchError

            raise WorkbenchError(f"the vLLM {versions.installed()} lane runs its own Python cells, not "
                                 f"{payload.get('version')}/{payload.get('frontend')}")
        sent = dict(payload, run=carried.arrived(payload["run"]))
        return {"cells": task.run(None, sent.get("case"), f"{sent['version']}/python", sent)["cells"]}


if __name__ == "__main__":
    sys.exit(serve(CommandWorker))
