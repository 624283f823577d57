"""A command line printed for a person to paste into a shell: every word is data.

``join(argv)`` quotes each word with ``shlex`` (a name ``x;touch PWNED;#`` or
``t$(touch PWNED)`` stays one word, run by no one); a word holding a control or
line-breaking character is written in bash's ``$'...'`` form instead, so the command
stays on one line and the terminal encoder has nothing left to escape. ``env`` puts
``NAME=value`` words before it, quoted the same way. Shell syntax of our own (``&&``)
goes between joined commands, never inside one. ``lines(argv)`` is the same command broken
between its options with `` \\`` continuations, for a code block a reader sees whole.
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

# what terminal.py escapes in a value: C0, DEL, C1, bidi controls, line separators, surrogates
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def word(value: object) -> str:
    """One word, quoted so a POSIX shell (or bash, for a control character) reads it back as is."""
    text = str(value)
    if not _CONTROL.search(text):
        return shlex.quote(text)
    out = []
    for ch in text:
        if ch in "\\'":
            out.append("\\" + ch)
        elif _CONTROL.match(ch):
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x80 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"


def join(argv: Iterable[object], env: Mapping[str, object] | None = None) -> str:
    """The command ``argv`` (with ``env`` assignments first) as one pasteable line."""
    words = []
    for name, value in (env or {}).items():
        if not _ENV_NAME.match(name):
            raise ValueError(f"not an environment variable name: {name!r}")
        words.append(f"{name}={word(value)}")
    return " ".join(words + [word(w) for w in argv])


def lines(argv: Iterable[object], width: int = 72) -> str:
    """The command ``argv`` as ``join`` quotes it, broken before an option (``-x``, ``--x``, kept
    with its value) where the line would pass ``width``: each break is `` \\`` and a newline,
    which a shell reads as a space. A word longer than ``width`` is never split."""
    groups: list[list[str]] = []  # the program and its arguments, then each option with its value
    for w in argv:
        opens = str(w).startswith("-")
        if groups and not opens and (not groups[-1][0].startswith("-") or len(groups[-1]) == 1):
            groups[-1].append(word(w))
        else:
            groups.append([word(w)])
    out = [""]
    for g in groups:
        piece = " ".join(g)
        if out[-1] and len(out[-1]) + 1 + len(piece) + 2 > width:
            out.append("  " + piece)
        else:
            out[-1] = f"{out[-1]} {piece}" if out[-1] else piece
    return " \\\n".join(out)
