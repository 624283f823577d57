"""Findings x vLLM versions: the same check in every version, its findings matched.

The same run (its ``RunSpec``) is checked once per version: in this process for the
installed one, in a lane for the others (a ``check`` op carrying the spec). Findings are
matched across versions by what was compared and which field (``kind``, ``field``). A
finding present in the first version and gone in a later one is "fixed in" it; one that
appears only later is "new in" it. `check --vllm A,B` prints this table; the corpus's
versions mode keeps it per recording.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.check.suite import Options
    from workbench.core.prepare import RunSpec


def _key(f: dict) -> tuple[str, str]:
    return f["kind"], f["field"]


def notes(present: dict[str, dict | None], order: list[str]) -> str:
    """'fixed in 0.33.0' / 'new in 0.33.0' against the first version; '' when all agree."""
    base = present[order[0]] is not None
    out = []
    for v in order[1:]:
        now = present[v] is not None
        if base and not now:
            out.append(f"fixed in {v}")
        elif now and not base:
            out.append(f"new in {v}")
        elif now and present[v]["severity"] != present[order[0]]["severity"]:
            out.append(f"{present[v]['severity']} in {v}")
    return ", ".join(out)


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
        rows.append({"kind": k[0], "field": k[1], "in": present, "note": notes(present, order)})
    return rows


def reports_of(spec: RunSpec, options: Options, order: list[str]) -> dict[str, dict]:
    """check's report (its ``to_dict()``) of the same run in every version of ``order``: the
    installed one here, the others in their lanes (a ``check`` op carrying the RunSpec)."""
    from dataclasses import asdict

    from workbench.check.on_spec import check_spec
    from workbench.lanes import lane, versions

    reports = {}
    for v in order:
        try:
            if versions.is_installed(v):
                reports[v] = check_spec(spec, options)[0].to_dict()
            else:
                reports[v] = lane.get(v).call("check", spec=spec.to_dict(), options=asdict(options))["report"]
        except WorkbenchError as e:  # bad input: the version's own one-line message
            raise WorkbenchError(f"vLLM {v}: {e}") from None
    return reports


def exit_code(report: dict, strict: bool) -> int:
    """check's exit code from its report dict (Report.exit_code)."""
    return 1 if (report["findings"] if strict else not report["consistent"]) else 0
