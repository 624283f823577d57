"""runs/version_matrix.py: findings x vLLM versions, each row's note read in version order."""

from __future__ import annotations

from workbench.runs.version_matrix import table


def _finding(kind: str, field: str, severity: str = "error") -> dict:
    return {"kind": kind, "field": field, "severity": severity, "chunking": "one-token"}


def _reports(found: dict[str, list[dict]]) -> dict[str, dict]:
    return {v: {"findings": fs, "consistent": not fs} for v, fs in found.items()}


def test_notes_say_fixed_back_new_and_severity_in_version_order():
    lost = _finding("stream_vs_nonstream", "content")
    grouped = _finding("chunking", "tool_calls")
    reports = _reports({
        # the order a user typed (or a lock lists): the notes still read oldest first
        "0.34.0": [lost, _finding("chunking", "tool_calls", "warning"), _finding("contract", "index")],
        "0.32.0": [lost, grouped],
        "0.33.0": [_finding("chunking", "tool_calls", "warning")],
    })
    rows = {f"{r['kind']} {r['field']}": r for r in table(reports, ["0.34.0", "0.32.0", "0.33.0"])}
    assert rows["stream_vs_nonstream content"]["note"] == "fixed in 0.33.0, back in 0.34.0"
    assert (rows["stream_vs_nonstream content"]["fixed_in"], rows["stream_vs_nonstream content"]["back_in"]) == \
        ("0.33.0", ["0.34.0"])
    assert rows["chunking tool_calls"]["note"] == "warning in 0.33.0"  # then the same in 0.34.0
    assert rows["contract index"]["note"] == "new in 0.34.0" and rows["contract index"]["new_in"] == "0.34.0"
    assert rows["contract index"]["in"]["0.32.0"] is None


def test_a_finding_every_version_has_gets_no_note_and_a_fourth_version_counts():
    kept = _finding("chunking", "content")
    rows = table(_reports({"0.32.0": [kept], "0.33.0": [kept], "0.34.0": [kept], "0.35.0": []}),
                 ["0.32.0", "0.33.0", "0.34.0", "0.35.0"])
    assert [(r["note"], r["fixed_in"]) for r in rows] == [("fixed in 0.35.0", "0.35.0")]
    rows = table(_reports({"0.32.0": [kept], "0.33.0": [kept]}), ["0.32.0", "0.33.0"])
    assert [(r["note"], r["fixed_in"], r["back_in"]) for r in rows] == [("", None, [])]
