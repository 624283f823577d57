"""The results file: one JSON line per recording, written and flushed as each finishes.

A killed run leaves every finished line whole; at most the last one is cut. ``--resume``
drops a cut last line, keeps the rest and skips the recordings they cover (same path,
same sha256, same spec key: a changed file runs again).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from workbench.core import door, outputs
from workbench.errors import WorkbenchError

MAX_RESULTS_BYTES = 16 << 30  # a results file: one line per recording, 100,000s of them


def read(path: str | Path) -> list[dict]:
    """Every whole line of a results file (a cut last line is left out)."""
    lines, _ = _whole_lines(Path(path))
    return lines


def _whole_lines(p: Path) -> tuple[list[dict], int]:
    """(the whole lines, the byte length they end at); an unterminated last line is cut."""
    out, end = [], 0
    for line in door.lines(p, "results", max_bytes=MAX_RESULTS_BYTES):
        if not line.ended:
            break
        obj = door.parse_json(line.text, f"results {p} line {line.number}")
        if not isinstance(obj, dict) or "sha256" not in obj or "spec" not in obj or "path" not in obj:
            raise WorkbenchError(f"results {p} line {line.number}: not a workbench corpus results line")
        out.append(obj)
        end += len(line.text.encode("utf-8")) + 1
    return out, end


class Writer:
    """``Writer(path, resume=False, force=False)``; ``done`` holds the (path, sha256, spec)
    of the lines already in the file when resuming (two files with one content are two
    recordings, each with its line)."""

    def __init__(self, path: str | Path, resume: bool = False, force: bool = False) -> None:
        self.path = Path(path)
        self.kept: list[dict] = []
        exists = self.path.exists()
        if exists and not (resume or force):
            raise WorkbenchError(f"{self.path} exists: --resume to go on with it, or --force to start over")
        if exists and resume:
            self.kept, end = _whole_lines(self.path)
            try:
                os.truncate(self.path, end)  # drop a line cut by a kill
            except OSError as e:
                raise WorkbenchError(f"cannot write results {self.path}: {e.strerror}") from None
            self._f = outputs.append(self.path)
        else:
            self._f = outputs.create(self.path, force=exists, mkdir=True)
        self.done = {(r["path"], r["sha256"], r["spec"]) for r in self.kept}

    def write(self, line: dict) -> None:
        try:
            self._f.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
            self._f.flush()  # in the kernel's hands: a kill -9 of this process loses nothing
        except OSError as e:
            raise WorkbenchError(f"cannot write results {self.path}: {e.strerror}") from None

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
