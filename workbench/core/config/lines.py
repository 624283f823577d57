"""Where each field of a parser config file is written: field path -> TOML line.

``tomllib`` returns values without positions, so config problems would have no
line to point at. This scanner walks the same text once and records the line of
every key it can name with the paths ``config_io`` uses: ``initial_state``,
``terminals.THINK_END``, ``transitions[3]``, ``transitions[3].to``. It knows
tables, arrays of tables and one-line inline tables inside arrays (TOML 1.0
inline tables cannot span lines), which covers the shape ``export-config`` writes
and the usual hand-written variants.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_KEY = re.compile(r'\s*([A-Za-z0-9_-]+|"[^"]*")\s*=')
_TABLE = re.compile(r"\s*\[\s*([A-Za-z0-9_.-]+)\s*\]")
_ARRAY_TABLE = re.compile(r"\s*\[\[\s*([A-Za-z0-9_.-]+)\s*\]\]")


def code_only(line: str) -> str:
    """The line with string contents blanked and any comment removed; same length
    up to the comment, so columns still line up."""
    out, quote, i = [], None, 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\" and quote == '"':
                out.append("  ")
                i += 2
                continue
            out.append(c if c == quote else " ")
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
            out.append(c)
        elif c == "#":
            break
        else:
            out.append(c)
        i += 1
    return "".join(out)


def locate(text: str) -> dict[str, int]:
    """{field path: 1-based line} for every key found in ``text``."""
    lines: dict[str, int] = {}
    table = ""  # prefix from the last [table] / [[array]] header
    array_counts: dict[str, int] = {}
    stack: list[str] = []  # open brackets of the value being read
    value_key = ""  # full path of the key whose value is open
    element = -1  # index of the inline table inside that value's array

    def put(path: str, n: int) -> None:
        lines.setdefault(path, n)

    for n, raw in enumerate(text.splitlines(), 1):
        line = code_only(raw)
        start = 0
        if not stack:
            if m := _ARRAY_TABLE.match(line):
                name = m.group(1)
                array_counts[name] = array_counts.get(name, -1) + 1
                table = f"{name}[{array_counts[name]}]"
                put(name, n)
                put(table, n)
                continue
            if m := _TABLE.match(line):
                table = m.group(1)
                put(table, n)
                continue
            m = _KEY.match(line)
            if not m:
                continue
            key = _unquote(raw[m.start(1):m.end(1)])
            value_key = f"{table}.{key}" if table else key
            put(value_key, n)
            element = -1
            start = m.end()
        i = start
        while i < len(line):
            c = line[i]
            if c in "[{":
                if c == "{" and stack == ["["]:
                    element += 1
                    put(f"{value_key}[{element}]", n)
                stack.append(c)
                if c == "{":
                    _inline_keys(line, raw, i + 1, _inline_prefix(value_key, element, stack), n, put)
            elif c in "]}":
                if stack:
                    stack.pop()
            i += 1
    return lines


def _inline_prefix(value_key: str, element: int, stack: list[str]) -> str:
    return f"{value_key}[{element}]" if stack == ["[", "{"] else value_key


def _inline_keys(line: str, raw: str, start: int, prefix: str, n: int,
                 put: Callable[[str, int], None]) -> None:
    """Keys of the one-line inline table opening at ``start`` (first level only)."""
    depth, i, expect_key = 0, start, True
    while i < len(line):
        c = line[i]
        if expect_key and depth == 0:
            m = _KEY.match(line, i)
            if m:
                put(f"{prefix}.{_unquote(raw[m.start(1):m.end(1)])}", n)
                i = m.end()
                expect_key = False
                continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            if depth == 0:
                return
            depth -= 1
        elif c == "," and depth == 0:
            expect_key = True
        i += 1


def _unquote(key: str) -> str:
    return key[1:-1] if key.startswith('"') else key


def line_of(lines: dict[str, int], path: str) -> int | None:
    """The line of ``path`` or of its closest written parent
    (``transitions[3].emit[1]`` -> ``transitions[3].emit`` -> ``transitions[3]``)."""
    while path:
        if path in lines:
            return lines[path]
        cut = max(path.rfind("."), path.rfind("["))
        if cut <= 0:
            return lines.get(path)
        path = path[:cut]
    return None
