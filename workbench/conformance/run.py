"""A matrix run: the cases, their groupings made concrete, one task per (case, version,
frontend) on the corpus's pool or Ray, every cell back with its verdict, the known
divergences applied.

Each case is prepared once here with the installed vLLM: its token deltas decide where the
``markers`` grouping cuts (a delta boundary at every start and end of the format's markers)
and, with ``recordings``, are written as a recording, so that every cell's ``workbench
replay`` command is exact.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.conformance.cases import Case

GROUPINGS = ("whole", "token", "markers", "random:1")
APIS = ("chat", "responses", "messages")
FRONTENDS = ("python", "rust")
TASK = "workbench.conformance.task"
FIXTURE = "chunks"  # the grouping of a case that gives its deltas (an ai-dynamo fixture's chunks)


@dataclass
class Options:
    versions: list[str] = field(default_factory=list)  # [] the installed one
    frontends: list[str] = field(default_factory=lambda: ["python"])
    apis: list[str] = field(default_factory=lambda: ["chat"])
    groupings: list[str] = field(default_factory=lambda: ["token"])
    config: str | None = None  # a parser config every case runs with instead of its own parser
    plugins: list[str] = field(default_factory=list)
    recordings: str | None = None  # a folder: each case as a recording, for the replay commands
    workers: int | None = None
    ray: str | None = None
    draw: Any = None  # progress: called with (done, total) after each task
    sink: Any = None  # called with each task's cells as it finishes (a results file written as it goes)


@dataclass
class Outcome:
    cells: list[dict]
    cases: int
    tasks: int
    seconds: float
    runner: str


def check_options(opt: Options) -> Options:
    from workbench.core import chunking
    from workbench.lanes import versions

    opt.versions = [versions.check(v) for v in opt.versions] or [versions.installed()]
    for f in opt.frontends:
        if f not in FRONTENDS:
            raise WorkbenchError(f"--frontend takes {', '.join(FRONTENDS)} (a comma-separated list), not {f!r}")
    for a in opt.apis:
        if a not in APIS:
            raise WorkbenchError(f"--api takes {', '.join(APIS)} (a comma-separated list), not {a!r}")
    for g in opt.groupings:
        if g != "markers":
            chunking.parse(g)
    return opt


def with_parser(cases: Sequence[Case], opt: Options) -> list[Case]:
    """The cases with ``--config`` / ``--plugin`` applied: an author's parser is a row like any other."""
    from workbench.core.parsers import ParserSpec

    if not opt.config and not opt.plugins:
        return list(cases)
    out = []
    for case in cases:
        run = case.run
        if opt.config:
            run = run.with_(parser=ParserSpec(config=str(Path(opt.config).resolve())))
        if opt.plugins:
            run = run.with_(plugins=tuple(str(Path(p).resolve()) for p in opt.plugins))
        out.append(replace(case, run=run))
    return out


def parser_label(case: Case) -> str:
    p = case.run.parser
    if p is None:
        return "-"
    if p.config:
        return f"config:{Path(p.config).name}"
    return f"{p.tool_parser or '-'}+{p.reasoning_parser or '-'}"


def payloads(cases: Sequence[Case], opt: Options) -> list[tuple[str, str, dict]]:
    """The jobs: (case id, VERSION/FRONTEND, what the task needs), one per case x version x frontend."""
    from dataclasses import asdict

    from workbench.conformance import cases as cases_mod

    jobs = []
    for case in cases:
        groupings, why, recording = _concrete(case, opt)
        for version in opt.versions:
            for frontend in opt.frontends:
                jobs.append((case.id, f"{version}/{frontend}", {
                    "case": case.id, "parser": parser_label(case), "run": case.run.to_dict(),
                    "expected": asdict(case.expected), "no_version_passes": cases_mod.noted(case, version),
                    "version": version, "frontend": frontend, "apis": list(opt.apis),
                    "groupings": groupings, "why": why, "recording": recording}))
    return jobs


def _concrete(case: Case, opt: Options) -> tuple[list[list], str | None, str | None]:
    """([name, chunking label or None], why a grouping has none, the recording written or None)."""
    need_tokens = "markers" in opt.groupings or opt.recordings or case.run.deltas is not None
    prepared, why = None, None
    if need_tokens:
        from workbench.core.prepare import prepare

        try:
            prepared = prepare(case.run.with_(chunking=None))
        except WorkbenchError as e:
            why = f"the installed vLLM cannot prepare the case ({e})"
    recording = write_recording(case, prepared, opt.recordings) if opt.recordings and prepared is not None else None
    if case.run.deltas is not None:  # a fixture's own chunks are its one grouping
        return [[FIXTURE, ""]], why, recording
    out = []
    for g in opt.groupings:
        if g != "markers":
            out.append([g, g])
        elif prepared is None:
            out.append([g, None])
        else:
            out.append([g, markers_label(prepared.session, [d.text for d in prepared.deltas])])
    return out, why, recording


