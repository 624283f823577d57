"""Reading what a server (or a saved log) sends, within bounds it cannot move.

A ``Clock`` holds the two time limits: the capture's overall deadline, and the longest
wait for the next whole answer or SSE ``data:`` line (``--timeout``; bytes trickled
without completing one do not count). ``decoded`` reads a body, decompressing
gzip/deflate in bounded steps, with a cap on the bytes in all (counted after
decompression); ``lines`` splits it with a cap per line and on the number of lines;
``events`` yields the ``data:`` payloads. Every overrun is one WorkbenchError naming
the limit; a byte source can be a socket or a file alike.
"""

from __future__ import annotations

import math
import time
import zlib
from collections.abc import Callable, Iterator

from workbench.core import door, limits
from workbench.errors import WorkbenchError

READ_BYTES = 64 << 10
MAX_LINE_BYTES = 8 << 20  # one SSE line (one chunk) or one JSON answer
MAX_STREAM_BYTES = 2 * limits.MAX_RECORDING_BYTES  # all of a stream, decompressed
MAX_LINES = 4 * limits.MAX_DELTAS  # a chunk is two lines ("data: ...", ""): room for comments too
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_DEADLINE_S = 600.0


def seconds(text: str, what: str) -> float:
    """A finite, positive number of seconds (argparse type and API check alike)."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise WorkbenchError(f"{what} must be a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise WorkbenchError(f"{what} must be a positive, finite number of seconds, got {text!r}")
    return value


class Clock:
    """``wait()``: how long the next read may block (TimeoutError once nothing is left);
    ``progress()``: a whole event arrived, so the next one gets ``timeout`` again."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT_S, deadline: float = DEFAULT_DEADLINE_S) -> None:
        self.timeout = seconds(timeout, "--timeout")
        self.deadline = seconds(deadline, "--deadline")
        now = time.monotonic()
        self.end = now + self.deadline
        self.due = min(now + self.timeout, self.end)

    def progress(self) -> None:
        self.due = min(time.monotonic() + self.timeout, self.end)

    def wait(self) -> float:
        left = self.due - time.monotonic()
        if left <= 0:
            raise TimeoutError(self.reason())
        return left

    def reason(self) -> str:
        if self.due >= self.end:
            return (f"the capture's deadline of {self.deadline:g} s passed "
                    f"(--deadline S allows a longer one)")
        return f"nothing whole came within {self.timeout:g} s (--timeout)"


def _decoder(encoding: str | None):
    enc = (encoding or "identity").strip().lower()
    if enc in ("", "identity"):
        return None
    if enc in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if enc == "deflate":
        return zlib.decompressobj()
    raise WorkbenchError(f"the server sent Content-Encoding {encoding[:40]!r}, which capture does not "
                         f"read (it asks for identity; gzip and deflate are read too)")


def decoded(read: Callable[[int], bytes], encoding: str | None, cap: int) -> Iterator[bytes]:
    """The body's bytes, decompressed at most ``READ_BYTES`` at a time, ``cap`` in all."""
    d = _decoder(encoding)
    total = 0
    while True:
        raw = read(READ_BYTES)
        for out in ([raw] if d is None else _inflate(d, raw, encoding)):
            total += len(out)
            if total > cap:
                raise WorkbenchError(f"the server sent more than {limits.mb(cap)} (decompressed), "
                                     f"the most a capture reads")
            if out:
                yield out
        if not raw:
            return


def _inflate(d, raw: bytes, encoding: str) -> Iterator[bytes]:
    try:
        data = raw
        while True:
            out = d.decompress(data, READ_BYTES)
            data = d.unconsumed_tail
            yield out
            if not data and len(out) < READ_BYTES:
                break
        if not raw:
            yield d.flush(READ_BYTES)
    except zlib.error as e:
        raise WorkbenchError(f"the server's {encoding} body does not decompress ({e})") from None


def lines(blocks: Iterator[bytes], what: str = "the server") -> Iterator[door.Line]:
    """The reading door's lines of a byte stream (a cap per line and on the bytes in all)."""
    return counted(door.stream_lines(blocks, what, max_bytes=MAX_STREAM_BYTES, max_line=MAX_LINE_BYTES,
                                     strip_cr=True), what)


def counted(source: Iterator[door.Line], what: str) -> Iterator[door.Line]:
    """``source`` with a cap on how many lines: a flood of empty ones is refused as soon as
    a flood of bytes would be."""
    for count, line in enumerate(source, 1):
        if count > MAX_LINES:
            raise WorkbenchError(f"{what} sent more than {MAX_LINES:,} lines, more than a stream of "
                                 f"{limits.MAX_DELTAS:,} chunks has")
        yield line


def events(stream_lines: Iterator[door.Line], clock: Clock | None = None) -> Iterator[tuple[int, str]]:
    """(line number, payload) of each SSE ``data:`` line (one chunk each, as vLLM sends them);
    comments, blank lines, other fields and a last line cut short are skipped; ``[DONE]`` is
    yielded like any payload."""
    for number, _, data in named_events(stream_lines, clock):
        yield number, data


def named_events(stream_lines: Iterator[door.Line], clock: Clock | None = None) -> Iterator[tuple[int, str | None, str]]:
    """(line number, the ``event:`` name before it or None, payload) of each ``data:`` line
    (vLLM's Responses and Anthropic endpoints write ``event: T`` then ``data: JSON``); a
    blank line ends an event's name."""
    name: str | None = None
    for line in stream_lines:
        if line.cut is not None:
            continue
        text = line.text
        if text.startswith("event:"):
            name = text[6:].strip()
        elif text.startswith("data:"):
            if clock is not None:
                clock.progress()
            yield line.number, name, text[5:].strip()
            name = None
        elif not text:
            name = None
