"""check on a RunSpec, here: the run prepared once (core.prepare), then check over its deltas.
What a lane's ``check`` op runs, and runs/on_spec.py (the commands, the corpus) before it adds
another frontend.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.check.suite import Options, Report
    from workbench.core.prepare import Prepared, RunSpec


def prepared_check(spec: RunSpec, options: Options | None = None) -> tuple[Prepared, Report]:
    """(the prepared run, check's Report of it); a grouping given by name is the label."""
    from workbench.check.suite import check
    from workbench.core.prepare import prepare

    prepared = prepare(spec, what="check")
    label = spec.chunking if spec.chunking and spec.chunking != "token" else None
    return prepared, check(prepared.session, prepared.deltas, label=label, options=options)


def check_spec(spec: RunSpec, options: Options | None = None) -> tuple[Report, list[str]]:
    """(check's Report, the run's notes) for ``spec``, in this process's vLLM."""
    prepared, report = prepared_check(spec, options)
    return report, prepared.notes
