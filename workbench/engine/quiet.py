"""vLLM's start-up chatter kept out of the terminal and the notebook cell.

Starting an engine prints warnings, progress bars, C++ notices and log lines
(torch's "Triton not available", FutureWarnings, vLLM's INFO). ``quiet()`` sends
them to a log file (``log_path()``); WORKBENCH_ENGINE_LOGS=1 shows them instead.
"""

from __future__ import annotations

import inspect
import logging
import os
import sys
import warnings
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path


def log_path() -> Path:
    from workbench.core.tokenizers import cache_dir

    return cache_dir() / "logs" / "engine-start.log"


@contextmanager
def quiet():
    """vLLM's start-up chatter (warnings, progress bars, C++ notices) goes to a log
    file instead of the terminal or the notebook cell; WORKBENCH_ENGINE_LOGS=1 shows it.

    Three routes are closed: file descriptors 1/2 (C++ and subprocesses), sys.stdout
    and sys.stderr (in Jupyter they are the cell's streams, not the descriptors), and
    logging handlers that hold one of those streams since they were made (torch's
    "Triton not available", vLLM's INFO lines)."""
    if os.environ.get("WORKBENCH_ENGINE_LOGS") == "1":
        yield
        return
    path = log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with path.open("w") as log:
        streams = {id(x) for x in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)}
        held = [(h, h.setStream(log)) for h in _stream_handlers() if id(h.stream) in streams]
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            with redirect_stdout(log), redirect_stderr(log), warnings.catch_warnings():
                warnings.simplefilter("default")  # each warning once, into the log
                warnings.showwarning = lambda message, category, filename, lineno, file=None, \
                    line=None: log.write(warnings.formatwarning(message, category, filename, lineno, line))
                yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for h, stream in held:
                h.setStream(stream)
            # vLLM re-runs its logging dictConfig while the engine starts, making new
            # handlers on the sys.stderr of that moment: this log file, closed below.
            for h in _stream_handlers():
                if h.stream is log:
                    h.setStream(CURRENT_STDERR)
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


class _CurrentStderr:
    """Whatever ``sys.stderr`` is when a line is written (what vLLM's
    ``ext://sys.stderr`` means), not the object it was when the handler was made."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


CURRENT_STDERR = _CurrentStderr()


def _stream_handlers() -> list[logging.StreamHandler]:
    loggers = [logging.getLogger()] + [x for x in logging.Logger.manager.loggerDict.values()
                                       if isinstance(x, logging.Logger)]
    # logging.lastResort-like handlers (a read-only ``stream``: always the current
    # sys.stderr) are covered by redirect_stderr and cannot be re-pointed.
    return [h for lg in loggers for h in lg.handlers
            if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler)
            and not isinstance(inspect.getattr_static(type(h), "stream", None), property)]
