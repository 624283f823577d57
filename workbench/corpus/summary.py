"""The report of a corpus run, from its results lines: findings grouped by kind, each
with its count per version, where it was fixed, came back or is new (each recording's
findings over its versions read by ``lanes.fixed_in.timeline``, in version order), and the
smallest shrunk examples; the first divergent steps; the errors. Plain data: the terminal,
the html page and the notebook all render this one model.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from workbench.lanes import fixed_in as timelines

EXAMPLES = 3


@dataclass
class Kind:
    name: str  # "chunking tool_calls", "stream_vs_nonstream content", "step delta", ...
    recordings: dict[str, int] = field(default_factory=dict)  # version -> recordings with it
    severe: int = 0  # of those findings, how many are not cosmetic (first version)
    fixed_in: Counter = field(default_factory=Counter)  # version -> recordings where it went away
    back_in: Counter = field(default_factory=Counter)  # version -> recordings where it came back
    new_in: Counter = field(default_factory=Counter)  # version -> recordings where it appeared
    examples: list[dict] = field(default_factory=list)  # the smallest, shrunk where shrinking ran

    def to_dict(self) -> dict:
        return {"kind": self.name, "recordings": self.recordings, "severe": self.severe,
                "fixed_in": dict(self.fixed_in), "back_in": dict(self.back_in), "new_in": dict(self.new_in),
                "examples": self.examples}


@dataclass
class Summary:
    mode: str
    versions: list[str]
    recordings: int = 0
    ran: int = 0
    with_findings: int = 0
    errors: list[dict] = field(default_factory=list)  # {"kind", "error", "count", "paths"}
    kinds: list[Kind] = field(default_factory=list)
    first_steps: Counter = field(default_factory=Counter)  # step -> findings first divergent there
    seconds: float = 0.0  # summed task time

    def to_dict(self) -> dict:
        return {"mode": self.mode, "versions": self.versions, "recordings": self.recordings, "ran": self.ran,
                "with_findings": self.with_findings, "errors": self.errors,
                "kinds": [k.to_dict() for k in self.kinds],
                "first_steps": {str(k): v for k, v in sorted(self.first_steps.items())},
                "task_seconds": round(self.seconds, 3)}


def findings(line: dict, version: str | None = None) -> list[dict]:
    """A check line's findings in ``version`` (default: its first)."""
    versions = line.get("versions") or {}
    if not versions:
        return []
    return versions[version or next(iter(versions))]["findings"]


def count(line: dict) -> int:
    """What the progress bar counts as findings: a check line's in its first version, one
    for a diff line whose two sides differ."""
    if line.get("mode") == "diff":
        return int(bool(line.get("diff")) and not line["diff"]["same"])
    return len(findings(line))


def kind_of(f: dict) -> str:
    return f"{f['kind']} {f['field']}"


def _example(line: dict, f: dict, version: str) -> dict:
    minimal = f.get("minimal_text") or {}
    tokens = minimal.get("tokens")
    if tokens is None:
        tokens = ((line["versions"][version].get("checked") or {}).get("tokens"))
    return {"path": line["path"], "version": version, "tokens": tokens, "shrunk": bool(minimal),
            "text": minimal.get("text"), "grouping": f.get("minimal_grouping") or f.get("chunking"),
            "first_step": f.get("first_step"), "detail": f.get("detail", "")}


def summarise(lines: list[dict]) -> Summary:
    mode = next((ln["mode"] for ln in lines), "check")
    versions: list[str] = []
    for ln in lines:
        for v in ln.get("versions") or {}:
            if v not in versions:
                versions.append(v)
    s = Summary(mode, versions, recordings=len(lines))
    kinds: dict[str, Kind] = {}
    errors: dict[tuple, dict] = {}
    for ln in lines:
        s.seconds += ln.get("seconds") or 0.0
        if ln.get("error"):
            key = (ln.get("error_kind"), re.sub(r"\d+", "#", ln["error"].replace(ln["path"], "REC"))[:120])
            e = errors.setdefault(key, {"kind": key[0], "error": ln["error"], "count": 0, "paths": []})
            e["count"] += 1
            if len(e["paths"]) < EXAMPLES:
                e["paths"].append(ln["path"])
            continue
        s.ran += 1
        if mode == "diff":
            _diff_line(s, kinds, ln)
        else:
            _check_line(s, kinds, ln)
    s.errors = sorted(errors.values(), key=lambda e: -e["count"])
    for k in kinds.values():
        for counts in (k.fixed_in, k.back_in, k.new_in):  # oldest version first, as the notes read
            ordered = sorted(counts.items(), key=lambda e: timelines.version_key(e[0]))
            counts.clear()
            counts.update(dict(ordered))
        k.examples.sort(key=lambda e: (not e["shrunk"], e["tokens"] if e["tokens"] is not None else 1 << 30))
        del k.examples[EXAMPLES:]
    s.kinds = sorted(kinds.values(), key=lambda k: (-max(k.recordings.values(), default=0), k.name))
    return s


def _check_line(s: Summary, kinds: dict, ln: dict) -> None:
    seen_any, first = False, next(iter(ln["versions"]))
    for v, report in ln["versions"].items():
        names = set()
        for f in report["findings"]:
            name = kind_of(f)
            k = kinds.setdefault(name, Kind(name))
            if name not in names:
                names.add(name)
                k.recordings[v] = k.recordings.get(v, 0) + 1
                k.examples.append(_example(ln, f, v))
            if v == first:
                k.severe += f.get("severity") != "cosmetic"
                if f.get("first_step"):
                    s.first_steps[f["first_step"]] += 1
        seen_any |= bool(names)
    s.with_findings += seen_any
    for c in ln.get("changes") or []:  # each finding's presence per version ("in": version -> bool)
        k = kinds.setdefault(f"{c['kind']} {c['field']}", Kind(f"{c['kind']} {c['field']}"))
        counts = {"fixed": k.fixed_in, "back": k.back_in, "new": k.new_in}
        for what, version in timelines.timeline(c["in"])["changes"]:
            counts[what][version] += 1


def _diff_line(s: Summary, kinds: dict, ln: dict) -> None:
    d = ln["diff"]
    label = f"{d['a']} vs {d['b']}"
    if label not in s.versions:
        s.versions.append(label)
    if d["same"]:
        return
    s.with_findings += 1
    if d["first_step"]:
        s.first_steps[d["first_step"]] += 1
    names = [f"step {f}" for f in d["at_first_step"]] + [f"final {key}" for key in d["final"]]
    if not names:
        names = ["machine only"]  # same output, different state machine
    for name in names:
        k = kinds.setdefault(name, Kind(name))
        k.recordings[label] = k.recordings.get(label, 0) + 1
        k.severe += 1
        pair = d["final"].get(name.removeprefix("final "), {})
        k.examples.append({"path": ln["path"], "version": label, "tokens": d["steps_differing"], "shrunk": False,
                           "text": None, "grouping": None, "first_step": d["first_step"],
                           "detail": f"A {pair.get('a')!r} / B {pair.get('b')!r}" if pair else ""})
