"""The silent drops (check/silent.py): texts of our own in eight families, each held to a
direct vLLM call, and none of them on the clean seed streams, the shipped clean recording
and the rebuilt reports 0.32 no longer shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import reports
from tests.support.direct import HARMONY_TEXTS, MISTRAL_TEXTS, _direct_vllm, _joined
from tests.support.seed import SEED_TEXT, WEATHER_TOOLS

DSV3 = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n"
# (tokenizer, tool parser, reasoning parser, text, the verdicts): the model's markup each
# family's parser does not read, or reads into the wrong field
DROPS = {
    "hermes": ("qwen3", "hermes", None,
               '<tool_call>{"name": "get_weather", "arguments": {"city": Paris}}</tool_call>',
               {"tool_markup_in_content"}),
    "hermes_in_reasoning": ("qwen3", "hermes", "deepseek_r1",
                            'I should check. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}'
                            "</tool_call>", {"tool_call_dropped", "tool_markup_in_reasoning"}),
    "qwen3_coder": ("qwen3", "qwen3_coder", None,
                    "<tool_call>\n<function get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n"
                    "</tool_call>", {"tool_call_dropped", "all_output_lost"}),
    "glm47": ("qwen3", "glm47", None, "<tool_call>\n<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>",
              {"tool_call_dropped", "all_output_lost"}),
    "minimax_m2": ("qwen3", "minimax_m2", None,
                   '<minimax:tool_call>\n<invoke>\n<parameter name="city">Paris</parameter>\n</invoke>\n'
                   "</minimax:tool_call>", {"tool_call_dropped", "all_output_lost"}),
    "step3": ("qwen3", "step3", None,
              "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke>\n</steptml:invoke>"
              "<｜tool_call_end｜><｜tool_calls_end｜>", {"tool_call_dropped", "tool_markup_in_content", "all_output_lost"}),
    "kimi_k2": ("kimi_k2", "kimi_k2", None,
                '<|tool_calls_section_begin|><|tool_call_begin|>get_weather<|tool_call_argument_begin|>{"city": "Paris"}'
                "<|tool_call_end|><|tool_calls_section_end|>", {"tool_call_dropped", "all_output_lost"}),
    "deepseek_v3": ("deepseek_v3", "deepseek_v3", None, DSV3 + '{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
                    {"all_output_lost"}),
}


def _session(tok: str, tool: str | None, reasoning: str | None, tools=WEATHER_TOOLS):
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    return Session(Setup(tokenizer=tok, parser=ParserSpec(tool, reasoning), request=RequestSpec(
        messages=[{"role": "user", "content": "What is the weather in Paris?"}], tools=tools)))


def _found(session, text: str):
    from workbench.check import silent

    result = session.replay(session.deltas_from_text(text))
    return result, silent.findings(session, result, "token")


@pytest.mark.parametrize("family", DROPS)
def test_the_silent_drops_fire_where_vllm_drops_the_call(family):
    from workbench.check import silent

    tok, tool, reasoning, text, kinds = DROPS[family]
    session = _session(tok, tool, reasoning)
    _, found = _found(session, text)
    assert {f.kind for f in found} == kinds, [(f.kind, f.detail) for f in found]
    # what vLLM itself returns for the same text, one token a delta and parsed whole
    n = len(session.tokenizer.encode(text, add_special_tokens=False))
    _, messages, (ns_reasoning, ns_content, ns_calls) = _direct_vllm(session.tokenizer, tool, reasoning, text,
                                                                     [1] * n + [1])
    st_reasoning, st_content, st_calls = _joined(messages)
    markers = silent.call_markers(session)
    assert markers and any(m in text for m in markers)  # the parser's own markup, from its class or config
    if "tool_call_dropped" in kinds:
        assert not st_calls and not ns_calls
    if "tool_markup_in_content" in kinds:
        assert any(m in (st_content or "") + (ns_content or "") for m in markers)
    if "tool_markup_in_reasoning" in kinds:
        assert any(m in (st_reasoning or "") + (ns_reasoning or "") for m in markers)
    if "all_output_lost" in kinds:
        lost = [not (c or "").strip() and not (r or "").strip() and not calls for r, c, calls in (
            (st_reasoning, st_content, st_calls), (ns_reasoning, ns_content, ns_calls))]
        assert any(lost)
    assert all(f.first_step and f.first_step >= 1 for f in found)  # the step, as rows count them


def test_an_empty_block_and_no_tool_parser_are_no_drop():
    assert not _found(_session("qwen3", "glm47", None), "Hi <tool_call></tool_call> there.")[1]
    assert not _found(_session("qwen3", None, None), DROPS["hermes"][3])[1]  # no parser: no markup of its own


CLEAN = [("qwen3", "hermes", "qwen3", SEED_TEXT), ("qwen3", "hermes", None, "It is sunny in Paris.")]
CLEAN += [("gpt_oss", "openai", "openai_gptoss", HARMONY_TEXTS[k]) for k in ("seed", "final", "preamble")]
CLEAN += [("mistral_tekken", "mistral", None, MISTRAL_TEXTS[k]) for k in ("call", "parallel", "content_first",
                                                                          "no_call")]


@pytest.mark.parametrize("tok, tool, reasoning, text", CLEAN)
def test_never_on_the_clean_seed_streams(tok, tool, reasoning, text):
    assert _found(_session(tok, tool, reasoning), text)[1] == []


def test_never_on_the_shipped_clean_recording(run_cli):
    path = Path(__file__).parents[2] / "parsers" / "recordings" / "hermes" / "seed_weather.jsonl"
    code, out, err = run_cli("check", str(path), "--json", "--fuzz", "2", "--no-cost", "--jobs", "1")
    kinds = {f["kind"] for f in json.loads(out)["findings"]}
    assert code == 0 and not kinds & {"tool_call_dropped", "tool_markup_in_content", "tool_markup_in_reasoning",
                                      "all_output_lost"}, err


def test_never_on_the_reports_vllm_no_longer_shows():
    quiet = [c for c in reports.cases() if c["expected_cause"] == "none" and c["finish_reason"] == "stop"]
    assert len(quiet) >= 20
    for case in quiet:
        setup = reports.setup(case)
        from workbench.core.session import Session

        session = Session(setup)
        result = session.replay(session.deltas_from_text(case["text"]))
        from workbench.check import silent

        assert silent.findings(session, result, "token") == [], case["id"]


def test_replay_prints_one_warning_line(run_cli, tools_file):
    tok, tool, _, text, _ = DROPS["qwen3_coder"]
    code, out, err = run_cli("replay", "--tokenizer", tok, "--tool-parser", tool, "--tools", tools_file, "--text", text)
    warned = [line for line in err.splitlines() if "warning: tool_call_dropped" in line]
    assert len(warned) == 1 and "'<tool_call>'" in warned[0], err
    code, out, err = run_cli("replay", "--tool-parser", "hermes", "--tools", tools_file, "--text", SEED_TEXT)
    assert "warning" not in err
