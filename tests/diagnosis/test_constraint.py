"""diagnosis/constraint.py: the request's grammar (adjust_request's, through vLLM's XgrammarBackend)
fed the output's token ids from where the engine starts constraining."""

from __future__ import annotations

import pytest

from tests.support.seed import WEATHER_TOOLS
from workbench.diagnosis import constraint
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.session import Session, Setup

NAMED = {"type": "function", "function": {"name": "get_weather"}}


def _check(tokenizer: str, tool: str, reasoning: str | None, choice, text: str) -> dict | None:
    session = Session(Setup(tokenizer, ParserSpec(tool, reasoning), RequestSpec(tools=WEATHER_TOOLS,
                                                                               tool_choice=choice)))
    ids = [t for d in session.deltas_from_text(text) for t in d.token_ids]
    return constraint.check(session, ids, text)


def test_a_text_the_structural_tag_allows_passes_and_one_it_refuses_is_placed():
    call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>'
    assert _check("qwen3", "hermes", None, NAMED, call) is None
    found = _check("qwen3", "hermes", None, NAMED, call.replace('"arguments"', '"parameters"'))
    assert found["constraint"] == "structural_tag" and found["refused"] == "parameters"
    assert found["before"].endswith('"get_weather", "')


def test_the_grammar_starts_after_reasoning_and_skips_whitespace_only():
    call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>'
    # reasoning is free text, and the "\n\n" a paste carries after </think> is whitespace the grammar leaves out
    assert _check("qwen3", "hermes", "qwen3", NAMED, "<think>Rome? Any JSON {is fine} here.</think>\n\n" + call) is None
    found = _check("qwen3", "hermes", "qwen3", NAMED, "<think>ok</think>\n\nSure. " + call)
    assert found["refused"] == "Sure" and found["whitespace_skipped"] == 1
    assert found["from_token"] > 1  # not from the first token: after the reasoning end


@pytest.mark.parametrize("choice", ["auto", None])
def test_no_forced_choice_on_a_parser_without_a_tag_means_no_constraint(choice):
    assert _check("mistral_tekken", "mistral", None, choice, "Just prose, no call.") is None
