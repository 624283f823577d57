"""Capture the log records vLLM's parsers emit while they handle one delta.

vLLM logs some parser failures at debug level and carries on (e.g. a JSON
decode error inside a tool parser). The workbench shows them on the row of the
delta that caused them, so they are captured per call instead of printed.
"""

from __future__ import annotations

import logging
import warnings
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

PARSER_LOGGERS = ("vllm.parser", "vllm.tool_parsers", "vllm.reasoning")


class _Collector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self.lines is None:
            return
        try:
            msg = record.getMessage()
        except Exception as e:  # a bad %-format in someone's log call
            msg = f"{record.msg!r} (unformattable: {e})"
        if record.exc_info and record.exc_info[1] is not None:
            msg += f" [{type(record.exc_info[1]).__name__}: {record.exc_info[1]}]"
        self.lines.append(f"{record.levelname} {record.name.removeprefix('vllm.')}: {msg}")


class _OneLine(logging.Formatter):
    """vLLM's own console format, with a logged exception as ``[Type: message]`` on the
    same line: a parser's ``logger.exception`` is a log line, not a traceback for the user."""

    def __init__(self, inner: logging.Formatter | None) -> None:
        super().__init__()
        self.inner = inner or logging.Formatter()

    def format(self, record: logging.LogRecord) -> str:
        exc_info, exc_text, stack = record.exc_info, record.exc_text, record.stack_info
        record.exc_info = record.exc_text = record.stack_info = None
        try:
            line = self.inner.format(record)
        finally:
            record.exc_info, record.exc_text, record.stack_info = exc_info, exc_text, stack
        if exc_info and exc_info[1] is not None:
            line += f" [{type(exc_info[1]).__name__}: {exc_info[1]}]"
        return line


_collector = _Collector()
_vllm_logger = logging.getLogger("vllm")


def install() -> None:
    """Route parser debug records to the collector; vLLM's stderr handler keeps its level
    and prints each record on one line."""
    if _collector in _vllm_logger.handlers:
        return
    import vllm.logger  # noqa: F401  (configures the "vllm" logger first)

    for handler in _vllm_logger.handlers:
        if not isinstance(handler.formatter, _OneLine):
            handler.setFormatter(_OneLine(handler.formatter))
    _vllm_logger.addHandler(_collector)
    for name in PARSER_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG)


def collector() -> _Collector:
    """The collector, installed: for a caller that points ``lines`` at its own list around
    one call, as ``capture`` does (the runner does it inline, once per delta)."""
    if _collector not in _vllm_logger.handlers:
        install()
    return _collector


def _drop(record: logging.LogRecord) -> bool:
    return False


def _not_a_parsers(record: logging.LogRecord) -> bool:
    return not record.name.startswith(PARSER_LOGGERS)


class muted:
    """``with muted():`` vLLM's console handlers print nothing in this block; the
    collector still collects. For calls whose failure the workbench reports itself."""

    keep = staticmethod(_drop)

    def __enter__(self) -> None:
        # only the handlers that do not have it yet: a block inside another leaves it on
        self.handlers = [h for h in _vllm_logger.handlers if h is not _collector and self.keep not in h.filters]
        for h in self.handlers:
            h.addFilter(self.keep)

    def __exit__(self, *exc: object) -> None:
        for h in self.handlers:
            h.removeFilter(self.keep)


class parsers_muted(muted):
    """``with parsers_muted():`` vLLM's console handlers print no parser record in this block
    (each is on its row's logs, or on the final answer's): the widget's, where a kernel's
    stderr turns Hermes's expected ERROR lines into JupyterLab's error badge."""

    keep = staticmethod(_not_a_parsers)


class capture:
    """``with capture() as lines:`` collects this block's parser log lines.

    A class, not a @contextmanager: it runs once per delta on the hot path."""

    __slots__ = ("lines", "outer")

    def __enter__(self) -> list[str]:
        # Checked on every entry, not once: starting an engine re-runs vLLM's
        # logging dictConfig, which drops the "vllm" logger's handlers.
        if _collector not in _vllm_logger.handlers:
            install()
        self.lines: list[str] = []
        self.outer, _collector.lines = _collector.lines, self.lines
        return self.lines

    def __exit__(self, *exc: object) -> None:
        _collector.lines = self.outer
        if self.outer is not None:
            self.outer.extend(self.lines)


LIBRARIES = ("transformers", "tokenizers", "huggingface_hub", "mistral_common", "jinja2")


class _Lines(logging.Handler):
    def __init__(self, lines: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.lines = lines

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.lines.append(f"{record.name.split('.')[0]}: {record.getMessage()}")
        except Exception as e:  # a bad %-format in someone's log call
            self.lines.append(f"{record.name.split('.')[0]}: {record.msg!r} (unformattable: {e})")


@contextmanager
def library_notes() -> Iterator[list[str]]:
    """``with library_notes() as notes:`` what the libraries under the workbench warn about
    in this block (Python warnings, the loggers of ``LIBRARIES``) is collected, one entry
    each, instead of printed: the caller shows them as notes, or not under a one-line error."""
    notes: list[str] = []
    collector = _Lines(notes)
    saved = []
    for name in LIBRARIES:
        logger = logging.getLogger(name)
        saved.append((logger, logger.handlers[:], logger.propagate))
        logger.handlers[:] = [collector]
        logger.propagate = False

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: object = None, line: str | None = None) -> None:
        notes.append(f"{category.__name__}: {message}")

    try:
        with warnings.catch_warnings():
            warnings.showwarning = show
            yield notes
    finally:
        for logger, handlers, propagate in saved:
            logger.handlers[:] = handlers
            logger.propagate = propagate
