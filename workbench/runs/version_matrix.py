"""Findings x vLLM versions: the same check in every version, its findings matched.

The same run (its ``RunSpec``) is checked once per version: in this process for the
installed one, in a lane for the others (a ``check`` op carrying the spec). Findings are
matched across versions by what was compared and which field (``kind``, ``field``). Each
row's note is ``lanes.fixed_in.timeline``'s events in version order ("fixed in 0.33.0",
"back in 0.34.0", "new in 0.34.0"), with a severity that changes from one version to the
next ("warning in 0.34.0"); a finding every version has gets no note. `check --vllm A,B`
prints this table; the corpus's versions mode keeps it per recording.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.lanes import fixed_in
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.check.suite import Options
    from workbench.core.prepare import RunSpec


def _key(f: dict) -> tuple[str, str]:
    return f["kind"], f["field"]


def notes(present: dict[str, dict | None]) -> tuple[str, dict]:
    """(the note: the timeline's events and severity changes in version order, '' when every
    version agrees; the timeline) of one finding, ``present``: version -> it or None."""
    t = fixed_in.timeline({v: f is not None for v, f in present.items()})
    out = [(v, f"{what} in {v}") for what, v in t["changes"]]
    for before, v in zip(t["order"], t["order"][1:]):
        was, now = present[before], present[v]
        if was is not None and now is not None and now["severity"] != was["severity"]:
            out.append((v, f"{now['severity']} in {v}"))
    out.sort(key=lambda e: fixed_in.version_key(e[0]))
    return ", ".join(text for _, text in out), t


def table(reports: dict[str, dict], order: list[str]) -> list[dict]:
    keys: list[tuple[str, str]] = []
    by_version: dict[str, dict] = {}
    for v in order:
        found = {}
        for f in reports[v]["findings"]:
            found.setdefault(_key(f), f)  # the first (earliest grouping) per key
            if _key(f) not in keys:
                keys.append(_key(f))
        by_version[v] = found
    rows = []
    for k in keys:
        present = {v: by_version[v].get(k) for v in order}
        note, t = notes(present)
        rows.append({"kind": k[0], "field": k[1], "in": present, "note": note, "fixed_in": t["fixed_in"],
                     "back_in": t["back_in"], "new_in": t["new_in"]})
    return rows


def reports_of(spec: RunSpec, options: Options, order: list[str]) -> dict[str, dict]:
    """check's report (its ``to_dict()``) of the same run in every version of ``order``: the
    installed one here, the others in their lanes (a ``check`` op carrying the RunSpec)."""
    from dataclasses import asdict

    from workbench.check.on_spec import check_spec
    from workbench.lanes import carried, lane, versions

    reports = {}
    for v in order:
        try:
            if versions.is_installed(v):
                reports[v] = check_spec(spec, options)[0].to_dict()
            else:
                reports[v] = lane.get(v).call("check", spec=carried.spec(spec), options=asdict(options))["report"]
        except WorkbenchError as e:  # bad input: the version's own one-line message
            raise WorkbenchError(f"vLLM {v}: {e}") from None
    return reports


def exit_code(report: dict, strict: bool) -> int:
    """check's exit code from its report dict (Report.exit_code)."""
    return 1 if (report["findings"] if strict else not report["consistent"]) else 0
