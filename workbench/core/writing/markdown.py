"""Text for a Markdown report (``doctor --report``), read by any CommonMark viewer.

A value never becomes markup: ``inline`` backslash-escapes every character Markdown
reads as inline syntax (``<`` too, so no raw HTML, no autolink, no image) and what
would open a block at a line's start, and shows newlines and control characters
escaped, so a value cannot start a block (a heading, a fence, a list). ``code`` is a
code span and ``fence`` a fenced block, each delimited by a backtick run longer than
any in its content (the only way to close one is a run as long).
"""

from __future__ import annotations

import re

from workbench.core.writing import terminal

_SYNTAX = re.compile(r"([\\`*_\[\]<>|~&])")  # emphasis, code, links and images, HTML, cells, entities
_ORDERED = re.compile(r"\d+(?=[.)])")  # "12." or "12)" opens a list at a line's start
_TICKS = re.compile(r"`+")


def inline(value: object) -> str:
    """``value`` as literal text in a paragraph, a list item, a heading or a table cell."""
    text = _SYNTAX.sub(r"\\\1", terminal.text(value))
    if text[:1] in ("#", "+", "=", "-"):  # a heading, a list item, a setext underline
        return "\\" + text
    m = _ORDERED.match(text)
    return f"{text[:m.end()]}\\{text[m.end():]}" if m else text


cell = inline  # ``|`` is among the escaped characters: a cell cannot end early


def _run(text: str) -> int:
    return max((len(m) for m in _TICKS.findall(text)), default=0)


def code(value: object) -> str:
    """``value`` as a code span: one line, its controls shown escaped."""
    text = terminal.text(value)
    ticks = "`" * (_run(text) + 1)
    pad = " " if text[:1] == "`" or text[-1:] == "`" or (text[:1] == text[-1:] == " " and text.strip()) else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fence(value: object, lang: str = "text") -> str:
    """``value`` as a fenced code block: lines kept, other controls shown escaped; the
    fence is longer than any backtick run inside, and at least three."""
    text = terminal.layout(str(value))
    ticks = "`" * max(3, _run(text) + 1)
    info = re.sub(r"[^\w+-]", "", lang)  # an info string may not hold a backtick
    return f"{ticks}{info}\n{text}\n{ticks}"
