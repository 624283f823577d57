"""`workbench doctor` names each rebuilt vLLM bug report's cause (tests/data/reports/).

Every case runs through the doctor exactly as `workbench doctor` would run it on the
case's text, parsers, request, chunking and finish_reason (on the installed vLLM; the
lanes' "fixed in" is tests/test_lanes.py's). The primary cause's class must be the
case's ``expected_cause``, and a case 0.32 no longer shows must give no cause at all.
"""

from __future__ import annotations

import pytest

from tests import reports

CASES = reports.cases()
# Where the doctor and a case's label disagree on purpose: the reason is the doctor's evidence.
DISAGREE = {
    "vllm-54808-qwen3-coder-tool-choice-required-not-enforced": (
        "the case's text (prose, tool_choice required) shows vLLM's required-path finish_reason quirk: the "
        "non-streaming answer says tool_calls with no call while the stream says stop, the serving defect of "
        "vllm-53255 (expected serving); the case's own symptom (the grammar not enforced) is the engine's and "
        "cannot show at the parser, so the doctor names the serving difference the text does show"),
}


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"], marks=[pytest.mark.xfail(
    reason=DISAGREE[c["id"]], strict=True)] if c["id"] in DISAGREE else []) for c in CASES])
def test_doctor_names_the_expected_cause(case):
    from workbench.check.doctor import DoctorOptions, diagnose

    report = diagnose(reports.setup(case), text=case["text"], finish_reason=case["finish_reason"],
                      options=DoctorOptions(fuzz=5, shrink_budget_s=0.5, text_budget_s=0, jobs=1))
    causes = [c for c in report.causes if c.severity != "cosmetic"]
    got = causes[0].cls if causes else "none"
    assert got == case["expected_cause"], (case["id"], [(c.cls, c.summary) for c in report.causes])
    if causes and causes[0].cls in ("parser_streaming", "parser_nonstreaming"):
        assert causes[0].where and causes[0].where["file"].startswith("vllm/"), causes[0].where
