"""The results file: its first line says what it is (``HEADER``), then one JSON line per
recording, written and flushed as each finishes.

A killed run leaves every finished line whole; at most the last one is cut. ``--resume``
goes on only with a file whose first line says it is one (any other file is never
rewritten: an unrelated ``-o`` file is refused, not emptied), drops a cut last line,
keeps the rest and skips the recordings they cover (same path, same sha256, same spec
key: a changed file runs again), except those whose worker died: they run again and
their new line, appended, is the one ``read`` returns.
"""

from __future__ import annotations

import os
from pathlib import Path

from workbench.core import door, outputs
from workbench.core.writing import jsontext
from workbench.errors import WorkbenchError

MAX_RESULTS_BYTES = 16 << 30  # a results file: one line per recording, 100,000s of them
HEADER = {"type": "workbench corpus results", "version": 1}


def read(path: str | Path) -> list[dict]:
    """Every whole line of a results file (a cut last line is left out), one per recording:
    a recording that ran again (its worker had died) has its last line."""
    return last_lines(_whole_lines(Path(path))[0])


def last_lines(lines: list[dict]) -> list[dict]:
    """The last line of each recording, in file order."""
    last = {key(ln): i for i, ln in enumerate(lines)}
    return [ln for i, ln in enumerate(lines) if last[key(ln)] == i]


def key(line: dict) -> tuple[str, str, str]:
    return line["path"], line["sha256"], line["spec"]


def retried(line: dict) -> bool:
    """A line that ``--resume`` runs again: its worker died (a crash, the OOM killer, a kill)."""
    return line.get("error_kind") == "worker"


def _whole_lines(p: Path) -> tuple[list[dict], int]:
    """(the whole lines after the header, the byte length they end at); an unterminated
    last line is cut; a file whose first line is not ``HEADER`` is refused."""
    out, end = [], 0
    for line in door.lines(p, "results", max_bytes=MAX_RESULTS_BYTES):
        if not line.ended:
            break
        obj = door.parse_json(line.text, f"results {p} line {line.number}")
        if line.number == 1:
            if obj != HEADER:
                raise WorkbenchError(f"{p}: not a workbench corpus results file (its first line does not say so): "
                                     "--resume goes on only with one (give another -o)")
        elif not isinstance(obj, dict) or "sha256" not in obj or "spec" not in obj or "path" not in obj:
            raise WorkbenchError(f"results {p} line {line.number}: not a workbench corpus results line")
        else:
            out.append(obj)
        end += len(line.text.encode("utf-8")) + 1
    if end == 0:
        raise WorkbenchError(f"{p}: not a workbench corpus results file (its first line does not say so): "
                             "--resume goes on only with one (give another -o)")
    return out, end


class Writer:
    """``Writer(path, resume=False, force=False)``; ``done`` holds the (path, sha256, spec)
    of the lines already in the file when resuming (two files with one content are two
    recordings, each with its line), less those ``retried``."""

    def __init__(self, path: str | Path, resume: bool = False, force: bool = False) -> None:
        self.path = Path(path)
        self.kept: list[dict] = []
        exists = self.path.exists() or self.path.is_symlink()
        if exists and not (resume or force):
            raise WorkbenchError(f"{self.path} exists: --resume to go on with it, or --force to start over")
        if exists and resume:
            self.kept, end = _whole_lines(self.path)
            self._f = outputs.append(self.path)  # refuses a symbolic link before anything is cut
            try:
                os.truncate(self._f.fileno(), end)  # drop a line cut by a kill
            except OSError as e:
                self._f.close()
                raise WorkbenchError(f"cannot write results {self.path}: {e.strerror}") from None
        else:
            self._f = outputs.create(self.path, force=exists, mkdir=True)
            self.write(HEADER)
        self.kept = [ln for ln in last_lines(self.kept) if not retried(ln)]
        self.done = {key(r) for r in self.kept}

    def write(self, line: dict) -> None:
        try:
            self._f.write(jsontext.dumps(line, compact=True) + "\n")
            self._f.flush()  # in the kernel's hands: a kill -9 of this process loses nothing
        except OSError as e:
            raise WorkbenchError(f"cannot write results {self.path}: {e.strerror}") from None

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

