"""Which parser reads this text (diagnosis/config/diagnoses.py, diagnosis/rank.py): texts of our own in
six families, each served with the wrong tool parser; the doctor names the right one with
the flag, and vLLM itself agrees (the named parser's parse returns the call, the served one's
none)."""

from __future__ import annotations

import pytest

from tests.support.direct import _direct_vllm
from tests.support.seed import WEATHER_TOOLS

DSV3 = ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
        '{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>')
# family: (tokenizer, served with, text in the family's own format, the parser that reads it)
WRONG = {
    "qwen3_coder": ("qwen3", "hermes",
                    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n"
                    "</tool_call>", "qwen3_coder"),
    "glm45": ("qwen3", "hermes", "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
              "</tool_call>", "glm45"),
    "hermes": ("qwen3", "qwen3_coder", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
               "</tool_call>", "hermes"),
    "minimax_m2": ("qwen3", "hermes", '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris'
                   "</parameter>\n</invoke>\n</minimax:tool_call>", "minimax_m2"),
    "kimi_k2": ("kimi_k2", "hermes", "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
                '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>', "kimi_k2"),
    "deepseek_v3": ("deepseek_v3", "deepseek_v31", DSV3, "deepseek_v3"),
}


def _setup(tok: str, tool: str):
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Setup

    return Setup(tokenizer=tok, parser=ParserSpec(tool), request=RequestSpec(
        messages=[{"role": "user", "content": "What is the weather in Paris?"}], tools=WEATHER_TOOLS))


@pytest.mark.parametrize("family", WRONG)
def test_the_wrong_parser_cause_names_the_one_that_reads_the_text(family):
    from workbench.diagnosis.diagnose import DoctorOptions, diagnose
    from workbench.core.tokenizers import load_tokenizer

    tok, served, text, right = WRONG[family]
    report = diagnose(_setup(tok, served), text=text, options=DoctorOptions(fuzz=0, shrink_budget_s=0,
                                                                            text_budget_s=0, jobs=1))
    first = report.causes[0]
    assert (first.cls, first.ranked_by) == ("configuration", "configuration"), [(c.cls, c.summary) for c in report.causes]
    assert f"served with {served}; {right} reads it: use --tool-call-parser {right}" in first.summary
    found = next(d for d in report.diagnoses if d.code == "wrong_tool_parser")
    assert found.fix == f"use --tool-call-parser {right}" and found.evidence["ranked"][0] == right
    # only parsers whose markers occur in the text were tried; the served one is not among those named
    assert served not in found.evidence["ranked"]
    # vLLM itself: the named parser's parse returns the call, the served one's returns none
    tokenizer = load_tokenizer(tok)
    sizes = [1] * (len(tokenizer.encode(text, add_special_tokens=False)) + 1)
    assert [c.name for c in _direct_vllm(tokenizer, right, None, text, sizes)[2][2] or []] == ["get_weather"]
    assert not _direct_vllm(tokenizer, served, None, text, sizes)[2][2]
