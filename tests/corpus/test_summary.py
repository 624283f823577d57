"""corpus/summary.py (and the terminal and html reports over it): each recording's findings
over its vLLM versions, counted where a version fixed one, brought it back or first has it.

The result lines are built here in the shape corpus/task.py writes (``changes``: each
finding's presence per version); a corpus run over real lanes is tests/corpus/test_corpus.py's.
"""

from __future__ import annotations

from workbench.corpus.summary import summarise

LOST = {"kind": "stream_vs_nonstream", "field": "content", "severity": "error", "first_step": 4}


def _line(path: str, present: dict[str, bool]) -> dict:
    """A check line over ``present``'s versions (as listed) with LOST where it is True."""
    versions = {v: {"consistent": not has, "findings": [LOST] if has else [], "checked": {"tokens": 9}}
                for v, has in present.items()}
    changes = [{"kind": LOST["kind"], "field": LOST["field"], "note": "(not read)", "in": dict(present)}]
    return {"mode": "check", "path": path, "versions": versions, "changes": changes, "seconds": 0.1}


def _lines() -> list[dict]:
    # the versions as a user listed them (not sorted): the counts still read oldest first
    return [_line("a.jsonl", {"0.34.0": True, "0.32.0": True, "0.33.0": False}),   # fixed, back
            _line("b.jsonl", {"0.34.0": False, "0.32.0": True, "0.33.0": False}),  # fixed
            _line("c.jsonl", {"0.34.0": True, "0.32.0": False, "0.33.0": False})]  # new


def test_fixed_back_and_new_are_counted_per_version():
    s = summarise(_lines())
    (k,) = s.kinds
    assert k.name == "stream_vs_nonstream content"
    assert dict(k.fixed_in) == {"0.33.0": 2} and dict(k.back_in) == {"0.34.0": 1} and dict(k.new_in) == {"0.34.0": 1}
    assert k.recordings == {"0.34.0": 2, "0.32.0": 2}
    assert k.to_dict()["back_in"] == {"0.34.0": 1}
    # a recording fixed, back and fixed again, with a version the lock gained later
    again = summarise([_line("d.jsonl", {"0.32.0": True, "0.33.0": False, "0.34.0": True, "0.35.0": False})])
    assert list(again.kinds[0].fixed_in.items()) == [("0.33.0", 1), ("0.35.0", 1)]


def test_the_terminal_and_the_page_show_back_in(capsys):
    from workbench.cli.corpus_terminal import print_report
    from workbench.corpus import html

    s = summarise(_lines())
    print_report(s, "3 recordings")
    out = capsys.readouterr().out
    assert "back in" in out and "0.33.0 (2)" in out and "0.34.0 (1)" in out
    cols = {c.name: c for c in html.kind_columns(s.versions)}
    assert cols["back"].title == "back in" and cols["back"].value(s.kinds[0]) == "0.34.0: 1"
    assert cols["fixed"].value(s.kinds[0]) == "0.33.0: 2"
    # no recording came back: no such column in the terminal
    print_report(summarise(_lines()[1:2]), "1 recording")
    assert "back in" not in capsys.readouterr().out
