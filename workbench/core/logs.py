"""Capture the log records vLLM's parsers emit while they handle one delta.

vLLM logs some parser failures at debug level and carries on (e.g. a JSON
decode error inside a tool parser). The workbench shows them on the row of the
delta that caused them, so they are captured per call instead of printed.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager

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


_collector = _Collector()
_installed = False


def install() -> None:
    """Route parser debug records to the collector; vLLM's stderr handler keeps its level."""
    global _installed
    if _installed:
        return
    import vllm.logger  # noqa: F401  (configures the "vllm" logger first)

    logging.getLogger("vllm").addHandler(_collector)
    for name in PARSER_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG)
    _installed = True


@contextmanager
def capture():
    """Yields the list that receives this block's parser log lines."""
    install()
    lines: list[str] = []
    outer, _collector.lines = _collector.lines, lines
    try:
        yield lines
    finally:
        _collector.lines = outer
        if outer is not None:
            outer.extend(lines)
