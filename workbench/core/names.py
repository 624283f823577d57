"""Names read from data that become part of a path or a command: one check for all of them.

A tokenizer folder's ``config.json`` (``model_type``), a recording's header (its tokenizer
name), a config (``extends``, a family) and a plugin's registered parser names are data: a
name from them is a name, never a path. ``path_name`` lets through what a file or folder
name of the workbench's own can be (letters, digits, ``.``, ``_``, ``-``, not starting
with ``.``; at most 100 characters) and refuses anything else in one line, before it
touches the file system: no ``/``, no ``..``, no NUL, no shell character.
tests/core/test_names.py scans workbench/ with ``ast`` for a path built from a
formatted name that does not go through here.
"""

from __future__ import annotations

import re

from workbench.errors import WorkbenchError

MAX_CHARS = 100
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*\Z")


def is_path_name(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_CHARS and _NAME.match(value) is not None


def path_name(value: object, what: str) -> str:
    """``value`` if it is a plain name (one path segment, no shell character), else a
    WorkbenchError naming ``what`` (where it was read) in one line."""
    if is_path_name(value):
        assert isinstance(value, str)
        return value
    from workbench.core.clip import clip

    raise WorkbenchError(f"{what}: {clip(value)} is not a name (letters, digits, '.', '_' and '-', "
                         f"at most {MAX_CHARS}, not starting with '.'): a name read from data never "
                         f"becomes a path")
