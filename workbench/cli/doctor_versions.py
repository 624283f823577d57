"""Is a parser cause fixed in another vLLM? `doctor` asks the lanes (cli/vllm_option.py).

The same `workbench doctor --json` command line runs in every other listed version
(a lane each: a worker start, so only when the doctor found a parser cause); a
cause's findings (check's, which the doctor reads) are matched by what was compared
and which field (``kind``, ``field``), as `check --vllm A,B` does. All of a cause's
findings gone in a version: "fixed in V" (the first such); present everywhere: "not
fixed in any version here".
"""

from __future__ import annotations

import json

from workbench.lanes import versions


def findings_in(version: str, argv: list[str]) -> set[tuple[str, str]] | str:
    """The (kind, field) of every finding the doctor reads in ``version``, or why it could not run."""
    from workbench.cli import main
    from workbench.cli.vllm_option import run_captured
    from workbench.errors import WorkbenchError

    try:
        done = run_captured(version, argv, main)
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


def attach(causes: list, check_argv: list[str]) -> None:
    """Set ``versions`` on each of ``causes`` (the parser ones) from one check per other version."""
    here = versions.installed()
    others = [v for v in versions.listed() if v != here]
    if not others:
        for c in causes:
            c.versions = {"checked": [here], "verdict": f"only vLLM {here} was checked"}
        return
    present = {v: findings_in(v, check_argv) for v in others}
    for c in causes:
        if not c.findings:
            continue
        text, per = verdict(c.findings, present)
        if c.where is not None and not c.where.get("vllm"):  # the author's plugin or config: nothing to fix in vLLM
            text = (text.replace("not fixed in any version here", "the same with every vLLM here")
                    .replace("fixed in ", "gone with vLLM "))
        c.versions = {"checked": [here] + others, "verdict": text, "per_version": per}
