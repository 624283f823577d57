"""Generated Python (the pytest files ``export`` and ``doctor --report`` write).

Every value in generated code is a literal made here: ``literal`` (``repr``; ``pretty``:
``pprint``'s layout of the same reprs), ``comment`` (one ``#`` line, its controls shown
escaped) and ``in_docstring`` (text inside a ``\"\"\"`` docstring: backslashes and every
quote escaped, so no ``\"\"\"`` in a folder name can close it). ``module(source, what)``
parses the whole file with ``ast`` (and compiles it) before it is written, and checks
that the docstring begins with what was put there: text that is not that module is a
bug here, refused in one line, never a file.
"""

from __future__ import annotations

import ast
import math
import pprint
import re
from typing import TYPE_CHECKING

from workbench.core.writing import terminal
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from typing import Any

_LITERALS = (str, int, float, bool, type(None), bytes)
_IN_STRING = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                        "\ud800-\udfff]")


def literal(value: Any, pretty: bool = False) -> str:
    """``value`` (str, number, bool, None, and lists, tuples and dicts of them) as Python
    source that evaluates to it."""
    _check(value)
    return pprint.pformat(value, width=100, sort_dicts=False, compact=True) if pretty else repr(value)


def _check(value: Any, depth: int = 0) -> None:
    if depth > 100:
        raise WorkbenchError("a value for generated Python is nested more than 100 deep")
    if isinstance(value, float) and not math.isfinite(value):
        raise WorkbenchError(f"{value!r} has no Python literal")
    if isinstance(value, (list, tuple)):
        for v in value:
            _check(v, depth + 1)
    elif isinstance(value, dict):
        for k, v in value.items():
            _check(k, depth + 1)
            _check(v, depth + 1)
    elif not isinstance(value, _LITERALS):
        raise WorkbenchError(f"a {type(value).__name__} has no Python literal")


def comment(value: object) -> str:
    """``value`` as one comment line (``# ...``)."""
    return "# " + terminal.text(value)


def in_docstring(value: object) -> str:
    """``value`` as text inside a (non-raw) triple-quoted string: it reads back as itself,
    newlines kept, and nothing in it can end the string."""
    s = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("'", "\\'")
    return _IN_STRING.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                          else f"\\u{ord(m.group()):04x}", s)


def docstring(value: object) -> str:
    """``value`` as a whole docstring statement."""
    return f'"""{in_docstring(value)}"""'


def fill(template: str, values: dict[str, str]) -> str:
    """``template`` with each ``@NAME@`` replaced by ``values[NAME]`` in one pass: text a value
    brings (a terminal spelled ``@CLASS@``) is never read as a placeholder."""
    def one(m: re.Match) -> str:
        if m.group(1) not in values:
            raise WorkbenchError(f"template placeholder @{m.group(1)}@ has no value (a bug here)")
        return values[m.group(1)]

    return re.sub(r"@([A-Z_]+)@", one, template)


def module(source: str, what: str, docstring_starts: str | None = None) -> str:
    """``source`` if it is a Python module (parsed with ``ast``, compiled) whose docstring
    begins with ``docstring_starts``; else one line (a bug here), and nothing is written."""
    try:
        tree = ast.parse(source, filename=what)
        compile(tree, what, "exec")
    except (SyntaxError, ValueError) as e:  # ValueError: a NUL byte
        raise WorkbenchError(f"{terminal.text(what)}: the generated Python does not parse ({terminal.text(e)}); "
                             "nothing was written") from None
    if docstring_starts is not None and not (ast.get_docstring(tree, clean=False) or "").startswith(docstring_starts):
        raise WorkbenchError(f"{terminal.text(what)}: the generated Python's docstring is not the one written; "
                             "nothing was written")
    return source
