"""Is a parser cause fixed in another vLLM? The same run (its ``RunSpec``) is diagnosed by
`workbench doctor --json` in every other listed version (a lane each: a worker start, so only when the doctor
found a parser cause); a cause's findings (check's, which the doctor reads) are matched by
what was compared and which field (``kind``, ``field``), as `check --vllm A,B` does. All of
a cause's findings gone in a version: "fixed in V" (the first such); present everywhere:
"not fixed in any version here". The CLI's doctor and the widget's Diagnose tab ask here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from workbench.lanes import versions

if TYPE_CHECKING:
    from workbench.core.run_spec import RunSpec

# the lane program that runs whole `workbench` commands (cli/in_lane.py), started by its
# module name: a lane is a process boundary, so nothing here imports the CLI
COMMANDS = "workbench.cli.in_lane"


def findings_in(version: str, spec: RunSpec, progress: Callable[[str], None] | None = None
                ) -> set[tuple[str, str]] | str:
    """The (kind, field) of every finding the doctor reads in ``version`` (another than the
    installed one), or why it could not run; ``progress`` hears the lane start."""
    from workbench.errors import WorkbenchError
    from workbench.lanes import lane

    try:
        worker = lane.get(version, progress=progress, program=COMMANDS)
        done = worker.call("command", name="doctor", spec=spec.to_dict(), options={"json": True})
    except WorkbenchError as e:
        return f"could not run: {e}"
    try:
        data = json.loads(done["stdout"])
    except json.JSONDecodeError:
        last = (done["stderr"].strip().splitlines() or ["no output"])[-1]
        return f"could not run: {last}"
    return {(f["kind"], f["field"]) for f in data.get("findings", []) if f.get("severity") != "cosmetic"}


def verdict(keys: list[dict], present: dict[str, set | str]) -> tuple[str, dict]:
    per = {}
    for v, found in present.items():
        if isinstance(found, str):
            per[v] = found
        else:
            per[v] = "present" if any((k["kind"], k["field"]) in found for k in keys) else "gone"
    fixed = [v for v, state in per.items() if state == "gone"]
    if fixed:
        return f"fixed in {fixed[0]}", per
    if per and all(state == "present" for state in per.values()):
        return "not fixed in any version here", per
    return "; ".join(f"{v}: {state}" for v, state in per.items()) or "no other version listed", per


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
    present = {v: findings_in(v, spec, progress) for v in others}
    for c in causes:
        if not c.findings:
            continue
        text, per = verdict(c.findings, present)
        if c.where is not None and not c.where.get("vllm"):  # the author's plugin or config: nothing to fix in vLLM
            text = (text.replace("not fixed in any version here", "the same with every vLLM here")
                    .replace("fixed in ", "gone with vLLM "))
        c.versions = {"checked": [here] + others, "verdict": text, "per_version": per}
