"""Whole `workbench` commands over another vLLM: the lane worker plus one op, ``cli``.

``--vllm VERSION`` starts this module as its lane's program (``vllm_option.IN_LANE``),
so the lane worker itself (workbench/lanes/worker.py) runs the core and never the CLI.
"""

from __future__ import annotations

import contextlib
import io
import sys

from workbench.lanes.worker import Worker, main as serve


class CommandWorker(Worker):
    def op_cli(self, argv: list[str]) -> dict:
        from workbench.cli import main

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as e:  # argparse
                rc = e.code if isinstance(e.code, int) else 2
        return {"rc": rc, "stdout": out.getvalue(), "stderr": err.getvalue()}


if __name__ == "__main__":
    sys.exit(serve(CommandWorker))
