"""`workbench doctor` on the settings around the parser: `--chat-template FILE` (the
prompt's thinking state), tools off with markers that are special tokens, parsers
without markers of their own."""

from __future__ import annotations

import json

from tests.support.doctor import _installed, doctor

ANSWER = "Hello there, Paris is mild today."
KIMI_CALL = ('<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>'
             '{"city": "Berlin"}<|tool_call_end|><|tool_calls_section_end|>')


def _closing_template(tmp_path):
    """qwen3's own template whose generation prompt closes thinking, as a custom one does."""
    from importlib.resources import files

    own = (files("workbench.core.tokenizers") / "templates" / "qwen3.jinja").read_text()
    opener = "{{- '<|im_start|>assistant\\n' }}"
    assert opener in own
    path = tmp_path / "closed.jinja"
    path.write_text(own.replace(opener, "{{- '<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n' }}"))
    return path


def test_chat_template_that_closes_thinking_shows_the_non_streaming_path_ignores_the_prompt(run_cli, tmp_path):
    from vllm.parser import ParserManager

    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec, build_request
    from workbench.core.session import Session, Setup

    template = _closing_template(tmp_path)
    code, d = doctor(run_cli, "--text", ANSWER, "--reasoning-parser", "qwen3", "--chat-template", template)
    assert d["setup"]["chat_template"]["file"] == str(template)
    assert d["setup"]["prompt_tail"].endswith("<think>\n\n</think>\n\n")
    # vLLM itself: parse_delta asks is_reasoning_end(prompt ids) first, parse never does.
    session = Session(Setup("qwen3", ParserSpec(None, "qwen3"), chat_template=template.read_text()))
    cls = ParserManager.get_parser(reasoning_parser_name="qwen3")
    parser = cls(session.tokenizer, None, model_config=None, chat_template_kwargs={})
    assert parser.is_reasoning_end(session.prompt_ids)
    reasoning, content, _ = parser.parse(ANSWER, build_request(RequestSpec()))
    assert (reasoning, content) == (ANSWER, None)
    assert d["modes"]["stream"]["content"] == ANSWER and d["modes"]["nonstream"]["reasoning"] == ANSWER
    parser_causes = [c for c in d["causes"] if c["class"].startswith("parser_")]
    assert code == 1 and parser_causes[0]["class"] == "parser_nonstreaming", d["causes"]
    assert "prompt already closed thinking" in parser_causes[0]["summary"]
    bug = tmp_path / "bug.md"
    code, _, err = run_cli("doctor", "--vllm", _installed(), "--text", ANSWER, "--reasoning-parser", "qwen3",
                           "--chat-template", template, "--report", bug)
    md = bug.read_text()
    assert f"--chat-template {template}" in md and "the prompt ends with" in md, md[:800]
    code, out, _ = run_cli("doctor", "--vllm", _installed(), "--text", ANSWER, "--reasoning-parser", "qwen3")
    assert "chat template" not in out.splitlines()[0]  # the tokenizer's own: not named


def test_tools_off_with_special_token_markers_names_the_parser_that_reads_them(run_cli):
    # kimi_k2's markers are special tokens: stripped from the text with tools off, kept by the
    # parser's adjust_request once tools are on, so each candidate sees the ids as its server would.
    code, d = doctor(run_cli, "--tokenizer", "kimi_k2", "--tool-parser", "kimi_k2", "--text", KIMI_CALL)
    assert "<|tool_call_begin|>" not in (d["modes"]["stream"]["content"] or "")
    diag = {x["code"]: x for x in d["diagnoses"]}
    assert code == 1 and "tools_off_in_request" in diag, d["diagnoses"]
    assert diag["tools_off_in_request"]["evidence"]["best"]["parser"] == "kimi_k2"
    assert d["causes"][0]["class"] == "configuration"


def test_parsers_without_markers_are_not_listed_as_failures_on_any_text(run_cli):
    code, d = doctor(run_cli, "--text", "<think>x</think>" + ANSWER, "--reasoning-parser", "qwen3")
    assert code == 0 and d["causes"] == [] and d["failures"] == [], d["failures"]
    _, out, _ = run_cli("doctor", "--vllm", _installed(), "--text", ANSWER, "--reasoning-parser", "qwen3")
    assert "could not run" not in out


