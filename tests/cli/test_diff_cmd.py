"""cli/diff_cmd.py and cli/diff_matrix.py: `diff --vllm` runs the same A/B in each listed version.

The installed vLLM (0.32.0) runs here, 0.33.0 in its lane (one lane for the run, shared with
tests/lanes/test_lane.py: the CLI's lane program). The text is DeepSeek V3's call with
pretty-printed arguments, read by two parsers that differ on it in both versions; in 0.32.0
neither non-streaming answer has a call, in 0.33.0 deepseek_v3's has one: that difference is
new in 0.33.0.
"""

from __future__ import annotations

import json

import pytest

from tests.support.seed import WEATHER_TOOLS
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.session import Setup

LANE = "0.33.0"
PRETTY = ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n"
          "```json\n{\n  \"city\": \"Paris\"\n}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>")
SIDES = ["--a", "deepseek_v3", "--b", "deepseek_v31"]


@pytest.fixture(scope="module")
def lane():
    from workbench.cli.vllm_option import IN_LANE
    from workbench.lanes import lane as lanes

    return lanes.get(LANE, program=IN_LANE)


@pytest.fixture
def argv(tmp_path, tools_file):
    text = tmp_path / "pretty.txt"
    text.write_text(PRETTY, encoding="utf-8")
    return ["diff", "--text-file", text, "--tokenizer", "deepseek_v3", "--tools", tools_file, *SIDES]


@pytest.mark.parametrize("side, why", [("deepseek_v3@0.33.0", "drop @0.33.0 or --vllm"),
                                       ("deepseek_v3@rust", "runs on vllm-rs")])
def test_a_side_with_its_own_version_and_vllm_is_one_line(run_cli, side, why):
    code, out, err = run_cli("diff", "--text", "hi", "--a", side, "--b", "deepseek_v31", "--vllm", "0.32.0")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert why in err and "--a" in err


def test_several_versions_side_by_side_with_the_timeline(lane, run_cli, argv):
    code, out, err = run_cli(*argv, "--vllm", f"{LANE},0.32.0", "--json")
    res = json.loads(out)
    assert code == 0, err
    assert res["versions"] == ["0.32.0", LANE] and list(res["per_version"]) == res["versions"]
    old, new = res["per_version"]["0.32.0"], res["per_version"][LANE]
    assert old["final"]["nonstream"]["tool_calls"] == {"a": [], "b": [], "same": True}
    assert json.loads(new["final"]["nonstream"]["tool_calls"]["a"][0]["arguments"]) == {"city": "Paris"}
    ways = {(r["kind"], r["field"]): r for r in res["differences"]}
    calls = ways["final", "nonstream tool_calls"]
    assert calls["note"] == f"new in {LANE}" and calls["new_in"] == LANE and calls["in"]["0.32.0"] is None
    assert calls["in"][LANE]["b"] == new["final"]["nonstream"]["tool_calls"]["b"]
    steps = ways["step", "output"]  # the stream differs in both: no note
    assert steps["note"] == "" and steps["in"]["0.32.0"]["first_step"] == old["first_step"] is not None
    assert res["timeline"]["text"] == "A and B differ in every version"
    # each version's part is that version's own `diff --json`: here, and in the lane
    _, here, _ = run_cli(*argv, "--json")
    assert json.loads(here) == old
    _, there, _ = run_cli(*argv, "--vllm", LANE, "--json")
    assert json.loads(there) == new
    code, text, _ = run_cli(*argv, "--vllm", f"0.32.0,{LANE}")
    assert code == 0 and text.index("0.32.0") < text.index(LANE)
    assert f"new in {LANE}" in text and "A/B across versions: A and B differ in every version" in text


def test_differences_say_where_the_ab_goes_and_comes_back():
    """lanes/version_diff.differences over real A/Bs of the installed vLLM standing in for
    three versions: one text where the two parsers differ, one where they agree."""
    from workbench.core import diff
    from workbench.lanes import version_diff

    setup = Setup("deepseek_v3", ParserSpec("deepseek_v3", None), RequestSpec(tools=WEATHER_TOOLS))
    a, b = ParserSpec("deepseek_v3", None), ParserSpec("deepseek_v31", None)
    differ = diff.run(setup, a, b, text=PRETTY).to_dict()
    agree = diff.run(setup, a, b, text="Sunny in Paris.").to_dict()
    assert not differ["same"] and agree["same"]
    rows, overall = version_diff.differences({"0.34.0": differ, "0.32.0": differ, "0.33.0": agree})
    assert overall["text"] == "fixed in 0.33.0, back in 0.34.0" and overall["order"] == ["0.32.0", "0.33.0", "0.34.0"]
    assert rows and all(r["note"] == "fixed in 0.33.0, back in 0.34.0" and r["in"]["0.33.0"] is None for r in rows)
    rows, overall = version_diff.differences({"0.32.0": agree, "0.33.0": agree})
    assert rows == [] and overall["text"] == "A and B agree in every version"
