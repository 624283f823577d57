"""Every file the workbench writes for the user (``-o``, ``--save``, ``--all DIR``,
a recording) is created here: an existing file is refused unless ``force``, a failure
is one line, and no secret this process holds is written. A symbolic link is never
written through (``O_NOFOLLOW``: with ``force`` it would rewrite the file it points
at), and a file written into a folder it was given (``within``) stays inside it. ``strict_json`` is the one spelling of ``--json`` output:
strict JSON, so ``NaN`` and ``Infinity`` never reach stdout (they become ``null``).

A command run in a vLLM lane writes nothing itself: inside ``staged(folder)`` each file
is written to its mirror in the lane's private folder (read back there, as an exported
test's self-check does, with ``written_at``), and ``Staged.files()`` is what the lane sends
back; the calling process writes them with ``write_staged``, through this door.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any, TextIO

    from workbench.core.secrets import ScrubbedFile


class Staged:
    """The files a command asked for, written under ``root`` instead (``staged``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.order: dict[str, dict] = {}  # the path as asked -> how to write it

    def mirror(self, path: str | Path) -> Path:
        p = os.path.abspath(path)
        return self.root / p.lstrip(os.sep)

    def add(self, path: Path, force: bool, mkdir: bool, within: str | Path | None) -> Path:
        self.order.setdefault(str(path), {"path": str(path), "force": force, "mkdir": mkdir,
                                          "within": None if within is None else str(within)})
        m = self.mirror(path)
        m.parent.mkdir(parents=True, exist_ok=True)
        return m

    def files(self) -> list[dict]:
        """[{"path", "text", "force", "mkdir", "within"}] in the order they were first written."""
        return [f | {"text": self.mirror(f["path"]).read_text(encoding="utf-8")} for f in self.order.values()]


_STAGED: list[Staged] = []


@contextlib.contextmanager
def staged(root: str | Path) -> Iterator[Staged]:
    """While it is held, files are written under ``root`` (a lane's private folder), mirrored
    by their absolute path; the ``Staged`` it gives lists them."""
    _STAGED.append(Staged(Path(root)))
    try:
        yield _STAGED[-1]
    finally:
        _STAGED.pop()


def written_at(path: str | Path) -> Path:
    """Where ``path`` was written by this command: its mirror while staged, else itself."""
    if _STAGED and _STAGED[-1].mirror(path).exists():
        return _STAGED[-1].mirror(path)
    return Path(path)


def write_staged(files: list[dict]) -> list[Path]:
    """A lane's ``Staged.files()``, written here (each refused first if it exists without force)."""
    for f in files:
        refuse_existing(f["path"], bool(f["force"]))
    return [write_text(f["path"], f["text"], bool(f["force"]), mkdir=bool(f["mkdir"]), within=f.get("within"))
            for f in files]


def exists_error(path: str | Path) -> WorkbenchError:
    return WorkbenchError(f"{path} exists: give another name, or --force to overwrite it")


def refuse_existing(paths: Iterable[str | Path | None], force: bool) -> None:
    """Before anything is written: every path is new, or ``force`` (and not a symbolic link)."""
    for p in [paths] if paths is None or isinstance(paths, (str, Path)) else paths:
        if p and Path(p).is_symlink():
            raise _failed(Path(p), OSError(errno.ELOOP, "a symbolic link"))
        if p and not force and (Path(p).exists() or (_STAGED and _STAGED[-1].mirror(p).exists())):
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
    stage = _STAGED[-1] if _STAGED else None
    if stage is not None:  # in a lane: the caller writes it (write_staged), with the same checks
        if p.is_symlink():
            raise _failed(p, OSError(errno.ELOOP, "a symbolic link"))
        if not force and p.exists():
            raise exists_error(p)
        if not mkdir and not p.parent.is_dir():
            raise _failed(p, OSError(errno.ENOENT, os.strerror(errno.ENOENT)))
    try:
        if stage is not None:
            return secrets.ScrubbedFile(_open(stage.add(p, force, mkdir, within), "w" if force else "x"))
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

    if _STAGED:
        raise WorkbenchError(f"cannot go on writing {path} from a vLLM lane: run it with the installed vLLM")
    try:
        return secrets.ScrubbedFile(_open(Path(path), "a"))
    except OSError as e:
        raise _failed(Path(path), e) from None


def write_text(path: str | Path, text: str, force: bool = False, *, within: str | Path | None = None,
               mkdir: bool = False) -> Path:
    p = Path(path)
    with create(p, force, mkdir=mkdir, within=within) as f:
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
