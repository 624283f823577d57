"""check and doctor on a RunSpec: what the commands, a lane's ``check`` / ``doctor`` ops and
the corpus all run.

The run is prepared once (core.prepare: the parser composed once, for the source and the
diagnosis). When that fails, the doctor is asked anyway with the source resolved without a
session: a parser that cannot start is its first diagnosis (anything else fails again there).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.check.doctor import DoctorOptions, DoctorReport
    from workbench.check.suite import Options
    from workbench.core.parsers import ParserSpec
    from workbench.core.prepare import RunSpec
    from workbench.core.recording import Recording
    from workbench.core.session import Setup


@dataclass
class Diagnosed:
    report: DoctorReport
    setup: Setup  # the run's settings, as the user gave them
    recording: Recording | None = None
    notes: list[str] = field(default_factory=list)


def diagnose_spec(spec: RunSpec, options: DoctorOptions | None = None) -> Diagnosed:
    from workbench.check.doctor import DoctorOptions, diagnose
    from workbench.core.prepare import prepare, resolve

    options = options or DoctorOptions()
    label = spec.chunking if spec.chunking and spec.chunking != "token" else None
    try:
        prepared = prepare(spec, what="diagnose")
    except WorkbenchError:
        resolved = resolve(spec, what="diagnose")  # raises again unless the parser was the problem
        report = diagnose(resolved.setup, prompt_ids=_prompt_ids(resolved.recording), options=options, label=label,
                          deltas_of=resolved.deltas_for)
        return Diagnosed(report, resolved.setup, resolved.recording, resolved.notes)
    report = diagnose(prepared.setup, prompt_ids=_prompt_ids(prepared.recording), options=options, label=label,
                      deltas_of=lambda s: prepared.deltas if s is prepared.session else prepared.deltas_for(s),
                      session=prepared.session)
    return Diagnosed(report, prepared.setup, prepared.recording, prepared.notes)


def _prompt_ids(recording) -> list[int] | None:
    return (recording.prompt_token_ids or None) if recording is not None else None


def check_spec(spec: RunSpec, options: Options | None = None, frontend: str | None = None):
    """(check's Report, the run's notes) for ``spec``; a grouping given by name is the label.
    ``frontend`` "rust[@VERSION]": where vLLM's Python parsers and vllm-rs disagree is a finding."""
    from workbench.check.suite import check
    from workbench.core.prepare import prepare

    prepared = prepare(spec, what="check")
    label = spec.chunking if spec.chunking and spec.chunking != "token" else None
    report = check(prepared.session, prepared.deltas, label=label, options=options)
    rust = rust_version(frontend)
    if rust is not None:
        from workbench.rustfe import side_by_side

        setup = prepared.setup
        sides = (side_by_side.Side(setup.parser), side_by_side.Side(setup.parser, rust, rust=True))
        result = side_by_side.compare(setup, *sides, deltas=prepared.deltas,
                                      prompt_token_ids=prepared.session.prompt_ids)
        report.findings += side_by_side.findings(result)
        report.checked["frontend"] = f"vllm-rs {rust}"
    return report, prepared.notes


def rust_version(frontend: str | None) -> str | None:
    """The vllm-rs version a ``--frontend`` value asks for (checked); None for vLLM's Python parsers."""
    name, _, version = (frontend or "python").partition("@")
    if name != "rust":
        return None
    if not version:
        from workbench.rustfe import lane

        return lane.default_version()
    from workbench.lanes import versions

    return versions.check(version)


def parse_side(text: str) -> tuple[ParserSpec, str | None, bool]:
    """A diff side, 'hermes+qwen3[@VERSION]' or 'hermes+qwen3@rust[@VERSION]' or a config path:
    (its parser, the vLLM version or None, whether vllm-rs runs it). ValueError when empty."""
    import re

    from workbench.core.parsers import ParserSpec

    rust = re.match(r"^(.*)@rust(?:@(\d[^@/]*))?$", text.strip())
    m = rust or re.match(r"^(.*)@(\d[^@/]*)$", text.strip())
    body, version = (m.group(1), m.group(2)) if m else (text, None)
    if not body.strip() or body.strip() == "+":
        raise ValueError("empty parser spec")
    return ParserSpec.parse(body), version, rust is not None


def diff_spec(spec: RunSpec, a: tuple[ParserSpec, str | None, bool], b: tuple[ParserSpec, str | None, bool],
              api_b: str | None = None):
    """(the A/B of ``spec``'s stream through parsers ``a`` and ``b`` (``parse_side``'s), the
    run's notes): core.diff, across vLLM versions in their lanes, or against vllm-rs."""
    from workbench.core import diff
    from workbench.core.prepare import resolve
    from workbench.lanes import versions

    src = resolve(spec, what="compare", with_parser=False)
    prompt_ids = _prompt_ids(src.recording)
    source = ({"deltas": src.recording.deltas, "chunking": spec.chunking} if src.recording is not None
              else {"text": spec.text})
    if a[2] or b[2]:  # vllm-rs on a side (workbench.rustfe)
        if api_b not in (None, src.setup.api):
            raise WorkbenchError("a vllm-rs side compares on one API (--api); drop --api-b")
        from workbench.rustfe import side_by_side

        sa, sb = (side_by_side.Side(*side) for side in (a, b))
        return side_by_side.compare(src.setup, sa, sb, prompt_token_ids=prompt_ids, **source), src.notes
    if a[1] or b[1]:  # across vLLM versions (workbench.lanes)
        if src.setup.api != "chat" or api_b not in (None, "chat"):
            raise WorkbenchError("diff across vLLM versions (@VERSION) compares the chat face; for another API "
                                 "run `workbench replay --api API --vllm VERSION` on each version")
        from workbench.lanes import version_diff

        sides = [(p, versions.check(v) if v else None) for p, v, _ in (a, b)]
        return version_diff.run(src.setup, *sides, prompt_token_ids=prompt_ids, **source), src.notes
    if src.recording is None:
        source.pop("chunking", None)
    return diff.run(src.setup, a[0], b[0], prompt_token_ids=prompt_ids, api_b=api_b, **source), src.notes
