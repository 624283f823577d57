"""Every file the workbench writes for the user (``-o``, ``--save``, ``--all DIR``,
a recording) is created here: an existing file is refused unless ``force``, a failure
is one line, and no secret this process holds is written. A symbolic link is never
written through (``O_NOFOLLOW``: with ``force`` it would rewrite the file it points
at), and a file written into a folder it was given (``within``) stays inside it. ``strict_json`` is the one spelling of ``--json`` output:
strict JSON, so ``NaN`` and ``Infinity`` never reach stdout (they become ``null``).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, TextIO

    from workbench.core.secrets import ScrubbedFile


def exists_error(path: str | Path) -> WorkbenchError:
    return WorkbenchError(f"{path} exists: give another name, or --force to overwrite it")


def refuse_existing(paths: Iterable[str | Path | None], force: bool) -> None:
    """Before anything is written: every path is new, or ``force`` (and not a symbolic link)."""
    for p in [paths] if paths is None or isinstance(paths, (str, Path)) else paths:
        if p and Path(p).is_symlink():
            raise _failed(Path(p), OSError(errno.ELOOP, "a symbolic link"))
        if p and not force and Path(p).exists():
            raise exists_error(p)


def inside(path: str | Path, folder: str | Path) -> None:
    """``path`` lies in ``folder`` once every symbolic link on the way is followed (its
    nearest existing folder is checked: one that is a link out of ``folder`` is refused)."""
    at, given = Path(os.path.abspath(path)).parent, Path(os.path.abspath(folder))
    while not at.exists() and at != given and at != at.parent:
        at = at.parent
    if not at.exists():  # the folder itself is still to be made: nothing in it can lead out
        return
    real, root = Path(os.path.realpath(at)), Path(os.path.realpath(given))
    if real != root and root not in real.parents:
        raise WorkbenchError(f"cannot write {path}: {at} leads out of {folder} (a symbolic link), "
                             "and nothing is written outside the folder given")


_FLAGS = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_MODES = {"x": os.O_EXCL, "w": os.O_TRUNC, "a": os.O_APPEND}


def _open(p: Path, mode: str) -> TextIO:
    fd = os.open(p, _FLAGS | _MODES[mode], 0o666)
    return os.fdopen(fd, "a" if mode == "a" else "w", encoding="utf-8")


def _failed(p: Path, e: OSError) -> WorkbenchError:
    if e.errno == errno.ELOOP:  # O_NOFOLLOW met a link
        return WorkbenchError(f"cannot write {p}: is a symbolic link, which is not followed (give the file itself)")
    return WorkbenchError(f"cannot write {p}: {e.strerror}")


def create(path: str | Path, force: bool = False, *, mkdir: bool = False,
           within: str | Path | None = None) -> ScrubbedFile:
    """A text file opened for writing (UTF-8); ``x`` mode unless ``force``, so a file that
    appears between a check and the write is still never overwritten; never through a
    symbolic link; with ``within``, only inside that folder. What is written goes through
    the secrets scrubber (``core/secrets.py``), as the CLI's streams do."""
    from workbench.core import secrets

    p = Path(path)
    if within is not None:
        inside(p, within)
    if force and p.is_fifo():  # opening one waits for a reader, for ever if none comes
        raise WorkbenchError(f"cannot write {p}: is a FIFO (a pipe), not a regular file")
    try:
        if mkdir:
            p.parent.mkdir(parents=True, exist_ok=True)
        return secrets.ScrubbedFile(_open(p, "w" if force else "x"))
    except FileExistsError:
        raise exists_error(p) from None
    except OSError as e:
        raise _failed(p, e) from None


def append(path: str | Path) -> ScrubbedFile:
    """An existing output file opened to go on writing it (``corpus --resume``), through the
    scrubber as ``create``'s files are, never through a symbolic link."""
    from workbench.core import secrets

    try:
        return secrets.ScrubbedFile(_open(Path(path), "a"))
    except OSError as e:
        raise _failed(Path(path), e) from None


def write_text(path: str | Path, text: str, force: bool = False, *, within: str | Path | None = None) -> Path:
    p = Path(path)
    with create(p, force, within=within) as f:
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
