"""`workbench doctor` names each rebuilt vLLM bug report's cause (tests/data/reports/).

Every case runs through the doctor exactly as `workbench doctor` would run it on the
case's text, parsers, request, chunking and finish_reason (on the installed vLLM; the
lanes' "fixed in" is tests/lanes/test_lane.py's). The primary cause's class must be the
case's ``expected_cause``, and a case 0.32 no longer shows must give no cause at all.

The misreadings of issue 34, each on a report of its kind: no cause of a wrong class is
ranked above the expected one, and the cause says what a maintainer needs (which mode,
the relabel and advice for both clients, where the grammar refuses, what each mode
returns, how many silent deltas and bytes).
"""

from __future__ import annotations

import functools

import pytest

from tests.support import reports

CASES = reports.cases()
BY_ID = {c["id"]: c for c in CASES}
# Where the doctor and a case's label disagree on purpose: the reason is the doctor's evidence.
DISAGREE = {
    "vllm-54808-qwen3-coder-tool-choice-required-not-enforced": (
        "the case's text (prose under tool_choice required) is one 0.32's engine could not have generated: "
        "adjust_request sets qwen3_coder's structural tag, whose grammar refuses the prose, so the doctor names "
        "constraint_not_followed (configuration); the case is labelled none because 0.32 enforces the choice"),
}


@functools.cache
def diagnosed(case_id: str):
    from workbench.diagnosis.diagnose import DoctorOptions, diagnose

    case = BY_ID[case_id]
    return diagnose(reports.setup(case), text=case["text"], finish_reason=case["finish_reason"],
                    options=DoctorOptions(fuzz=5, shrink_budget_s=0.5, text_budget_s=0, jobs=1))


def ranked(case_id: str) -> list:
    return [c for c in diagnosed(case_id).causes if c.severity != "cosmetic"]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"], marks=[pytest.mark.xfail(
    reason=DISAGREE[c["id"]], strict=True)] if c["id"] in DISAGREE else []) for c in CASES])
def test_doctor_names_the_expected_cause(case):
    causes = ranked(case["id"])
    got = causes[0].cls if causes else "none"
    assert got == case["expected_cause"], (case["id"], [(c.cls, c.summary) for c in causes])
    if causes and causes[0].cls in ("parser_streaming", "parser_nonstreaming"):
        where = causes[0].where or {}
        # a config case's cause names the config's own transition and lines (diagnosis/config/where.py)
        assert where.get("file", "").startswith("vllm/") or where.get("config") == str(reports.config_path(case)), where


def _above(case_id: str, cls: str) -> list[str]:
    """The classes ranked above the first cause of ``cls``."""
    classes = [c.cls for c in ranked(case_id)]
    assert cls in classes, classes
    return classes[:classes.index(cls)]


def test_a_mode_that_breaks_the_contract_is_blamed_before_a_word_count():
    """Misreading 1: the stream sends the JSON envelope (invalid, markup leaked); parse returns a clean call."""
    case = "vllm-47977-json-envelope-config-leaks-envelope-into-arguments"
    first = ranked(case)[0]
    assert first.cls == "parser_streaming" and "breaks the client contract" in first.summary, first.summary
    assert not {"parser_nonstreaming", "model_output"} & set(_above(case, "parser_streaming"))
    assert first.where.get("config") and first.where["state"] == "TOOL_ARGS", first.where  # the stream's step


def test_a_length_cut_names_the_serving_relabel_with_advice_for_both_clients():
    """Misreading 2: the stream ends with "length", the non-streaming answer says "tool_calls"."""
    for case in ("vllm-58228-qwen3-xml-length-cut-call-says-tool-calls",
                 "vllm-53739-qwen3-coder-length-cut-string-argument"):
        causes = ranked(case)
        assert [c.cls for c in causes[:2]] == ["truncation", "serving"], [(c.cls, c.summary) for c in causes]
        serving = causes[1]
        assert "non-stream" in serving.summary and "'tool_calls'" in serving.summary
        advice = " ".join(serving.evidence)
        assert "streaming clients" in advice and "non-streaming clients" in advice and "max_tokens" in advice
        assert serving.where["method"] == "chat_completion_full_generator"
        assert all(c.severity == "warning" for c in causes[2:] if c.cls.startswith("parser_"))


def test_a_text_the_constraint_refuses_is_not_a_parser_bug():
    """Misreading 3: tool_choice required and a "parameters" key the request's schema does not allow."""
    case = "vllm-11312-required-older-parameters-shape"
    first = ranked(case)[0]
    assert first.cls == "configuration" and "could not have generated" in first.summary, first.summary
    found = next(d for d in diagnosed(case).diagnoses if d.code == "constraint_not_followed")
    assert found.evidence["constraint"] == "json" and found.evidence["refused"] == "parameters"
    assert not _above(case, "configuration")


def test_thinking_left_open_under_thinking_on_is_the_model_output():
    """Misreading 4: the model never closes </think> while thinking is on."""
    case = "vllm-55420-qwen3-eos-inside-thinking-empty-answer"
    first = ranked(case)[0]
    assert first.cls == "model_output" and "never closed its thinking" in first.summary, first.summary
    assert not any(c.cls == "configuration" for c in ranked(case))
    shown = " ".join(first.evidence)
    assert "stream:" in shown and "non-stream:" in shown and "content None" in shown
    assert "enable_thinking" not in shown + first.summary


def test_arguments_held_back_are_a_streaming_warning_with_deltas_and_bytes():
    """Misreading 5: DeepSeek V4 holds a long string argument until </｜DSML｜parameter>."""
    case = "vllm-52846-deepseek-v4-long-string-argument-buffered"
    first = ranked(case)[0]
    assert (first.cls, first.severity) == ("parser_streaming", "warning")
    buffered = next(f for f in diagnosed(case).findings if f.kind == "arguments_buffered")
    assert f"nothing for {buffered.extra['silent_deltas']} deltas" in first.summary
    assert f"{buffered.extra['bytes']} bytes" in first.summary and buffered.extra["silent_deltas"] >= 40


@pytest.mark.parametrize("case", [c for c in CASES if c.get("not_a_bug")], ids=lambda c: c["id"])
def test_no_parser_is_blamed_where_the_maintainers_said_not_a_bug(case):
    assert not [c for c in ranked(case["id"]) if c.cls in ("parser_streaming", "parser_nonstreaming")], (
        case["id"], [(c.cls, c.summary) for c in ranked(case["id"])])


def test_a_report_that_does_not_reproduce_says_so_and_what_was_tried():
    quiet = [c for c in CASES if c["expected_cause"] == "none" and c["id"] not in DISAGREE]
    assert len(quiet) >= 30
    for case in quiet:
        report = diagnosed(case["id"])
        said = report.to_dict()["not_reproduced"]
        assert report.causes == [] and said is not None, case["id"]
        assert said["verdict"].startswith("not reproduced here") and len(said["tried"]) >= 4
        assert f"{report.checked['groupings']} other groupings" in " ".join(said["tried"])
    reproduced = [c for c in CASES if c["expected_cause"] != "none"]
    assert all(diagnosed(c["id"]).to_dict()["not_reproduced"] is None for c in reproduced[:10])
