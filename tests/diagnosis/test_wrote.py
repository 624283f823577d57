"""A pointer to the line (issue 40, item 4): for a plugin with a planted bug, doctor's `where`
names the line of the author's file that wrote the value that differs, found by tracing the
plugin's own frames at the failing step; the `return` line stays named beside it."""

from __future__ import annotations

import json

from tests.support.doctor import _installed
from tests.support.invoke import AT_PLUGIN, AT_TEXT, AT_TRUNCATION, TOOLS

BUG_LINE = 1 + AT_PLUGIN.splitlines().index(AT_TRUNCATION[0].rstrip("\n"))


def test_doctor_names_the_line_that_wrote_the_wrong_arguments(run_cli, tmp_path, monkeypatch):
    assert AT_PLUGIN.count(AT_TRUNCATION[0]) == 1
    monkeypatch.chdir(tmp_path)
    (tmp_path / "at_parser.py").write_text(AT_PLUGIN.replace(*AT_TRUNCATION))
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    code, out, err = run_cli("doctor", "--plugin", "./at_parser.py", "--tool-parser", "atcall", "--tools", "tools.json",
                             "--text", AT_TEXT, "--vllm", _installed(), "--json")
    assert code == 1, err
    where = next(c["where"] for c in json.loads(out)["causes"] if (c["where"] or {}).get("wrote_field") == "tool_calls")
    assert where["file"] == str(tmp_path / "at_parser.py") and where["method"] == "extract_tool_calls_streaming"
    assert where["wrote_at"] == BUG_LINE and where["returned_at"] != BUG_LINE, where
    assert where["wrote_value"] == '{"city": "Paris"'
    from workbench.diagnosis.where import describe

    assert f"""the tool_calls value '{{"city": "Paris"' was written at line {BUG_LINE}""" in describe(where)
