"""The Rust lane's kept frontends (rustfe/lane.py): ``keep_only`` bounds them per version, the
longest unused closed first, the one asked for kept."""

from __future__ import annotations

from workbench.rustfe import lane


class _Frontend:
    def __init__(self) -> None:
        self.closed = False

    @property
    def alive(self) -> bool:
        return not self.closed

    def close(self) -> None:
        self.closed = True


def _config(version: str, tool: str) -> lane.Config:
    return lane.Config(version, "/nowhere", tool, None)


def test_keep_only_closes_the_longest_unused_of_that_version(monkeypatch):
    running: dict = {}
    monkeypatch.setattr(lane, "_RUNNING", running)
    a, b, c = (_config("0.33.0", n) for n in ("a", "b", "c"))
    other = _config("0.34.0", "a")
    fronts = {cfg: _Frontend() for cfg in (a, b, other)}
    running.update(fronts)
    lane.keep_only(a, most=2)  # a is used again: b is now the longest unused of 0.33.0
    assert list(running) == [b, other, a]
    lane.keep_only(c, most=2)  # c is about to start: b goes, a stays, 0.34.0's is not counted
    assert list(running) == [other, a] and fronts[b].closed and not fronts[a].closed
    assert not fronts[other].closed
