"""A corpus run: find the recordings, skip what ``--resume`` already has, run the rest on
the pool or on Ray, write every line as it comes, count progress, return all lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.core import limits
from workbench.corpus import files, pool, progress as progress_mod, results
from workbench.corpus.spec import Spec
from workbench.corpus.task import error_line
from workbench.errors import WorkbenchError


@dataclass
class Options:
    output: str | None = None  # results.jsonl
    resume: bool = False
    force: bool = False
    workers: int | None = None  # the pool's processes, or the CPUs of an `auto` Ray
    ray: str | None = None  # "auto" or an address
    draw: object = None  # a progress drawer (progress.TerminalBar, the notebook's bar)


@dataclass
class Outcome:
    lines: list[dict]  # every line of this spec: resumed ones first, then this run's
    resumed: int = 0
    ran: int = 0
    seconds: float = 0.0  # wall time of this run
    workers: int = 0
    runner: str = "pool"


def run(spec: Spec, paths: list[str], opt: Options) -> Outcome:
    if opt.ray:
        from workbench.corpus import ray_runner

        ray_runner.require()
    recs = files.find(paths)
    workers = pool.default_workers() if opt.workers is None else opt.workers
    if workers < 1:  # 0 is not "the default": --workers 0 was taken as one per core
        raise WorkbenchError(f"--workers must be >= 1, got {workers}")
    if not opt.ray:  # a Ray cluster's CPUs are its own
        limits.check_processes(workers, "--workers")
    writer = results.Writer(opt.output, opt.resume, opt.force) if opt.output else None
    kept = [ln for ln in writer.kept if ln["spec"] == spec.key] if writer else []
    done = writer.done if writer else set()
    prog = progress_mod.Progress(len(recs), opt.draw)
    resumed: set[tuple[str, str]] = set()

    def jobs():
        for p in recs:
            try:
                data, sha = files.read(p)
            except WorkbenchError as e:
                yield error_line(spec, str(p), None, str(e), "input")
                continue
            if (str(p), sha, spec.key) in done:
                resumed.add((str(p), sha))
                prog.skip()
                continue
            yield str(p), sha, data

    tokenizers = files.tokenizers(recs, spec_tokenizer(spec))
    if opt.ray:
        from workbench.corpus import ray_runner

        lines_in = ray_runner.run(spec, jobs(), opt.ray, opt.workers, tokenizers)
    else:
        lines_in = pool.run(spec, jobs(), workers, tokenizers)
    out = Outcome(list(kept), workers=workers, runner=f"ray {opt.ray}" if opt.ray else "pool")
    try:
        for line in lines_in:
            if writer is not None:
                writer.write(line)
            out.lines.append(line)
            out.ran += 1
            prog.update(line)
    finally:
        if writer is not None:
            writer.close()
        close = getattr(opt.draw, "close", None)
        if close:
            close()
    out.resumed = prog.resumed
    out.seconds = prog.elapsed
    # resumed lines of recordings no longer given (or changed since) are not reported
    out.lines = [ln for ln in out.lines[:len(kept)] if (ln["path"], ln["sha256"]) in resumed] + out.lines[len(kept):]
    return out


def spec_tokenizer(spec: Spec) -> str | None:
    """The tokenizer the run names, if any (else each recording's own)."""
    return spec.run.get("tokenizer")
