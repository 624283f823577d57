"""stdout while a command runs: a closed pipe (``| head -c 100``) or a full disk
(``> /dev/full``) ends the command the Unix way, never with a traceback.

A write or flush that fails raises ``StdoutFailed``; ``cli.main`` ends the command
silently with 141 (what a shell reports for a tool killed by SIGPIPE) when the
reader went away, and with one line and exit 2 otherwise. The real stdout is then
pointed at /dev/null, so the interpreter's own flush at exit cannot fail again.
"""

from __future__ import annotations

import errno
import os
import sys

EPIPE_EXIT = 141


class StdoutFailed(Exception):
    def __init__(self, error: OSError) -> None:
        super().__init__(error.strerror or str(error))
        self.errno = error.errno


class Guarded:
    __slots__ = ("_inner",)

    def __init__(self, inner) -> None:
        self._inner = inner

    def write(self, text: str):
        try:
            return self._inner.write(text)
        except OSError as e:
            raise StdoutFailed(e) from None

    def flush(self) -> None:
        try:
            self._inner.flush()
        except OSError as e:
            raise StdoutFailed(e) from None

    def __getattr__(self, name):
        return getattr(self._inner, name)


def silence(stream) -> None:
    """Point the process's real stdout at /dev/null (only that one: a test's capture is left alone)."""
    if stream is not sys.__stdout__:
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)
    except (OSError, ValueError):
        pass


def ended(e: StdoutFailed, command: str, stream) -> int:
    silence(stream)
    if e.errno == errno.EPIPE:
        return EPIPE_EXIT
    from workbench.core.writing import terminal

    terminal.say("workbench {}: error: cannot write to stdout: {}", command, e, err=True)
    return 2
