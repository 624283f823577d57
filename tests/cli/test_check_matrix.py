"""cli/check_matrix.py: `check --vllm A,B,C` prints findings x versions, oldest first.

The lanes are stubbed (``reports_of``: each version's check report): what is tested is the
table and its notes; a real lane's report is tests/lanes/test_lane.py's.
"""

from __future__ import annotations

import json

from workbench.cli import check_matrix


def _finding(kind: str, field: str) -> dict:
    return {"kind": kind, "field": field, "severity": "error", "chunking": "one-token", "first_step": 3}


def test_columns_and_notes_in_version_order(monkeypatch, run_cli):
    lost = _finding("stream_vs_nonstream", "content")
    found = {"0.32.0": [lost], "0.33.0": [], "0.34.0": [lost]}
    asked = []

    def reports_of(spec, options, order):
        asked.append(list(order))
        return {v: {"findings": found[v], "consistent": not found[v]} for v in order}

    monkeypatch.setattr(check_matrix, "reports_of", reports_of)
    argv = ["check", "--text", "x", "--tool-parser", "hermes", "--vllm", "0.34.0,0.32.0,0.33.0"]
    code, out, _ = run_cli(*argv, "--json")
    res = json.loads(out)
    assert asked == [["0.32.0", "0.33.0", "0.34.0"]] and res["versions"] == asked[0]
    (row,) = res["findings"]
    assert row["note"] == "fixed in 0.33.0, back in 0.34.0" and row["back_in"] == ["0.34.0"]
    assert code == 1  # 0.34.0 is inconsistent again
    code, out, _ = run_cli(*argv)
    assert "back in 0.34.0" in out and out.index("0.32.0") < out.index("0.33.0") < out.index("0.34.0")