def markers_label(session: Any, texts: list[str]) -> str:
    """The grouping (an ``at:`` label) that cuts the one-token deltas ``texts`` at every start
    and end of a marker of ``session``'s format."""
    from workbench.check import contract
    from workbench.core.chunking import at_label

    text = "".join(texts)
    ends, at = [], 0
    for t in texts:
        at += len(t)
        ends.append(at)
    cuts: set[int] = set()
    for m in contract.markers(session):
        i = text.find(m) if m else -1
        while i >= 0:
            first = next(k for k, e in enumerate(ends) if e > i)
            last = next((k for k, e in enumerate(ends) if e >= i + len(m)), len(ends) - 1)
            cuts.update((first, last + 1))
            i = text.find(m, i + len(m))
    cuts = {c for c in cuts if 0 < c < len(texts)}
    bounds = [0, *sorted(cuts), len(texts)]
    return at_label([b - a for a, b in zip(bounds, bounds[1:])]) if texts else "token"


def write_recording(case: Case, prepared: Any, folder: str) -> str:
    from workbench.core import recording as rec, trust
    from workbench.core.tokenizers import ensure_tokenizer, tokenizer_sha256

    setup = prepared.session.setup
    from workbench.core.names import path_name

    parent, _, stem = case.id.rpartition("/")
    path = Path(folder).joinpath(*[path_name(p, "a case's folder") for p in parent.split("/") if p],
                                 path_name(stem, "a case's name") + ".jsonl")
    path.parent.mkdir(parents=True, exist_ok=True)
    header = rec.make_header(setup.tokenizer, tokenizer_sha256(ensure_tokenizer(setup.tokenizer)),
                             setup.request.to_dict(), prepared.session.prompt_ids,
                             {"kind": "text", "case": case.id}, trust.provenance(setup.parser, setup.plugins))
    rec.save(path, header, prepared.deltas, overwrite=True)
    return str(path)


def run(cases: Sequence[Case], opt: Options) -> Outcome:
    from workbench.corpus import pool
    from workbench.conformance import cases as cases_mod, task as task_mod

    opt = check_options(opt)
    cases = with_parser(cases, opt)
    if opt.ray:
        from workbench.corpus import ray_runner

        ray_runner.require()
    t0 = time.perf_counter()
    if "python" in opt.frontends and not opt.ray:  # the lanes' warm servers start while the cases are prepared
        from workbench.lanes import warm

        warm.prestart(opt.versions)
    jobs = payloads(cases, opt)
    tokenizers = sorted({c.run.tokenizer for c in cases if c.run.tokenizer})
    spec = task_mod.Spec()
    workers = pool.default_workers() if opt.workers is None else opt.workers
    if workers < 1:
        raise WorkbenchError(f"--workers must be >= 1, got {workers}")
    if opt.ray:
        from workbench.corpus import ray_runner

        lines = ray_runner.run(spec, iter(jobs), opt.ray, opt.workers, tokenizers, task=TASK)
    else:
        lines = pool.run(spec, iter(jobs), min(workers, max(1, len(jobs))), tokenizers, task=TASK)
    divergences = cases_mod.load_divergences()
    out: list[dict] = []
    for done, line in enumerate(lines, 1):
        for cell in line["cells"]:
            if cell["verdict"] in ("differs", "stream≠nonstream", "error"):
                cell["allowed"] = allowance(divergences, cell)
            cell["replay"] = replay_command(cell)
            out.append(cell)
        if opt.sink:
            opt.sink(line["cells"])
        if opt.draw:
            opt.draw(done, len(jobs))
    order = {(c.id): i for i, c in enumerate(cases)}
    out.sort(key=lambda c: (order.get(c["case"], 0), c["vllm"], c["frontend"], APIS.index(c["api"])
                            if c["api"] in APIS else 9, _index(opt.groupings, c["grouping"])))
    return Outcome(out, len(cases), len(jobs), time.perf_counter() - t0,
                   f"ray {opt.ray}" if opt.ray else f"pool of {workers}")


def allowance(divergences: Sequence[Any], cell: dict) -> dict | None:
    """The known divergence that allows a failing ``cell`` ({"reason", "link"}), or None. A
    divergence names groupings (``markers``), a cell carries its concrete one (``at:1,2``)."""
    from workbench.conformance import cases as cases_mod

    found = cases_mod.allowed(divergences, {**cell, "chunking": cell.get("grouping"), "field": cell.get("field")})
    return {"reason": found.reason, "link": found.link} if found else None


def _index(items: list[str], item: str) -> int:
    return items.index(item) if item in items else -1


def replay_command(cell: dict) -> str:
    """The `workbench replay` command line that shows the cell's stream."""
    import shlex

    rec = cell.get("recording") or f"{cell['case']}.jsonl"
    words = ["workbench", "replay", rec, "--vllm", cell["vllm"]]
    if cell["frontend"] == "rust":
        words += ["--frontend", f"rust@{cell['vllm']}"]
    if cell["api"] != "chat":
        words += ["--api", cell["api"]]
    if cell.get("chunking") and cell["chunking"] != "token":
        words += ["--chunking", cell["chunking"]]
    return " ".join(shlex.quote(w) for w in words)
