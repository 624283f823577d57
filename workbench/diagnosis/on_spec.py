"""The doctor on a RunSpec: what `workbench doctor`, a lane's ``doctor`` op and the widget's
Diagnose tab run over the same prepared run.

The run is prepared once (core.prepare: the parser composed once, for the source and the
diagnosis). When that fails, the doctor is asked anyway with the source resolved without a
session: a parser that cannot start is its first diagnosis (anything else fails again there).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.core.prepare import RunSpec
    from workbench.core.recording import Recording
    from workbench.core.session import Setup
    from workbench.diagnosis.report import DoctorOptions, DoctorReport


@dataclass
class Diagnosed:
    report: DoctorReport
    setup: Setup  # the run's settings, as the user gave them
    recording: Recording | None = None
    notes: list[str] = field(default_factory=list)


def diagnose_spec(spec: RunSpec, options: DoctorOptions | None = None) -> Diagnosed:
    from workbench.diagnosis.diagnose import DoctorOptions, diagnose
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