def test_a_forced_tool_choice_whose_structural_tag_the_text_never_follows(run_cli, tools_file):
    from tests.support.seed import WEATHER_TOOLS
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    named = {"type": "function", "function": {"name": "get_weather"}}
    session = Session(Setup("qwen3", ParserSpec("hermes"), RequestSpec(tools=WEATHER_TOOLS, tool_choice=named)))
    tag = json.loads(session.request.structured_outputs.structural_tag)  # what vLLM's adjust_request set
    begin = tag["format"]["tags"][0]["begin"]
    code, d = doctor(run_cli, "--text", '{"city": "Rome"}', "--tool-parser", "hermes", "--tools", tools_file,
                     "--tool-choice", "get_weather")
    diag = {x["code"]: x for x in d["diagnoses"]}
    assert code == 1 and begin in diag["constraint_not_followed"]["evidence"]["begins"]
    assert not d["tool_parsers"]  # no other parser is recommended for what the serving path does
    followed = begin + '{"city": "Rome"}}\n</tool_call>'
    code, d = doctor(run_cli, "--text", followed, "--tool-parser", "hermes", "--tools", tools_file,
                     "--tool-choice", "get_weather")
    assert code == 0 and d["causes"] == [], d["causes"]


def test_thinking_the_model_opened_or_max_tokens_cut_is_not_blamed_on_the_parser(run_cli):
    for extra in ([], ["--finish-reason", "length"]):
        code, d = doctor(run_cli, "--text", "<think>I am still thinking about", "--reasoning-parser", "qwen3", *extra)
        assert "answer_in_reasoning" not in [x["code"] for x in d["diagnoses"]], (extra, d["diagnoses"])
    code, d = doctor(run_cli, "--text", "I am still thinking about", "--reasoning-parser", "qwen3")
    assert "answer_in_reasoning" in [x["code"] for x in d["diagnoses"]]


def test_a_lone_opener_in_prose_is_no_configuration_and_the_grouping_bug_is_named(run_cli, qwen3_tokenizer):
    from vllm.parser import ParserManager

    from workbench.core.request import RequestSpec, build_request

    text = "<think>plan</think>Answer: use <think> tags like this."
    code, d = doctor(run_cli, "--text", text, "--reasoning-parser", "deepseek_r1")
    assert "thinking_in_content" not in [x["code"] for x in d["diagnoses"]]
    head = d["causes"][0]
    assert code == 1 and head["class"] == "parser_streaming" and "--chunking merge:1-2" in head["summary"], d["causes"]
    # vLLM itself, the opener and the next token in one delta:
    cls = ParserManager.get_parser(reasoning_parser_name="deepseek_r1")
    parser = cls(qwen3_tokenizer, None, model_config=None, chat_template_kwargs={})
    ids = qwen3_tokenizer.encode("<think>plan", add_special_tokens=False)
    delta = parser.parse_delta("<think>plan", ids, build_request(RequestSpec()), [], finished=False)
    assert delta.reasoning == "<think>plan"  # the opener leaks into reasoning


def test_a_parser_that_drops_text_another_reads_whole_gets_a_note(run_cli, tools_file):
    from vllm.parser import ParserManager

    from tests.support.seed import WEATHER_TOOLS
    from workbench.core.request import RequestSpec, build_request
    from workbench.core.tokenizers import load_tokenizer

    text = ('Let me check.<｜DSML｜tool_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" '
            'string="true">Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>')
    code, d = doctor(run_cli, "--text", text, "--tokenizer", "deepseek_v4", "--tool-parser", "deepseek_v32",
                     "--tools", tools_file)
    assert "text_dropped" in [f["kind"] for f in d["findings"]]
    note = {x["code"]: x for x in d["diagnoses"]}["parser_keeps_text"]
    assert note["severity"] == "note" and note["fix"].endswith("--tool-call-parser deepseek_v4")
    tok = load_tokenizer("deepseek_v4")  # vLLM's deepseek_v4 parser on the same text: the call, the prose kept
    cls = ParserManager.get_parser(tool_parser_name="deepseek_v4", enable_auto_tools=True)
    request = build_request(RequestSpec(tools=WEATHER_TOOLS))
    _, content, calls = cls(tok, request.tools, model_config=None, chat_template_kwargs={}).parse(
        text, request, enable_auto_tools=True)
    assert content.strip() == "Let me check." and [c.name for c in calls] == ["get_weather"]
