"""The doctor's evidence rules, called directly (no engine): causes.classify and where.locate."""

from __future__ import annotations

from workbench.diagnosis import causes as C
from workbench.core.messages import CHUNKING, ERROR, Difference, Final


def _facts(findings: list) -> C.Facts:
    final = Final(content="Some text")
    return C.Facts(text="Some text", finish="stop", stream=final, nonstream=final, findings=findings,
                   diagnoses=[], markers=[], literals=[], pairs=[], tool_names=set())


def test_a_parse_that_raises_comes_before_the_grouping_it_breaks():
    # vllm-44139: parse raises on two call markers, and the stream (the same split) then depends
    # on the grouping; the method that raised is the cause, the grouping its consequence.
    chunked = Difference(CHUNKING, "tool_calls", 3, "a", "b", detail="differs", chunking="merge:2-7")
    raised = Difference(ERROR, "parse", None, None, None, detail="non-streaming parse raised ValueError")
    got = C.classify(_facts([chunked, raised]), lambda role, mode, step=None: {"mode": mode})
    assert [c.cls for c in got] == ["parser_nonstreaming", "parser_streaming"]
    assert got[0].where == {"mode": "nonstreaming"}


class _Base:
    def extract(self, text):
        return {"reasoning": text}


class _Passes(_Base):
    def extract(self, text):
        ret = super().extract(text)
        return ret if ret is not None else {"content": text}


class _Builds(_Base):
    def extract(self, text):
        super().extract(text)
        return {"reasoning": text.strip("<>")}


def test_the_method_named_is_the_one_whose_answer_came_back():
    # vllm-55195: DeepSeekR1ReasoningParser.extract_reasoning_streaming returns what
    # BaseThinkingReasoningParser's returned; the base is where the wrong delta was made.
    from workbench.diagnosis.where import producer

    def run(cls):
        def go(hook):
            import sys
            sys.setprofile(hook)
            try:
                cls().extract("<think>")
            finally:
                sys.setprofile(None)
        return go
    assert producer(_Passes, "extract", run(_Passes)) is _Base
    assert producer(_Builds, "extract", run(_Builds)) is _Builds
    assert producer(_Base, "extract", run(_Base)) is None  # one class defines it: nothing to follow


def test_the_stream_side_probe_tells_syntax_it_reads_from_words_it_drops():
    # vllm-45167: parse leaves the whole Hermes call in content, so the non-streaming answer
    # carries "name" and "arguments"; the stream reads them as the call's syntax (a filler in
    # their place changes its answer) and drops "own" (the same answer without it).
    import re

    from tests.support import reports
    from workbench.check.coverage import stream_reader
    from workbench.core.session import Session

    case = reports.load(reports.CASES / "vllm-45167-hermes-literal-end-tag-inside-argument.json")
    session = Session(reports.setup(case))
    result = session.replay(session.deltas_from_text(case["text"], finish_reason=case["finish_reason"]))
    read = stream_reader(session, result, case["finish_reason"])
    words = lambda w: list(re.finditer(rf"\b{w}\b", case["text"]))  # noqa: E731
    assert read(words("name")) and read(words("arguments"))
    assert not read(words("own"))


def test_markers_a_legacy_parser_matches_only_in_its_patterns_are_markers():
    # vllm-51702: GigaChat3's <|function_call|> is only in the module's REGEX_FUNCTION_CALL; the
    # stream that leaks it into content leaks parser markup, not merely "differs".
    from tests.support import reports
    from workbench.check.contract import pattern_markers
    from workbench.diagnosis.diagnose import DoctorOptions, diagnose
    from workbench.core.session import Session

    case = reports.load(reports.CASES / "vllm-51702-gigachat3-function-call-token-split-leaks.json")
    assert "<|function_call|>" in pattern_markers(Session(reports.setup(case)))
    report = diagnose(reports.setup(case), text=case["text"],
                      options=DoctorOptions(fuzz=0, shrink_budget_s=0, text_budget_s=0, jobs=1))
    assert report.causes[0].cls == "parser_streaming"
    assert "parser markup in the text fields" in report.causes[0].summary, report.causes[0].summary


def test_markers_a_legacy_parser_spells_only_in_its_methods_are_markers():
    # vllm-57490: InternLM2's <|action_start|> is a literal its methods test with `in` and cut with
    # split; Step3's markers are class constants compared through self. The stream that leaves a
    # cut <|action_start| in content leaks parser markup.
    from vllm.tool_parsers import ToolParserManager

    from tests.support import reports
    from workbench.diagnosis.diagnose import DoctorOptions, diagnose
    from workbench.diagnosis.literals import class_literals

    assert {"<|action_start|>", "<|action_end|>"} <= class_literals(ToolParserManager.get_tool_parser("internlm"))
    assert "<｜tool_calls_begin｜>" in class_literals(ToolParserManager.get_tool_parser("step3"))
    case = reports.load(reports.CASES / "vllm-57490-internlm-opening-marker-split-across-deltas.json")
    report = diagnose(reports.setup(case), text=case["text"],
                      options=DoctorOptions(fuzz=0, shrink_budget_s=0, text_budget_s=0, jobs=1))
    assert report.causes[0].cls == "parser_streaming"
    assert "parser markup in the text fields: '<|action_start| (cut" in report.causes[0].summary


def test_an_odd_paste_gets_an_answer_not_a_traceback(run_cli, tmp_path):
    # What a bug report may paste: only whitespace, another language, control characters.
    import json

    for n, text in enumerate(["   \n\t\n  ", "你好！<tool_call>\n{\"name\": \"获取天气\", \"arguments\": {\"城市\": \"北京\"}}\n</tool_call>",
                              "hi\x00there\ufffd<tool_call>"]):
        f = tmp_path / f"{n}.txt"
        f.write_text(text, encoding="utf-8")
        code, out, err = run_cli("doctor", "--text-file", f, "--tool-parser", "hermes", "--reasoning-parser", "qwen3",
                                 "--json")
        assert code in (0, 1) and "Traceback" not in err, err
        assert isinstance(json.loads(out)["causes"], list)
