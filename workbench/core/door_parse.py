"""The door's parsing half: a JSON or TOML text parsed under the input caps.

Before the parser sees the text (core/door.py reads it), refused in one line:
JSON or TOML nested deeper than ``MAX_JSON_DEPTH`` (a TOML dotted key counts its
parts), integers of more than ``MAX_INT_DIGITS`` digits (Python's own limit raises
past 4,300), and after it ``NaN`` / ``Infinity`` (and floats that overflow to them)
and lone surrogates (``"\\ud800"``, which no UTF-8 output can carry). ``Bad`` is a
refusal whose message is made only if shown (``door.json_lines``' hot loop);
``InputError`` is what the door raises for both halves.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from typing import Any

from workbench.core import limits
from workbench.errors import WorkbenchError


class InputError(WorkbenchError):
    """An input the door refuses; ``line``/``column`` when a position is known."""

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None,
                 reason: str | None = None) -> None:
        super().__init__(message)
        self.line, self.column, self.reason = line, column, reason or message



# -- JSON ----------------------------------------------------------------------
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(r"[\[\]{}]")
_LONG_DIGITS = re.compile(r"\d{%d,}" % (limits.MAX_INT_DIGITS + 1))


def _constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:24]}{'…' * (len(text) > 24)} overflows to infinity")
    return value


_DECODER = json.JSONDecoder(parse_constant=_constant, parse_float=_finite)


class Bad(Exception):
    """A refusal whose message is made only if it is shown (json_lines' hot loop)."""

    def __init__(self, message: str, reason: str, line: int | None = None, column: int | None = None) -> None:
        self.message, self.reason, self.line, self.column = message, reason, line, column

    def error(self, where: str) -> InputError:
        return InputError(f"{where}: {self.message}", line=self.line, column=self.column, reason=self.reason)


def parse_json(text: str, where: str) -> Any:
    """One JSON value, with every cap checked before the parser sees it."""
    try:
        return parse_value(text)
    except Bad as bad:
        raise bad.error(where) from None


def parse_value(text: str) -> Any:
    n = len(text)  # shorter text can neither nest that deep nor hold that long an integer
    stripped = None
    if n > limits.MAX_JSON_DEPTH and text.count("[") + text.count("{") > limits.MAX_JSON_DEPTH:
        stripped = _JSON_STRING.sub('""', text) if '"' in text else text
        _check_depth(stripped)
    if n > limits.MAX_INT_DIGITS and _LONG_DIGITS.search(text):
        _check_digits(stripped if stripped is not None else _JSON_STRING.sub('""', text) if '"' in text else text)
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as e:
        raise Bad(f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg}", f"{e.msg} at column {e.colno}",
                   e.lineno, e.colno) from None
    except (ValueError, RecursionError) as e:
        reason = str(e) if isinstance(e, ValueError) else "nested too deep"
        raise Bad(reason, reason) from None
    if "\\u" in text and ("\\ud" in text or "\\uD" in text):
        _check_strings(value)
    return value


def _check_depth(stripped: str) -> None:
    depth = 0
    for m in _BRACKETS.finditer(stripped):
        if m.group() in "[{":
            depth += 1
            if depth > limits.MAX_JSON_DEPTH:
                line = stripped.count("\n", 0, m.start()) + 1
                reason = f"nested more than {limits.MAX_JSON_DEPTH} deep"
                raise Bad(f"{reason} (line {line})", reason, line)
        else:
            depth -= 1


def _check_digits(stripped: str) -> None:
    for m in _LONG_DIGITS.finditer(stripped):
        before = stripped[m.start() - 1] if m.start() else ""
        after = stripped[m.end()] if m.end() < len(stripped) else ""
        if (before and before in ".eE+") or after in (".", "e", "E") or (before == "-" and m.start() > 1
                                                          and stripped[m.start() - 2] in "eE"):
            continue  # a float's digits: float() takes any number of them
        n = m.end() - m.start()
        raise Bad(f"an integer of {n:,} digits (the most is {limits.MAX_INT_DIGITS})", f"an integer of {n:,} digits")


