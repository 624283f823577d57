"""Is a parser cause fixed in another vLLM? The same run (its ``RunSpec``) is diagnosed by
the lane worker's ``findings`` op (the doctor's findings as data, unshrunk, never a command's
output) in every other listed version, all at once (a lane each, a warm one when warm lanes
are on; only when the doctor found a parser cause); a cause's findings (check's, which the doctor reads) are matched by
what was compared and which field (``kind``, ``field``), as `check --vllm A,B` does. A cause
is gone in a version when all its findings are; the installed version has it. The verdict is
``lanes.fixed_in.timeline``'s over every version in version order ("fixed in 0.34.0", "fixed
in 0.33.0, back in 0.34.0", "not fixed in any version here"); a version that could not run
is left out of it and named: "could not run on V: <why>", also when its doctor ran but the
parser could not start there (a file it cannot load, a name it lacks): only a verdict from a
parser that ran counts, never "gone" for one that did not. The spec travels with every path
absolute (lanes/carried.py). The CLI's doctor and the widget's Diagnose tab ask here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from workbench.lanes import fixed_in
from workbench.lanes import versions

if TYPE_CHECKING:
    from workbench.core.run_spec import RunSpec

def could_not_run(version: str, why: str) -> str:
    """The one line a version that could not run the parser gets: never a verdict."""
    line = " ".join(str(why).split()) or "no output"
    return f"could not run on {version}: {line}"


def findings_in(version: str, spec: RunSpec, progress: Callable[[str], None] | None = None
                ) -> set[tuple[str, str]] | str:
    """The (kind, field) of every finding the doctor reads in ``version`` (another than the
    installed one), or why it could not run (``could_not_run``): the lane failed, the doctor
    there failed, or the parser could not start there; ``progress`` hears the lane start."""
    from workbench.errors import LaneFailed, WorkbenchError
    from workbench.lanes import carried, lane

    try:
        answer = lane.get(version, progress=progress).call("findings", spec=carried.spec(spec))
    except (WorkbenchError, LaneFailed) as e:  # bad input there, or the lane's own failure: no verdict
        return could_not_run(version, str(e))
    if answer["cannot_start"] is not None:
        return could_not_run(version, answer["cannot_start"])
    return {(kind, fld) for kind, fld, severity in answer["findings"] if severity != "cosmetic"}


def findings_everywhere(versions_asked: list[str], spec: RunSpec, progress: Callable[[str], None] | None = None
                        ) -> dict[str, set[tuple[str, str]] | str]:
    """``findings_in`` of every version at once: each lane is a process of its own, so
    asking them one after another only added their times up."""
    if len(versions_asked) < 2:
        return {v: findings_in(v, spec, progress) for v in versions_asked}
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(versions_asked), thread_name_prefix="lane-verdict") as pool:
        asked = {v: pool.submit(findings_in, v, spec, progress) for v in versions_asked}
        return {v: done.result() for v, done in asked.items()}


# A cause in the author's own plugin or config: nothing to fix in vLLM, only how it fares with each
OWN = {"fixed": "gone with vLLM", "back": "back with vLLM", "new": "new with vLLM"}


def verdict(keys: list[dict], present: dict[str, set | str], here: str, own: bool = False) -> tuple[str, dict, dict]:
    """(the verdict, per version "present" / "gone" / why it could not run, the timeline) of a
    cause with findings ``keys``, found in ``here`` (the installed version) and in ``present``
    (``findings_in`` per other version); ``own``: the cause is in the author's plugin or config."""
    per: dict[str, str] = {here: "present"}
    for v, found in present.items():
        if isinstance(found, str):
            per[v] = found
        else:
            per[v] = "present" if any((k["kind"], k["field"]) in found for k in keys) else "gone"
    t = fixed_in.timeline({v: state == "present" if state in ("present", "gone") else None
                           for v, state in per.items()})
    if t["text"] == fixed_in.NOT_FIXED:
        text = "the same with every vLLM here" if own else t["text"]
    elif t["changes"]:
        text = ", ".join(f"{OWN[what] if own else what + ' in'} {v}" for what, v in t["changes"])
    else:  # no other version could run it
        return "; ".join(per[v] if per[v].startswith(f"could not run on {v}:") else f"{v}: {per[v]}"
                         for v in present) or "no other version listed", per, t
    if t["unknown"]:
        text += f" ({', '.join(t['unknown'])} could not run it)"
    return text, per, t


def attach(causes: list, spec: RunSpec, progress: Callable[[str], None] | None = None) -> None:
    """Set ``versions`` on each of ``causes`` (the parser ones) from one doctor run of ``spec``
    per other version (``progress`` hears a lane start: the CLI prints it, the widget shows it
    in its status line)."""
    here = versions.installed()
    others = [v for v in versions.listed() if v != here]
    if not others:
        for c in causes:
            c.versions = {"checked": [here], "verdict": f"only vLLM {here} was checked"}
        return
    present = findings_everywhere(others, spec, progress)
    for c in causes:
        if not c.findings:
            continue
        own = c.where is not None and not c.where.get("vllm")
        text, per, t = verdict(c.findings, present, here, own)
        c.versions = {"checked": t["order"], "verdict": text, "per_version": {v: per[v] for v in t["order"]},
                      "fixed_in": t["fixed_in"], "back_in": t["back_in"]}
