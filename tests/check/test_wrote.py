"""A pointer to the line (issue 40, item 4): for a plugin with a planted bug, doctor's `where`
names the line of the author's file that wrote the value that differs, found by tracing the
plugin's own frames at the failing step; the `return` line stays named beside it."""

from __future__ import annotations

import json

from tests.cli.test_author_loop import PLUGIN, TEXT, TOOLS, _installed

# (right, planted): the streamed call's arguments lose their last character
BUG = ("            name, args = calls[i]\n", "            name, args = calls[i][0], calls[i][1][:-1]\n")
BUG_LINE = 1 + PLUGIN.splitlines().index(BUG[0].rstrip("\n"))


def test_doctor_names_the_line_that_wrote_the_wrong_arguments(run_cli, tmp_path, monkeypatch):
    assert PLUGIN.count(BUG[0]) == 1
    monkeypatch.chdir(tmp_path)
    (tmp_path / "trunc_parser.py").write_text(PLUGIN.replace(*BUG).replace('"owl"', '"trunc"'))
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    code, out, err = run_cli("doctor", "--plugin", "./trunc_parser.py", "--tool-parser", "trunc", "--tools",
                             "tools.json", "--text", TEXT, "--vllm", _installed(), "--json")
    assert code == 1, err
    where = next(c["where"] for c in json.loads(out)["causes"] if (c["where"] or {}).get("wrote_at"))
    assert where["file"] == str(tmp_path / "trunc_parser.py") and where["method"] == "extract_tool_calls_streaming"
    assert where["wrote_at"] == BUG_LINE and where["returned_at"] != BUG_LINE, where
    assert where["wrote_field"] == "tool_calls" and where["wrote_value"] == '{"city": "Paris"'
    code, out, _ = run_cli("doctor", "--plugin", "./trunc_parser.py", "--tool-parser", "trunc", "--tools",
                           "tools.json", "--text", TEXT, "--vllm", _installed())
    assert f"""the tool_calls value '{{"city": "Paris"' was written at line {BUG_LINE}""" in out, out
