"""`workbench watch FILE ... [check flags]`: the author's fast loop.

vLLM is imported once; `check` (or, with --replay, `replay`) runs again in this process each
time a watched file changes (check with the loop's lighter defaults, LOOP_DEFAULTS, unless
its flags are given): the FILEs given first (a .toml is the --config, a .py a
--plugin, a .jsonl the recording, anything else the --text-file) and every file the flags
name. After the first run only what changed is read again: an unchanged plugin is not
imported again (core/plugins.py), the tokenizer and vLLM's modules stay loaded, and a
`--vllm` lane stays started between runs. A bad edit is one line, and the watch goes on.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Callable

# check's flags a loop answers with unless given: fewer random groupings, two-chunk splits next to
# the markers only, a shorter shrink, no cost profile (a 300-token case in under a second).
LOOP_DEFAULTS = {"--fuzz": ["20"], "--splits": ["markers"], "--shrink-budget": ["1"], "--no-cost": []}
FILE_FLAGS = ("--config", "--plugin", "--text-file", "--tools", "--messages", "--request", "--deltas",
              "--chat-template")
OWN = {"--replay": 0, "--once": 0, "--interval": 1}
MAX_INTERVAL = 3600.0
BY_SUFFIX = {".toml": "--config", ".py": "--plugin", ".jsonl": None}


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser(
        "watch", help="re-run check (or replay) in one warm process whenever the parser or the text changes",
        description="workbench watch FILE ... [--replay] [--once] [--interval S] [check or replay flags]: FILEs "
                    "first (a .toml is the --config, a .py a --plugin, a .jsonl the recording, any other file "
                    "the --text-file); the files the flags name are watched too. check runs with --fuzz 20 "
                    "--splits markers --shrink-budget 1 --no-cost unless those flags are given. Ctrl+C ends it.")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="FILE ... [flags]",
                   help="--replay: run replay instead of check; --once: run once and stop; --interval S: "
                        "seconds between looks at the files (default 0.1)")
    p.set_defaults(run=run)


def command(argv: list[str]) -> tuple[list[str], list[str], dict]:
    """(the command line to run, the files to watch, watch's own options) from watch's argv."""
    own: dict = {"replay": False, "once": False, "interval": 0.1}
    rest, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a in OWN:
            if OWN[a]:
                if i + 1 >= len(argv):
                    raise WorkbenchError(f"{a} needs a value")
                try:
                    own["interval"] = float(argv[i + 1])
                except ValueError:
                    raise WorkbenchError(f"--interval {argv[i + 1]!r}: not a number of seconds") from None
            else:
                own[a[2:]] = True
            i += 1 + OWN[a]
            continue
        rest.append(a)
        i += 1
    files, flags = [], list(rest)
    while flags and not flags[0].startswith("-"):
        files.append(flags.pop(0))
    run = ["replay" if own["replay"] else "check"]
    taken: dict[str | None, str] = {}
    for f in files:
        flag = BY_SUFFIX.get(Path(f).suffix.lower(), "--text-file")
        if flag in taken and flag != "--plugin":  # the command takes one of each: the last would win
            what = "the recording" if flag is None else f"the {flag}"
            raise WorkbenchError(f"watch: {taken[flag]} and {f} would both be {what}; give one (a .py is a "
                                 f"--plugin, any number of them)")
        taken[flag] = f
        run += [f] if flag is None else [flag, f]
    run += flags
    if not own["replay"]:
        given = {a.split("=", 1)[0] for a in flags}
        run += [x for flag, value in LOOP_DEFAULTS.items() if flag not in given for x in (flag, *value)]
    watched = files + [flags[n + 1] for n, a in enumerate(flags[:-1]) if a in FILE_FLAGS]
    watched += [a.split("=", 1)[1] for a in flags if a.split("=", 1)[0] in FILE_FLAGS and "=" in a]
    if not watched:
        raise WorkbenchError("nothing to watch: give the parser's file (a .toml or .py) or the text's file first")
    if not 0 < own["interval"] <= MAX_INTERVAL:  # nan compares false: refused here too
        raise WorkbenchError(f"--interval {own['interval']:g}: give a number of seconds above 0 and at most "
                             f"{MAX_INTERVAL:g}")
    return run, list(dict.fromkeys(watched)), own


class Watcher:
    """The watched files' stamps, and one run of the command per change."""

    def __init__(self, run: list[str], files: list[str], main: Callable[[list[str]], int]) -> None:
        self.run, self.files, self.main = run, files, main
        self.stamps = self.read_stamps()

    def read_stamps(self) -> dict[str, tuple[int, int] | None]:
        out: dict[str, tuple[int, int] | None] = {}
        for f in self.files:
            try:
                st = os.stat(f)
                out[f] = (st.st_mtime_ns, st.st_size)
            except OSError:
                out[f] = None
        return out

    def changed(self) -> list[str]:
        """The files whose stamp moved since the last look (and remember the new stamps)."""
        now = self.read_stamps()
        moved = [f for f in self.files if now[f] != self.stamps.get(f)]
        self.stamps = now
        return moved

    def answer(self) -> tuple[int, float]:
        """Run the command once: (its exit code, seconds)."""
        t0 = time.perf_counter()
        rc = self.main(list(self.run))
        return rc, time.perf_counter() - t0


def run(args: argparse.Namespace) -> int:
    from workbench.cli import main
    from workbench.core.writing.terminal import say

    line, files, own = command(list(args.args))
    watcher = Watcher(line, files, main)
    say("watch: {} (watching {}; Ctrl+C ends)", " ".join(line), ", ".join(files), err=True)
    rc, seconds = watcher.answer()
    say("watch: answered in {:.2f} s", seconds, err=True)
    if own["once"]:
        return rc
    try:
        while True:
            time.sleep(own["interval"])
            moved = watcher.changed()
            if moved:
                say("watch: {} changed", ", ".join(moved), err=True)
                rc, seconds = watcher.answer()
                if rc == 130:  # Ctrl+C inside the run: the user wants out
                    return 0
                say("watch: answered in {:.2f} s", seconds, err=True)
    except KeyboardInterrupt:
        return 0