def lone_surrogate(value: Any) -> tuple[str, int] | None:
    """The first string anywhere in ``value`` (keys too) that holds a lone surrogate, which
    is not Unicode text, and the surrogate's index; None when there is none."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError as e:
                return v, e.start
        elif isinstance(v, dict):
            stack.extend(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return None


def _check_strings(value: Any) -> None:
    if (found := lone_surrogate(value)) is not None:
        raise Bad(f"a string holds a lone surrogate ({found[0][:20]!r}…), which is not Unicode text",
                  "a lone surrogate")


# -- TOML ----------------------------------------------------------------------
_TOML_SKIP = re.compile(r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*',
                        re.S)
_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)|\s*\(at end of document\)")
# A run of key characters and dots: a dotted key (``a.b.c = 1``, ``[a.b.c]``) once strings
# are blanked; a float or a date holds one dot at most.
_TOML_KEY_RUN = re.compile(r'[\w"\-. \t]+')


def parse_toml(text: str, where: str) -> dict:
    """A TOML document, nesting (brackets and dotted keys) and integers capped before parsing."""
    try:
        if text.count("[") + text.count("{") > limits.MAX_JSON_DEPTH:
            _check_depth(_TOML_SKIP.sub('""', text))
        if _LONG_DIGITS.search(text):
            _check_digits(_TOML_SKIP.sub('""', text))
        if text.count(".") > limits.MAX_JSON_DEPTH:
            _check_dotted(_TOML_SKIP.sub('""', text))
    except Bad as bad:
        raise bad.error(where) from None
    try:
        data = tomllib.loads(text, parse_float=_toml_float)
    except tomllib.TOMLDecodeError as e:
        m = _TOML_AT.search(str(e))
        line, col = (int(m.group(1)), int(m.group(2))) if m and m.group(1) else (None, None)
        reason = f"TOML syntax: {_TOML_AT.sub('', str(e))}" + (f" (column {col})" if col else "")
        raise InputError(f"{where}{f' line {line}' if line else ''}: {reason}", line=line, column=col,
                         reason=reason) from None
    except (ValueError, RecursionError) as e:
        reason = str(e) if isinstance(e, ValueError) else "nested too deep"
        raise InputError(f"{where}: {reason}", reason=reason) from None
    _check_toml_values(data, where)
    return data


def _check_dotted(stripped: str) -> None:
    """Dotted keys nest without brackets, and tomllib's cost grows with the square of a
    key's parts (40,000 of them took 2 minutes): refused before it parses."""
    for m in _TOML_KEY_RUN.finditer(stripped):
        if m.group().count(".") > limits.MAX_JSON_DEPTH:
            line = stripped.count("\n", 0, m.start()) + 1
            reason = f"nested more than {limits.MAX_JSON_DEPTH} deep"
            raise Bad(f"{reason} (a dotted key, line {line})", reason, line)


def _toml_float(text: str) -> float:
    if text.lstrip("+-") in ("nan", "inf"):
        raise ValueError(f"{text} is not a number a config may hold")
    return _finite(text.replace("_", ""))


def _check_toml_values(data: dict, where: str) -> None:
    big = 10 ** limits.MAX_INT_DIGITS
    stack = [(data, 1)]
    while stack:
        v, depth = stack.pop()
        if depth > limits.MAX_JSON_DEPTH:
            raise InputError(f"{where}: nested more than {limits.MAX_JSON_DEPTH} deep",
                             reason=f"nested more than {limits.MAX_JSON_DEPTH} deep")
        if isinstance(v, dict):
            stack.extend((x, depth + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, depth + 1) for x in v)
        elif isinstance(v, int) and not isinstance(v, bool) and not -big < v < big:
            raise InputError(f"{where}: an integer of more than {limits.MAX_INT_DIGITS} digits",
                             reason=f"an integer of more than {limits.MAX_INT_DIGITS} digits")
