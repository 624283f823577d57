"""Which recordings a corpus run covers: every ``*.jsonl`` under the folders, files and
globs given, each once, in a stable order (sorted within each argument)."""

from __future__ import annotations

import glob
import hashlib
from collections.abc import Sequence
from pathlib import Path

from workbench.core import door, limits
from workbench.errors import WorkbenchError


def find(paths: list[str]) -> list[Path]:
    """The recordings named by ``paths``; one that matches nothing is an error (a typo
    must not make an empty run look like a clean one)."""
    return find_files(paths, ".jsonl", "no *.jsonl recordings there",
                      "no recordings: give folders, files or globs (or --synth N -o DIR)")


def find_files(paths: Sequence[str], suffix: str, none_there: str, none_given: str,
               skip: frozenset[str] = frozenset()) -> list[Path]:
    """The files ``paths`` name (files; folders searched recursively, and globs, for
    ``*suffix`` files not named in ``skip``): each once, sorted within each argument. No path,
    or one that matches nothing, is a WorkbenchError (``none_given``, ``ARG: none_there``)."""
    if not paths:
        raise WorkbenchError(none_given)
    out: list[Path] = []
    seen: set[Path] = set()
    for arg in paths:
        found = _expand(arg, suffix, skip)
        if not found:
            raise WorkbenchError(f"{arg}: {none_there}")
        for p in found:
            key = p.resolve()
            if key not in seen:
                seen.add(key)
                out.append(p)
    return out


def _expand(arg: str, suffix: str, skip: frozenset[str]) -> list[Path]:
    p = Path(arg)
    if p.is_dir():
        return sorted(q for q in p.rglob(f"*{suffix}") if q.is_file() and q.name not in skip)
    if p.is_file():
        return [p]
    if glob.has_magic(arg):
        hits = sorted(Path(h) for h in glob.glob(arg, recursive=True))
        return [q for h in hits for q in (sorted(h.rglob(f"*{suffix}")) if h.is_dir() else [h])
                if q.is_file() and q.suffix == suffix and q.name not in skip]
    return []


def read(path: Path) -> tuple[bytes, str]:
    """(the file's bytes, their sha256), through the reading door (a regular file within
    the recording cap); a refusal is that recording's error line, never the run's end."""
    data = door.read_bytes(path, "recording", max_bytes=limits.MAX_RECORDING_BYTES)
    return data, hashlib.sha256(data).hexdigest()


def tokenizers(paths: list[Path], override: str | None = None, sample: int = 64) -> list[str]:
    """The tokenizers the first ``sample`` recordings' headers name (or ``override``)."""
    if override:
        return [override]
    names: list[str] = []
    for p in paths[:sample]:
        try:
            first = next(door.json_lines(door.lines(p, "recording")), None)
            name = first.value["tokenizer"]["name"] if first is not None else None
        except (WorkbenchError, KeyError, TypeError):  # that recording's own line will say why
            continue
        if isinstance(name, str) and name not in names:
            names.append(name)
    return names
