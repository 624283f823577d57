"""Evidence before counting (diagnosis/strength.py): the rule is data, every cause says which
evidence ranked it, and an answer a client cannot parse outranks a count of words."""

from __future__ import annotations

import json

from tests.support.direct import _direct_vllm
from tests.support.seed import WEATHER_TOOLS

# qwen3_xml: the model writes `<parameter=unit` without its `>`. The stream joins arguments
# that are not JSON; the non-streaming answer is a clean call with the unit's words dropped.
MALFORMED = ("<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
             "<parameter=unit\ncelsius please, as always\n</parameter>\n</function>\n</tool_call>")


def test_the_rule_is_written_down_in_the_issues_order():
    from workbench.diagnosis.strength import EVIDENCE, KINDS

    assert [k for k in KINDS if k in ("contract", "markup", "version", "groupings", "words")] == [
        "contract", "markup", "version", "groupings", "words"]
    assert all(isinstance(what, str) and what for _, what in EVIDENCE)


def test_invalid_json_in_the_stream_beats_a_word_count():
    from workbench.diagnosis.diagnose import DoctorOptions, diagnose
    from workbench.diagnosis.modes import shortfalls
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Setup
    from workbench.core.tokenizers import load_tokenizer

    tok = load_tokenizer("qwen3")
    sizes = [1] * (len(tok.encode(MALFORMED, add_special_tokens=False)) + 1)
    _, messages, (_, _, ns_calls) = _direct_vllm(tok, "qwen3_xml", None, MALFORMED, sizes)
    streamed = "".join(m.tool_calls[0].function.arguments or "" for m in messages
                       if m is not None and m.tool_calls and m.tool_calls[0].function)
    try:
        json.loads(streamed)
        raise AssertionError(f"the stream's arguments are valid JSON: {streamed!r}")
    except ValueError:
        pass
    assert json.loads(ns_calls[0].arguments) == {"city": "Paris"}  # "celsius..." dropped

    setup = Setup(tokenizer="qwen3", parser=ParserSpec("qwen3_xml"), request=RequestSpec(
        messages=[{"role": "user", "content": "Weather?"}], tools=WEATHER_TOOLS))
    report = diagnose(setup, text=MALFORMED, options=DoctorOptions(fuzz=2, shrink_budget_s=0, text_budget_s=0, jobs=1))
    first, second = report.causes[:2]
    assert (first.cls, first.ranked_by) == ("parser_streaming", "contract"), [(c.cls, c.summary) for c in report.causes]
    assert "not valid JSON" in first.summary
    assert (second.cls, second.ranked_by) == ("parser_nonstreaming", "words")  # it loses words: named, after
    # the count that once ranked the non-streaming path first is still measured
    captured = {}
    from workbench.diagnosis import causes as C

    original = C.M.paths

    def spy(facts):
        captured["shortfalls"] = shortfalls(facts)
        return original(facts)
    C.M.paths = spy
    try:
        diagnose(setup, text=MALFORMED, options=DoctorOptions(fuzz=0, shrink_budget_s=0, text_budget_s=0, jobs=1))
    finally:
        C.M.paths = original
    s, n = captured["shortfalls"]
    assert n["lost_words"] > 0 and s["bad_calls"] == 1


def test_every_cause_says_what_ranked_it_in_json_text_and_report(run_cli, tools_file, tmp_path):
    from workbench.diagnosis.strength import WHAT

    argv = ("doctor", "--tool-parser", "qwen3_xml", "--tools", tools_file, "--text", MALFORMED,
            "--vllm", _installed())
    code, out, _ = run_cli(*argv, "--json")
    causes = json.loads(out)["causes"]
    assert causes and all(c["ranked_by"] in WHAT for c in causes)
    code, text, _ = run_cli(*argv, "--report", str(tmp_path / "bug.md"))
    assert f"ranked by: contract ({WHAT['contract']})" in text
    assert "ranked by: contract" in (tmp_path / "bug.md").read_text()


def test_a_version_that_fixed_it_outranks_groupings_and_words():
    from workbench.diagnosis.causes import Cause
    from workbench.diagnosis.strength import with_versions

    words = Cause("parser_nonstreaming", "words", ranked_by="words")
    grouped = Cause("parser_streaming", "grouped", ranked_by="groupings")
    fixed = Cause("parser_streaming", "fixed", ranked_by="words", versions={"fixed_in": "0.34.0"})
    markup = Cause("model_output", "open", ranked_by="markup", versions={"fixed_in": "0.34.0"})
    assert [c.summary for c in with_versions([words, grouped, fixed, markup])] == ["open", "fixed", "grouped", "words"]
    assert fixed.ranked_by == "version" and markup.ranked_by == "markup"


def _installed() -> str:
    from tests.support.doctor import _installed

    return _installed()
