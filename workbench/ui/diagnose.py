"""Diagnose the stream on screen (widget-free): ``diagnosis.diagnose.diagnose`` on its deltas and
applied settings, whether other vLLM versions still show a parser cause (the lanes, as
`workbench doctor` asks them), and the ``--report`` markdown with its pytest file, as text
to download. ``workbench.doctor(...)`` is the same from Python: it returns the same
``DoctorReport`` the Diagnose tab shows.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.ui.state import Result, State, frozen, start, with_outcome

if TYPE_CHECKING:
    from workbench.diagnosis.diagnose import DoctorReport
    from workbench.core.parsers import ParserSpec
    from workbench.ui.inputs import Inputs
    from workbench.ui.runtime import Runtime

REPORT_NAME = "workbench_bug.md"  # the download's names: the report and its test beside it
TEST_NAME = "test_workbench_bug.py"


def doctor_options(i: Inputs, files: dict[str, str], grouping: str | None,
                   names: ParserSpec | None = None) -> dict[str, Any]:
    """`workbench doctor`'s options for these settings, by the flags' names (a RunSpec's
    ``spec_from_options``); ``files`` names where the script text, tools, messages and editor
    config or plugin are (written there by ``write_inputs``); ``names``: the parser names the
    editor's plugin filled (the session's)."""
    from workbench.ui.inputs import resolve

    o: dict[str, Any] = ({"recording": str(resolve(i.recording))} if i.source == "recording" and i.recording
                         else {"text_file": files["text"]})
    o["tokenizer"] = i.tokenizer
    if i.config_text is not None:
        o["config"] = files["config"]
    elif i.plugin_text is not None and names is not None:
        o["plugin"] = [files["plugin"]]
        o["tool_parser"] = names.tool_parser or "none"
        if names.reasoning_parser:
            o["reasoning_parser"] = names.reasoning_parser
    elif i.config:
        o["config"] = str(resolve(i.config))
    else:
        o["tool_parser"] = i.tool_parser or "none"
        if i.reasoning_parser:
            o["reasoning_parser"] = i.reasoning_parser
    if i.source != "recording":
        o["messages"] = files["messages"]
        if i.tools is not None:
            o["tools"] = files["tools"]
        if i.tool_choice:
            o["tool_choice"] = i.tool_choice
    if i.api != "chat":
        o["api"] = i.api
    chunking = grouping or (i.chunking if i.chunking != "token" else None)
    return o | ({"chunking": chunking} if chunking else {})


def cli_argv(options: dict[str, Any]) -> list[str]:
    """The command line that gives ``options`` (a report's "Reproduce" line)."""
    argv = [options["recording"]] if "recording" in options else []
    for name, value in options.items():
        if name != "recording":
            for v in value if isinstance(value, list) else [value]:
                argv += [f"--{name.replace('_', '-')}", str(v)]
    return argv


def input_files(i: Inputs, text: str) -> dict[str, tuple[str, str]]:
    """The settings' text, messages, tools and editor config as the files the CLI reads:
    {option: (file name, body)}."""
    return {"text": ("model_output.txt", text), "messages": ("messages.json", json.dumps(i.messages, ensure_ascii=False)),
            "tools": ("tools.json", json.dumps(i.tools or [], ensure_ascii=False)),
            "config": ("editor.toml", i.config_text or ""), "plugin": ("editor_parser.py", i.plugin_text or "")}


def write_inputs(folder: Path, inputs: dict[str, tuple[str, str]]) -> dict[str, str]:
    """``input_files`` written in ``folder``: {option: path}."""
    from workbench.core import outputs

    return {k: str(outputs.write_text(folder / name, body)) for k, (name, body) in inputs.items()}


def diagnose(s: State, rt: Runtime, versions: bool = True, fuzz: int = 10) -> State:
    """The doctor on the stream on screen: its causes (most likely first, with file and
    method), the versions verdict of a parser cause (``versions``: ask the lanes), and the
    report and its test as text (``Result.extra``: markdown, test, names)."""
    from workbench.diagnosis.diagnose import DoctorOptions, diagnose as run
    from workbench.core.parsers import ParserSpec
    from workbench.ui.tools import editor_file, whole

    s, session, deltas, ran = whole(s, rt)
    i = s.applied
    setup = i.setup()
    names = None
    if i.config_text is not None:
        setup = replace(setup, parser=ParserSpec(config=editor_file(i.config_text)))
    elif i.plugin_text is not None:  # the editor's plugin as the session loaded it (--plugin FILE)
        names = session.setup.parser
        setup = replace(setup, parser=names, plugins=session.setup.plugins)
    grouping = s.stream.origin if s.stream.origin not in ("", "recorded") else None
    rt.status(f"diagnosing {len(deltas)} deltas: stream vs non-stream, groupings, the text, the settings…", None)
    report = run(setup, deltas=deltas, prompt_ids=getattr(session, "prompt_ids", None),
                 options=DoctorOptions(fuzz=fuzz), label=grouping)
    inputs = input_files(i, "".join(d.text for d in deltas))
    with tempfile.TemporaryDirectory(prefix="workbench-doctor-") as tmp:
        files = write_inputs(Path(tmp), inputs)
        if versions and report.parser_causes() and i.vllm is None:
            from workbench.runs.asked import attach

            rt.status("asking the other vLLM versions whether they still show it…", None)
            from workbench.core.run_options import spec_from_options

            attach(report.parser_causes(), spec_from_options(doctor_options(i, files, grouping, names)),
                   lambda message: rt.status(message, None))
            from workbench.diagnosis.strength import with_versions

            with_versions(report.causes)
    # the Reproduce command names the inputs as `doctor_report` writes them beside the report
    stem = Path(REPORT_NAME).stem
    shown = {k: f"{stem}.{name}" for k, (name, _) in inputs.items()}
    bodies = {shown[k]: body for k, (_, body) in inputs.items()}
    argv = cli_argv(doctor_options(i, shown, grouping, names))
    extra = bundle(report, argv)
    extra["inputs"] = {name: bodies[name] for name in argv if name in bodies and name in extra["markdown"]}
    s = replace(s, doctor=Result(s.stream.id, report, len(s.stream.rows), frozen(extra)))
    head = report.causes[0] if report.causes else None
    line = f"{ran}diagnose: {head.cls}: {head.summary}" if head else f"{ran}diagnose: nothing wrong found"
    return with_outcome(s, "ok" if report.ok else "warning", line, "Diagnose")


def bundle(report: DoctorReport, argv: list[str]) -> dict[str, Any]:
    """The ``--report`` markdown and its pytest file, as `workbench doctor --report` writes them."""
    from workbench.diagnosis import bugreport
    from workbench.export import pytest_file as export
    from workbench.errors import WorkbenchError

    session, deltas, checked = report.context
    minimal = next((f.extra["minimal_text"] for f in report.findings if "minimal_text" in f.extra), None)
    minimal_name = Path(REPORT_NAME).stem + ".minimal.txt" if minimal else None
    try:
        test = export.render_pytest(export.build_case(session, deltas, checked), TEST_NAME)
        test_name = TEST_NAME
    except WorkbenchError as e:
        test, test_name = None, f"(no test file: {e})"
    markdown = bugreport.render(report, argv, test_name, minimal_name) + "\n"
    return {"markdown": markdown, "report_name": REPORT_NAME, "test": test, "test_name": TEST_NAME,
            "minimal": minimal["text"] if minimal else None, "minimal_name": minimal_name}


def doctor(text: str | None = None, *, recording: str | None = None, versions: bool = True,
           **settings: Any) -> DoctorReport:
    """``workbench.doctor("<model output>", tool_parser="hermes", tools=[...])`` or
    ``workbench.doctor(recording="bug.jsonl")``: the same ``DoctorReport`` a Workbench's
    Diagnose tab shows for those settings (the arguments are ``Workbench``'s)."""
    from workbench.ui import transitions as T
    from workbench.ui.inputs import check_recording, given
    from workbench.ui.runtime import Runtime

    i = given(text or "", settings)
    path = check_recording(recording)
    rt = Runtime()
    s = start(i)
    if path is not None:
        s = T.load_recording(s, rt, path)
    elif not i.text:
        from workbench.errors import WorkbenchError

        raise WorkbenchError("workbench.doctor: give the model output text, or recording=PATH")
    return diagnose(s, rt, versions=versions).doctor.value
