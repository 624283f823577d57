"""Progress of a corpus run: done / total, findings so far, rate, ETA.

``Progress`` keeps the figures; ``TerminalBar`` draws them on one line of a terminal
(stderr, redrawn at most 10 times a second, nothing when stderr is not a terminal);
the notebook passes its own ``draw`` (an ipywidgets bar, workbench/corpus/notebook.py).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from workbench.core.writing import terminal
from workbench.corpus import summary


class Progress:
    def __init__(self, total: int, draw: Callable[[Progress], None] | None = None) -> None:
        self.total, self.done, self.resumed, self.findings, self.errors = total, 0, 0, 0, 0
        self.draw = draw or (lambda p: None)
        self.t0 = time.perf_counter()

    def skip(self, n: int = 1) -> None:
        """Recordings already in the results file (``--resume``): done, not timed."""
        self.resumed += n
        self.done += n

    def update(self, line: dict) -> None:
        self.done += 1
        self.errors += bool(line.get("error"))
        self.findings += summary.count(line)
        self.draw(self)

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    @property
    def rate(self) -> float:
        """Recordings a second run in this session (resumed ones do not count)."""
        ran = self.done - self.resumed
        return ran / self.elapsed if ran and self.elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        return (self.total - self.done) / self.rate if self.rate else None

    def text(self) -> str:
        eta = "?" if self.eta is None else _clock(self.eta)
        return (f"{self.done}/{self.total} · {self.findings} findings"
                + (f" · {self.errors} errors" if self.errors else "")
                + f" · {self.rate:.1f}/s · ETA {eta}")


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds + 0.5), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class TerminalBar:
    WIDTH = 24

    def __init__(self, stream=None) -> None:
        self.stream = stream or sys.stderr
        self.on = self.stream.isatty()
        self.last = 0.0

    def __call__(self, p: Progress) -> None:
        now = time.perf_counter()
        if not self.on or (now - self.last < 0.1 and p.done < p.total):
            return
        self.last = now
        filled = int(self.WIDTH * p.done / p.total) if p.total else self.WIDTH
        bar = "█" * filled + "░" * (self.WIDTH - filled)
        terminal.progress(self.stream, "corpus {} {}", bar, p.text())

    def close(self) -> None:
        if self.on:
            terminal.progress_end(self.stream)
