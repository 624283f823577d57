"""runs/asked.py: doctor's "fixed in" over every listed vLLM, read in version order.

The lanes are stubbed (``versions.listed`` / ``installed`` and ``findings_in``): what is
tested is how the answers of every version become the verdict; a real lane asked by a real
doctor is tests/lanes/test_lane.py's.
"""

from __future__ import annotations

from workbench.diagnosis.causes import Cause
from workbench.core.run_spec import RunSpec
from workbench.runs import asked

KEY = ("stream_vs_nonstream", "content")


def _ask(monkeypatch, answers: dict, installed: str = "0.32.0", where: dict | None = None) -> dict:
    """The versions verdict of one cause (finding ``KEY`` here) when each other version
    answers ``answers[v]`` (True: has it, False: not, a str: could not run)."""
    asked_about = []

    def findings_in(v, spec, progress=None):
        asked_about.append(v)
        found = answers[v]
        return found if isinstance(found, str) else ({KEY, ("chunking", "tool_calls")} if found else set())

    # the lock's order, not the versions': a line added at the end may name an older vLLM
    monkeypatch.setattr(asked.versions, "listed", lambda: [installed, *answers])
    monkeypatch.setattr(asked.versions, "installed", lambda: installed)
    monkeypatch.setattr(asked, "findings_in", findings_in)
    cause = Cause("parser_nonstreaming", "x", where=where, findings=[{"kind": KEY[0], "field": KEY[1]}])
    asked.attach([cause], RunSpec(text="x"))
    assert sorted(asked_about) == sorted(answers)  # every other version, once
    return cause.versions


def test_fixed_then_back_in_a_later_version(monkeypatch):
    v = _ask(monkeypatch, {"0.34.0": True, "0.33.0": False})
    assert v["verdict"] == "fixed in 0.33.0, back in 0.34.0"
    assert v["checked"] == ["0.32.0", "0.33.0", "0.34.0"]
    assert (v["fixed_in"], v["back_in"]) == ("0.33.0", ["0.34.0"])
    assert v["per_version"] == {"0.32.0": "present", "0.33.0": "gone", "0.34.0": "present"}


def test_a_new_lock_line_is_read_with_the_others(monkeypatch):
    v = _ask(monkeypatch, {"0.33.0": True, "0.34.0": True, "0.35.0": False})
    assert v["verdict"] == "fixed in 0.35.0" and v["fixed_in"] == "0.35.0"
    # an older version than the installed one: the cause came with the installed vLLM
    older = _ask(monkeypatch, {"0.33.0": False, "0.31.0": False})
    assert older["verdict"] == "new in 0.32.0, fixed in 0.33.0"
    assert older["checked"] == ["0.31.0", "0.32.0", "0.33.0"]


def test_present_everywhere_and_a_version_that_could_not_run(monkeypatch):
    assert _ask(monkeypatch, {"0.33.0": True, "0.34.0": True})["verdict"] == "not fixed in any version here"
    gap = _ask(monkeypatch, {"0.33.0": "could not run: no such parser", "0.34.0": False})
    assert gap["verdict"] == "fixed in 0.34.0 (0.33.0 could not run it)"
    assert gap["per_version"]["0.33.0"] == "could not run: no such parser"
    none = _ask(monkeypatch, {"0.33.0": "could not run: x", "0.34.0": "could not run: y"})
    assert none["verdict"] == "0.33.0: could not run: x; 0.34.0: could not run: y"
    assert none["fixed_in"] is None


def test_a_cause_in_the_authors_code_says_how_it_fares(monkeypatch):
    mine = {"file": "plugin.py", "vllm": False}
    assert _ask(monkeypatch, {"0.33.0": False, "0.34.0": True}, where=mine)["verdict"] == \
        "gone with vLLM 0.33.0, back with vLLM 0.34.0"
    assert _ask(monkeypatch, {"0.33.0": True, "0.34.0": True}, where=mine)["verdict"] == \
        "the same with every vLLM here"
    # vLLM's own code keeps "fixed in"
    assert _ask(monkeypatch, {"0.33.0": False}, where={"vllm": True})["verdict"] == "fixed in 0.33.0"


def test_only_the_installed_version_listed(monkeypatch):
    installed = "0.32.0"
    monkeypatch.setattr(asked.versions, "listed", lambda: [installed])
    monkeypatch.setattr(asked.versions, "installed", lambda: installed)
    cause = Cause("parser_streaming", "x", findings=[{"kind": "chunking", "field": "content"}])
    asked.attach([cause], RunSpec(text="x"))
    assert cause.versions == {"checked": [installed], "verdict": f"only vLLM {installed} was checked"}


def test_every_lane_is_asked_at_once(monkeypatch):
    """Each version's lane is a process of its own: the second is asked before the first answers."""
    import threading

    both = threading.Barrier(2, timeout=10)  # broken (and raising) unless both wait at once

    def findings_in(v, spec, progress=None):
        both.wait()
        return {KEY} if v == "0.33.0" else set()

    monkeypatch.setattr(asked.versions, "listed", lambda: ["0.32.0", "0.33.0", "0.34.0"])
    monkeypatch.setattr(asked.versions, "installed", lambda: "0.32.0")
    monkeypatch.setattr(asked, "findings_in", findings_in)
    cause = Cause("parser_nonstreaming", "x", findings=[{"kind": KEY[0], "field": KEY[1]}])
    asked.attach([cause], RunSpec(text="x"))
    assert cause.versions["verdict"] == "fixed in 0.34.0"
