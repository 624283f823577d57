"""Every file the workbench writes for the user (``-o``, ``--save``, ``--all DIR``,
a recording) is created here: an existing file is refused unless ``force``, a failure
is one line, and no secret this process holds is written. ``strict_json`` is the one spelling of ``--json`` output:
strict JSON, so ``NaN`` and ``Infinity`` never reach stdout (they become ``null``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from workbench.core.secrets import ScrubbedFile


def exists_error(path: str | Path) -> WorkbenchError:
    return WorkbenchError(f"{path} exists: give another name, or --force to overwrite it")


def refuse_existing(paths: Iterable[str | Path | None], force: bool) -> None:
    """Before anything is written: every path is new, or ``force``."""
    if force:
        return
    for p in [paths] if paths is None or isinstance(paths, (str, Path)) else paths:
        if p and Path(p).exists():
            raise exists_error(p)


def create(path: str | Path, force: bool = False, *, mkdir: bool = False) -> ScrubbedFile:
    """A text file opened for writing (UTF-8); ``x`` mode unless ``force``, so a file that
    appears between a check and the write is still never overwritten. What is written
    goes through the secrets scrubber (``core/secrets.py``), as the CLI's streams do."""
    from workbench.core import secrets

    p = Path(path)
    if force and p.is_fifo():  # opening one waits for a reader, for ever if none comes
        raise WorkbenchError(f"cannot write {p}: is a FIFO (a pipe), not a regular file")
    try:
        if mkdir:
            p.parent.mkdir(parents=True, exist_ok=True)
        return secrets.ScrubbedFile(p.open("w" if force else "x", encoding="utf-8"))
    except FileExistsError:
        raise exists_error(p) from None
    except OSError as e:
        raise WorkbenchError(f"cannot write {p}: {e.strerror}") from None


def append(path: str | Path) -> ScrubbedFile:
    """An existing output file opened to go on writing it (``corpus --resume``), through the
    scrubber as ``create``'s files are."""
    from workbench.core import secrets

    try:
        return secrets.ScrubbedFile(Path(path).open("a", encoding="utf-8"))
    except OSError as e:
        raise WorkbenchError(f"cannot write {path}: {e.strerror}") from None


def write_text(path: str | Path, text: str, force: bool = False) -> Path:
    p = Path(path)
    with create(p, force) as f:
        try:
            f.write(text)
            f.flush()
        except OSError as e:
            raise WorkbenchError(f"cannot write {p}: {e.strerror}") from None
    return p


def strict_json(value: Any, indent: int | None = None) -> str:
    """``value`` as strict JSON text (the writing door's, ``core/writing/jsontext.py``);
    non-finite floats become null."""
    from workbench.core.writing import jsontext

    return jsontext.dumps(value, indent)
