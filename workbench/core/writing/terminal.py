"""Text for a terminal. A value (a tool name, a server's error, a path, model text) is
shown with every control character escaped (``\\x1b``, ``\\n``, ``\\u202e``), so it can
neither steer the terminal nor end the line it is on; the layout around it is ours.

``say(template, *values)`` prints one line: the template is a constant (the layout),
every value is encoded. ``console()`` is the door's rich console: a ``str`` it prints is
a value, a table is the door's ``Table`` (its cells values too), styled text comes from
``markup(template, *values)``; whatever reaches its output is encoded once more. ``Stream``
wraps the CLI's stdout and stderr: what a library or a lane prints goes through it too.
"""

from __future__ import annotations

import re
import string
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING

import rich.console
import rich.table
from rich.markup import escape as _markup_escape
from rich.segment import Segment
from rich.text import Text

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any, TextIO

# DEL, C1, the bidi embeddings/overrides/isolates and marks, the line and paragraph
# separators, and lone surrogates (which no UTF-8 output can carry); C0 comes in below
_OTHER = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_VALUE = re.compile(f"[\x00-\x1f{_OTHER}]")
_LAYOUT = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHER}]")  # newlines and tabs kept
# what ``Stream`` lets through: the SGR (colour) and erase-line sequences rich and our
# progress lines make, and a carriage return (a progress line); every other control is escaped
_PASSED = re.compile(f"(\x1b\\[[0-9;]*[mK]|\r)|[\x00-\x08\x0b\x0c\x0e-\x1f{_OTHER}]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(m: re.Match) -> str:
    c = m.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def text(value: object) -> str:
    """``value`` as one line of terminal text: every control character shown escaped."""
    s = value if isinstance(value, str) else str(value)
    return _VALUE.sub(_escape, s) if _VALUE.search(s) else s


def layout(s: str) -> str:
    """Our own multi-line text: newlines and tabs kept, every other control shown escaped."""
    return _LAYOUT.sub(_escape, s) if _LAYOUT.search(s) else s


def guard(s: str) -> str:
    """What ``Stream`` writes: ``layout`` that lets colour, erase-line and ``\\r`` through."""
    return _PASSED.sub(lambda m: m.group(1) or _escape(m), s)


class _Encoded(string.Formatter):
    """``str.format`` whose every field is formatted, then encoded."""

    def __init__(self, encode) -> None:
        self.encode = encode

    def format_field(self, value: Any, format_spec: str) -> str:
        return self.encode(format(value, format_spec))


_LINE = _Encoded(text)
_MARKUP = _Encoded(lambda s: _markup_escape(text(s)))


def line(template: str, *values: object, **named: object) -> str:
    """``template.format(*values)`` with every value encoded by ``text`` (one line)."""
    return _LINE.vformat(template, values, named)


def say(template: str, *values: object, err: bool = False, **named: object) -> None:
    """Print one line on stdout (``err``: stderr): ``line(template, *values)``."""
    stream = sys.stderr if err else sys.stdout
    stream.write(line(template, *values, **named) + "\n")


def lines(items: Iterable[object], err: bool = False) -> None:
    """Print each item as one line (a newline inside an item is shown, never kept)."""
    stream = sys.stderr if err else sys.stdout
    stream.write("".join(text(x) + "\n" for x in items))


def document(s: str, err: bool = False) -> None:
    """Print a document of ours as it is (a TOML config, JSON, a lane's own output, which
    went through this door there), its control characters other than newlines escaped."""
    (sys.stderr if err else sys.stdout).write(layout(s))


def progress(stream: TextIO, template: str, *values: object) -> None:
    """Redraw the progress line on ``stream`` (a terminal): ``\\r``, the line, erase to its end."""
    stream.write("\r" + line(template, *values) + "\x1b[K")
    stream.flush()


def progress_end(stream: TextIO) -> None:
    """The progress line stays as last drawn; what follows starts below it."""
    stream.write("\n")
    stream.flush()


def markup(template: str, *values: object) -> Text:
    """Styled text: ``template`` is rich markup of ours, every value is encoded and escaped."""
    return Text.from_markup(_MARKUP.vformat(template, values, {}))


def styled(value: object, style: str) -> Text:
    """A value in one style of ours (a phase's colour)."""
    return Text(text(value), style=style)


def cell(value: object) -> Any:
    """A value as a table cell or a printed object (a renderable: ``Text``, a table): encoded,
    never read as markup; a renderable made here passes as it is."""
    if isinstance(value, Text) or not isinstance(value, str) and hasattr(value, "__rich_console__"):
        return value
    return Text(text(value))


def cells(values: Iterable[object]) -> Text:
    """Values one per line in a cell (tool calls), each encoded."""
    return Text("\n".join(text(v) for v in values))


def stack(parts: Iterable[Text]) -> Text:
    """Styled lines (``markup``'s) one below the other, in one cell."""
    return Text("\n").join(parts)


class Table(rich.table.Table):
    """rich's table whose title, caption, headers and cells are values unless they are
    ``Text`` made here (``markup``, ``cells``)."""

    def __init__(self, *headers: object, title: object = None, caption: object = None, **kw: Any) -> None:
        super().__init__(*(cell(h) for h in headers), title=None if title is None else cell(title),
                         caption=None if caption is None else cell(caption), **kw)

    def add_column(self, header: object = "", *args: Any, **kw: Any) -> None:
        super().add_column(cell(header), *args, **kw)

    def add_row(self, *renderables: object, **kw: Any) -> None:
        super().add_row(*(None if r is None else cell(r) for r in renderables), **kw)


class Console(rich.console.Console):
    """rich's console: a ``str`` it prints is a value (``cell``); every segment it writes
    is encoded again (``layout``), so nothing a renderable holds reaches the terminal raw."""

    def print(self, *objects: Any, **kw: Any) -> None:
        super().print(*(cell(o) for o in objects), **kw)

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(s if s.control else Segment(layout(s.text), s.style, s.control)
                                      for s in buffer)


def console(width: int | None = 160) -> Console:
    """The one console every table and styled line of the CLI is printed with."""
    return Console(width=width)


class Stream:
    """A text stream that writes through ``guard``: the CLI's stdout and stderr, so what
    a library, vLLM's logger or a lane prints cannot steer the terminal either."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, s: str) -> int:
        self.stream.write(guard(s))
        return len(s)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextmanager
def guarded_stdio() -> Iterator[None]:
    """sys.stdout and sys.stderr through ``Stream`` for the duration (the CLI's boundary)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Stream(out), Stream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
