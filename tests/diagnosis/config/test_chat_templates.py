"""Which shipped chat template teaches the text's markup (diagnosis/config/chat_templates.py):
texts of our own in three families, each served with a template that teaches another markup;
the doctor names the shipped template that teaches the text's, with the flag, and the
templates themselves agree (rendered directly, the named one writes a call in that markup,
the served one does not). Never on the clean seed streams."""

from __future__ import annotations

import pytest

from tests.support.direct import HARMONY_TEXTS, MISTRAL_TEXTS
from tests.support.seed import SEED_TEXT, WEATHER_TOOLS

DSV3 = ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
        '{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>')
HERMES = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
KIMI = ("<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
        '{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>')
# family: (tokenizer, the template served (another tokenizer's; None: its own), parser, text, the one named)
WRONG = {
    "deepseek_v3": ("deepseek_v3", "qwen3", "hermes", DSV3, "deepseek_v3"),  # as MiniMax-M2 with M1's
    "hermes": ("qwen3", "deepseek_v3", "qwen3_coder", HERMES, "qwen3"),
    "kimi_k2": ("qwen3", None, "hermes", KIMI, "kimi_k2"),
}
USER = [{"role": "user", "content": "What is the weather in Paris?"}]


def _template(name: str | None) -> str | None:
    from workbench.core.tokenizers import load_tokenizer

    return None if name is None else load_tokenizer(name).chat_template


def _setup(tok: str, served: str | None, tool: str | None, reasoning: str | None = None):
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Setup

    return Setup(tokenizer=tok, parser=ParserSpec(tool, reasoning), request=RequestSpec(messages=USER, tools=WEATHER_TOOLS),
                 chat_template=_template(served), chat_template_file=f"{served}.jinja" if served else None)


def _rendered_call(template_of: str) -> str:
    """The template's own rendering of an assistant call (vLLM renders it the same way)."""
    from workbench.core.tokenizers import load_tokenizer

    call = {"id": "c", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    return load_tokenizer(template_of).apply_chat_template(
        [*USER, {"role": "assistant", "content": "", "tool_calls": [call]}], tools=WEATHER_TOOLS, tokenize=False)


@pytest.mark.parametrize("family", WRONG)
def test_names_the_shipped_template_that_teaches_the_texts_markup(family):
    from workbench.diagnosis.config.chat_templates import SHIPPED_FILES
    from workbench.diagnosis.diagnose import DoctorOptions, diagnose

    tok, served, tool, text, right = WRONG[family]
    report = diagnose(_setup(tok, served, tool), text=text,
                      options=DoctorOptions(fuzz=0, shrink_budget_s=0, text_budget_s=0, jobs=1))
    found = next(d for d in report.diagnoses if d.code == "wrong_chat_template")
    assert found.evidence["matches"] == right and found.evidence["ranked"][0] == right
    if served is None:  # another model's template: the shipped file, by its path
        assert found.fix == f"use --chat-template {SHIPPED_FILES / f'{right}.jinja'}"
        assert (SHIPPED_FILES / f"{right}.jinja").is_file()
    else:  # the model's own template teaches it: the flag goes
        assert found.fix == f"serve without --chat-template (the {tok} tokenizer's own template teaches it)"
    cause = next(c for c in report.causes if any(e.startswith("wrong_chat_template") for e in c.evidence))
    assert cause.cls == "configuration" and f"which the {right} chat template teaches: {found.fix}" in cause.summary
    # the templates themselves: the named one writes a call in the text's opening marker, the served one not
    opening = found.evidence["markers"][0]
    assert text.startswith(opening) and opening in _rendered_call(right)
    assert opening not in _rendered_call(served or tok)
    assert found.evidence["served"][0] in _rendered_call(served or tok)


CLEAN = [("qwen3", "hermes", "qwen3", SEED_TEXT), ("qwen3", "hermes", None, "It is sunny in Paris."),
         ("deepseek_v3", "deepseek_v3", None, DSV3), ("kimi_k2", "kimi_k2", None, KIMI),
         ("qwen3", "hermes", None, HERMES)]
CLEAN += [("gpt_oss", "openai", "openai_gptoss", HARMONY_TEXTS[k]) for k in ("seed", "preamble")]
CLEAN += [("mistral_tekken", "mistral", None, MISTRAL_TEXTS[k]) for k in ("call", "no_call")]


@pytest.mark.parametrize("tok, tool, reasoning, text", CLEAN)
def test_never_on_the_clean_seed_streams(tok, tool, reasoning, text):
    from workbench.core.session import Session
    from workbench.diagnosis.config.chat_templates import wrong_template

    # asked directly (the doctor asks only when no call is read): each text in its model's own markup
    assert wrong_template(Session(_setup(tok, None, tool, reasoning)), text) is None


def test_the_seed_stream_doctor_names_no_template():
    from workbench.diagnosis.diagnose import DoctorOptions, diagnose

    report = diagnose(_setup("qwen3", None, "hermes", "qwen3"), text=SEED_TEXT,
                      options=DoctorOptions(fuzz=0, shrink_budget_s=0, text_budget_s=0, jobs=1))
    assert not [d for d in report.diagnoses if d.code == "wrong_chat_template"]
