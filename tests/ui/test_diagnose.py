"""Diagnose in the notebook (ui/diagnose.py, the Diagnose tab): the doctor on the stream on
screen names the cause of the truncated Hermes recording and where it lives; workbench.doctor
returns the same report from Python, for the recording and for its text pasted with the
server's flags; the report's test fails while the bug is there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRUNCATED = str(ROOT / "parsers/recordings/hermes/truncated_arguments.jsonl")
PASTED = ('<think>Paris, in Celsius.</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": '
          '{"city": "Paris", "unit": "cel')
FLAGS = "vllm serve Qwen/Qwen3-8B --enable-auto-tool-choice --tool-call-parser hermes --reasoning-parser qwen3"


def causes(report) -> list[tuple]:
    return [(c.cls, c.severity, (c.where or {}).get("method")) for c in report.causes]


@pytest.fixture(scope="module")
def diagnosed():
    from workbench import Workbench

    wb = Workbench(recording=TRUNCATED)
    wb.doctor_panel.versions.value = False
    wb.doctor_panel.diagnose_button.click()
    return wb


def test_the_tab_names_the_cause_and_where_it_lives(diagnosed):
    wb = diagnosed
    report = wb.state.doctor.value
    assert wb.banner.value == "" and wb.state.fresh(wb.state.doctor)  # it ran the stream first
    assert causes(report)[0][:2] == ("model_output", "error")
    assert ("parser_nonstreaming", "error", "extract_tool_calls") in causes(report)
    shown = wb.doctor_panel.html.value
    assert "causes, most likely first" in shown and "hermes_tool_parser.py" in shown
    assert "Hermes2ProToolParser.extract_tool_calls" in shown
    assert wb.controls.status.value.count("diagnose: model_output") == 1
    assert not wb.doctor_panel.report_button.disabled and not wb.doctor_panel.test_button.disabled


def test_workbench_doctor_returns_the_same_report_for_the_recording_and_the_pasted_text(diagnosed):
    import workbench
    from workbench.diagnosis.diagnose import DoctorReport

    tab = diagnosed.state.doctor.value
    same = workbench.doctor(recording=TRUNCATED, versions=False)
    pasted = workbench.doctor(PASTED, tools=diagnosed.state.applied.tools, versions=False, **workbench.flags(FLAGS))
    assert type(same) is type(tab) is DoctorReport
    assert causes(same) == causes(tab) == causes(pasted)
    def found(r):  # what was found where (the shrinking behind each is budgeted in time)
        return [(f.kind, f.field, f.first_step, f.severity) for f in r.findings]
    assert found(same) == found(tab) and same.setup == tab.setup


def test_the_report_and_its_test_fail_while_the_bug_is_there(diagnosed, tmp_path):
    from workbench.export import pytest_file as export

    wb = diagnosed
    written = wb.doctor_report(str(tmp_path / "cut_call.md"))
    md, test = written[:2]
    text = Path(md).read_text()
    assert "## Cause" in text and "test_cut_call.py" in text and Path(test).name == "test_cut_call.py"
    # the Reproduce command names the minimal text's file as written, beside the report
    assert str(tmp_path / "cut_call.minimal.txt") in written and "--text-file cut_call.minimal.txt" in text
    assert export.self_check(test), "the exported test passes: it should fail while the bug is there"
    sent = []
    wb.table.offer = lambda kind, text, name="": sent.append((kind, name, text))  # what the browser would get
    wb.doctor_panel.test_button.click()
    wb.doctor_panel.report_button.click()
    assert [(k, n) for k, n, _ in sent] == [("download", "test_workbench_bug.py"), ("download", "workbench_bug.md")]
    assert sent[1][2] == wb.state.doctor.extra["markdown"]


def test_flags_are_read_as_settings():
    import workbench
    from workbench.errors import WorkbenchError

    assert workbench.flags(FLAGS) == {"tool_parser": "hermes", "reasoning_parser": "qwen3"}
    assert workbench.flags("vllm serve M --reasoning-parser=deepseek_r1") == {"tool_parser": None,
                                                                              "reasoning_parser": "deepseek_r1"}
    with pytest.raises(WorkbenchError, match="--tool-call-parser needs a parser name"):
        workbench.flags("vllm serve M --tool-call-parser --enable-auto-tool-choice")


def test_the_reports_reproduce_command_reads_files_written_beside_it(tmp_path):
    """A pasted text has no recording: the Reproduce command names the text, messages and tools
    as files, and doctor_report writes each beside the report, under the report's name."""
    import workbench
    from tests.support.paste import paste

    wb = workbench.Workbench(PASTED, tools=[{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}}}}],
                             **workbench.flags(FLAGS))
    wb.doctor_panel.versions.value = False
    written = wb.doctor_report(str(tmp_path / "pasted.md"))
    md = Path(written[0]).read_text()
    reproduce = md.split("Reproduce:\n\n```sh\n", 1)[1].split("\n```", 1)[0]
    [call] = paste(reproduce, tmp_path)
    read = {flag: call[call.index(flag) + 1] for flag in ("--messages", "--tools") if flag in call}
    assert set(read) == {"--messages", "--tools"}, call
    for flag, name in read.items():
        assert (tmp_path / name).is_file() and str(tmp_path / name) in written, (flag, name, written)
    assert json.loads((tmp_path / read["--tools"]).read_text()) == wb.state.applied.tools
    assert json.loads((tmp_path / read["--messages"]).read_text()) == wb.state.applied.messages
    assert all(Path(w).name.startswith(("pasted", "test_pasted")) for w in written)
