"""lanes/version_diff.py: A/B across vLLM versions says, per finding of each version's own
answers, where a version fixed it or brought it back (``lanes.fixed_in.timeline``).

The versions are stood in for by the installed vLLM (its real replays, or ``session_for``
giving the installed session for any version): what is tested is how each version's answers
become the verdict; the real 0.32.0 / 0.33.0 lanes are tests/lanes/test_lane.py's.
"""

from __future__ import annotations

import json

import pytest

from tests.support.seed import WEATHER_TOOLS
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.session import Setup
from workbench.lanes import version_diff

# DeepSeek V3 with pretty-printed arguments: vLLM 0.32's regexes stop at the first newline
# (the stream sends "{", the non-streaming answer has no call); flat, it reads both alike.
PRETTY = ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n"
          "```json\n{\n  \"city\": \"Paris\"\n}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>")
FLAT = PRETTY.replace('{\n  "city": "Paris"\n}', '{"city": "Paris"}')
DEEPSEEK = Setup("deepseek_v3", ParserSpec("deepseek_v3", None), RequestSpec(tools=WEATHER_TOOLS))


@pytest.fixture(scope="module")
def replays():
    session = version_diff.session_for(DEEPSEEK, None)
    return {name: session.replay(session.deltas_from_text(text)) for name, text in (("bug", PRETTY), ("ok", FLAT))}


@pytest.fixture
def installed_everywhere(monkeypatch):
    """Every version's side is the installed vLLM's session (no lane starts)."""
    real = version_diff.session_for
    monkeypatch.setattr(version_diff, "session_for", lambda setup, version, ids=None: real(setup, None, ids))


def test_across_reads_each_versions_own_answers_in_version_order(replays):
    assert version_diff.findings_of(replays["bug"]) >= {("stream_vs_nonstream", "tool_calls")}
    assert version_diff.findings_of(replays["ok"]) == set()
    rows = version_diff.across({"0.34.0": replays["bug"], "0.32.0": replays["bug"], "0.33.0": replays["ok"]})
    calls = next(r for r in rows if (r["kind"], r["field"]) == ("stream_vs_nonstream", "tool_calls"))
    assert list(calls["in"]) == ["0.32.0", "0.33.0", "0.34.0"]
    assert calls["verdict"] == "fixed in 0.33.0, back in 0.34.0"
    assert (calls["fixed_in"], calls["back_in"]) == ("0.33.0", ["0.34.0"])
    assert "stream_vs_nonstream tool_calls: fixed in 0.33.0, back in 0.34.0" in version_diff.verdicts(rows)
    assert version_diff.verdicts(version_diff.across({"0.32.0": replays["ok"], "0.33.0": replays["ok"]})) == [
        "in neither version does the stream differ from its own non-streaming answer"]


def test_run_says_it_for_one_parser_on_two_versions_only(installed_everywhere):
    spec = DEEPSEEK.parser
    res = version_diff.run(DEEPSEEK, (spec, None), (spec, "0.33.0"), text=PRETTY)
    assert res.same  # the stand-in is the installed vLLM on both sides
    calls = next(r for r in res.across_versions if r["field"] == "tool_calls")
    assert calls["verdict"] == "not fixed in any version here" and list(calls["in"]) == ["0.32.0", "0.33.0"]
    assert res.to_dict()["across_versions"] == res.across_versions
    # two parsers, or one version: no version's verdict
    other = version_diff.run(DEEPSEEK, (spec, None), (ParserSpec("hermes", None), "0.33.0"), text=PRETTY)
    assert other.across_versions is None and "across_versions" not in other.to_dict()
    assert version_diff.run(DEEPSEEK, (spec, "0.32.0"), (spec, None), text=PRETTY).across_versions is None


def test_the_diff_command_prints_it(installed_everywhere, run_cli, tools_file):
    argv = ["diff", "--text", PRETTY, "--tokenizer", "deepseek_v3", "--tools", tools_file,
            "--a", "deepseek_v3@0.32.0", "--b", "deepseek_v3@0.33.0"]
    code, out, err = run_cli(*argv)
    assert code == 0, err
    assert "versions: stream_vs_nonstream tool_calls: not fixed in any version here" in out
    code, out, _ = run_cli(*argv, "--json")
    assert {(r["kind"], r["field"]) for r in json.loads(out)["across_versions"]} >= {
        ("stream_vs_nonstream", "tool_calls")}


def test_a_listed_version_between_the_two_sides_is_named(replays, monkeypatch):
    monkeypatch.setattr(version_diff.versions, "listed", lambda: ["0.32.0", "0.34.0", "0.33.0", "0.35.0"])
    rows = version_diff.across({"0.32.0": replays["bug"], "0.34.0": replays["ok"]})
    lines = version_diff.verdicts(rows)
    assert "stream_vs_nonstream tool_calls: fixed in 0.34.0" in lines
    assert lines[-1] == "0.33.0 not compared: check --vllm 0.32.0,0.33.0,0.34.0 reads every version"
    adjacent = version_diff.verdicts(version_diff.across({"0.32.0": replays["bug"], "0.33.0": replays["ok"]}))
    assert not [line for line in adjacent if "not compared" in line]
