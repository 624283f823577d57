"""The tools over the stream on screen, as transitions (widget-free): Check, the minimal
grouping and text it shrinks to, A/B, Save, Export. Each runs on the rows shown (with the
session that made them, not the pickers: a pending change is not what is on screen) and
keeps its answer in the state with the stream it is about (``State.fresh``). With no
stream yet, the settings' stream runs first; Check and Diagnose, which need its end, run a
stream stepped part way to its end first.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError
from workbench.ui import transitions as T
from workbench.ui.runtime import setup_of
from workbench.ui.state import ABSpecs, Result, State, frozen, with_outcome

if TYPE_CHECKING:
    from workbench.core.deltas import Delta
    from workbench.ui.runtime import Runtime


def on_screen(s: State, rt: Runtime) -> tuple[State, object, list[Delta]]:
    """(the state, with the settings' stream run when none is on screen; its session; its deltas)."""
    if not s.stream.started:
        s = T.run_all(s, rt)
    deltas = rt.recorded()
    if not deltas:
        raise WorkbenchError("no deltas yet: Step or Run first")
    return s, rt.stream_session, deltas


def whole(s: State, rt: Runtime) -> tuple[State, object, list[Delta], str]:
    """``on_screen`` for Check and Diagnose, which hold the stream against the non-streaming
    answer: that needs the stream's end (its finish_reason), so a stream stepped part way
    runs to its end first, as Run would; the last item says so for the status line ("")."""
    ran = ""
    if s.stream.started and not s.stream.done:
        before = len(s.stream.rows)
        s = T.run_all(s, rt)
        ran = f"ran the stream to its end ({before} → {len(s.stream.rows)} deltas), then "
    return (*on_screen(s, rt), ran)


# -- check -----------------------------------------------------------------
def check(s: State, rt: Runtime, fuzz: int | None = None, jobs: int = 1, shrink_budget_s: float = 5.0,
          text_budget_s: float = 5.0) -> State:
    """``workbench.check.check`` on the stream: stream vs non-stream, chunking fuzz, the
    client contract; what fails is shrunk."""
    from workbench.check import Options, check as run_check

    fuzz = s.fuzz if fuzz is None else int(fuzz)
    s, session, deltas, ran = whole(replace(s, fuzz=fuzz), rt)
    rt.status(f"checking {len(deltas)} deltas: {fuzz} random groupings, shrinking what fails…", None)
    report = run_check(session, deltas, Options(fuzz=fuzz, jobs=jobs, cost=False, shrink_budget_s=shrink_budget_s,
                                                text_budget_s=text_budget_s))
    s = replace(s, check=Result(s.stream.id, report, len(s.stream.rows)))
    return with_outcome(s, "ok", f"{ran}checked {len(deltas)} deltas ({fuzz} random groupings)", "Check")


def minimal_grouping(s: State) -> str | None:
    """The first finding's grouping, as the ``--chunking`` name `workbench replay` takes."""
    for f in (s.check.value.findings if s.check else []):
        if "minimal_grouping" in f.extra:
            return f.extra["minimal_grouping"]
    return None


def minimal_text(s: State) -> str | None:
    """The shortest text check found that still shows the first severe finding."""
    for f in (s.check.value.findings if s.check else []):
        if "minimal_text" in f.extra:
            return f.extra["minimal_text"]["text"]
    return None


def show_grouping(s: State, rt: Runtime, label: str | None = None) -> State:
    """The stream's tokens grouped as ``label`` (a ``--chunking`` name; default: check's
    minimal grouping), replayed."""
    from workbench.check import groupings as G

    label = label or minimal_grouping(s)
    if not label:
        raise WorkbenchError("no minimal grouping yet: run Check first")
    s, session, deltas = on_screen(s, rt)
    tokens = G.TokenStream.from_deltas(session, deltas)
    s = T.replay(s, rt, tokens.named(label), origin=label)
    return with_outcome(s, "ok", f"grouping {label}: {len(s.stream.rows)} deltas, {len(s.stream.changed)} rows "
                                 "differ from the previous run (marked)", "grouping")


def replay_minimal(s: State, rt: Runtime) -> State:
    """Check's minimal text, streamed here (same tokenizer, parser and request)."""
    text = minimal_text(s)
    if text is None:
        raise WorkbenchError("no minimal text yet: run Check first")
    settings = replace(s.applied, source="text", text=text, recording=None, prompt_token_ids=None)
    s = T.run_all(T.reset(replace(s, settings=settings), rt), rt)
    return with_outcome(s, "ok", f"minimal text: {len(s.stream.rows)} deltas", "minimal text")


# -- A/B -------------------------------------------------------------------
def editor_file(text: str | None) -> str:
    """The editor's active config as a file, for what takes a path ("editor" in A/B, doctor)."""
    import tempfile

    from workbench.core import outputs

    if text is None:
        raise WorkbenchError('"editor" needs a reloaded editor config first')
    return str(outputs.write_text(Path(tempfile.mkdtemp(prefix="workbench-editor-")) / "editor.toml", text))


def compare(s: State, rt: Runtime, specs: ABSpecs) -> State:
    """Both specs over the stream, each on its API; the result is ``core.diff.DiffResult``
    (``Result.extra["sides"]``: each side's API face when an API other than chat is on one)."""
    from workbench.core import diff
    from workbench.core.parsers import ParserSpec
    from workbench.lanes.version_diff import split_version
    from workbench.ui.ab_apis import label as spec_label
    from workbench.ui.inputs import resolve

    s = replace(s, ab_specs=specs)
    parsed, labels, lanes = [], [], []
    for text in (specs.a.strip(), specs.b.strip()):
        if not text:
            empty = "B" if specs.a.strip() else "A"
            raise WorkbenchError(f"give two parser specs, e.g. hermes+qwen3 and +qwen3 ({empty} is empty)")
        text, version = split_version(text)  # hermes+qwen3@0.33.0: that vLLM's lane
        lanes.append(version)
        if text == "editor" and s.applied.plugin_text is not None:
            spec = None  # the editor's plugin: its names and file as the session on screen loaded it
        elif text == "editor":
            spec = ParserSpec(config=editor_file(s.applied.config_text))
        else:
            spec = ParserSpec.parse(text)
            spec = ParserSpec(config=resolve(spec.config)) if spec.config else spec
        parsed.append(spec)
        labels.append(spec_label(text, spec))
    s, session, deltas = on_screen(s, rt)
    rt.status(f"A/B: {labels[0]} vs {labels[1]} on {len(deltas)} deltas…", None)
    setup = replace(setup_of(s.applied), api="chat")
    if None in parsed:
        setup = replace(setup, plugins=setup.plugins + session.setup.plugins)
        parsed = [session.setup.parser if p is None else p for p in parsed]
    apis = (specs.api_a, specs.api_b)
    sides = None
    if apis != ("chat", "chat"):
        if any(lanes):
            raise WorkbenchError("another API than chat runs on the installed vLLM only; "
                                 "on a lane use `workbench replay --vllm V --api API`")
        from workbench.ui import ab_apis

        sides = [ab_apis.side(setup, spec, api, deltas, f"{lb} · {api}",
                              session.prompt_ids if api == getattr(session, "api", "chat") else None)
                 for spec, api, lb in zip(parsed, apis, labels)]
        res = ab_apis.compare(*sides)
    elif any(lanes):
        from workbench.lanes import version_diff as lane_diff

        res = lane_diff.run(setup, (parsed[0], lanes[0]), (parsed[1], lanes[1]), deltas=deltas,
                            prompt_token_ids=session.prompt_ids)
        res.label_a, res.label_b = [f"{lb}@{v}" if v else lb for lb, v in zip(labels, lanes)]
    else:
        res = diff.run(setup, parsed[0], parsed[1], deltas=deltas, prompt_token_ids=session.prompt_ids)
        res.label_a, res.label_b = labels
    s = replace(s, ab=Result(s.stream.id, res, len(s.stream.rows), frozen({"sides": sides})))
    first = res.first_step or getattr(res, "first_machine_step", None)
    said = "A/B: " + ("A and B agree" if res.same else f"first differing step {first}")
    if getattr(res, "across_versions", None) is not None:  # one parser, two vLLMs: "fixed in V"
        from workbench.lanes.version_diff import verdicts

        said += " · " + "; ".join(verdicts(res.across_versions))
    return with_outcome(s, "ok", said, "A/B")


# -- take away ---------------------------------------------------------------
def save_recording(s: State, rt: Runtime, path: str, force: bool = False) -> State:
    """The stream so far (a recording in progress included) as a JSONL recording; an existing
    file is refused (WorkbenchError) unless ``force``."""
    n = rt.save(s.applied, str(path), force)
    return with_outcome(s, "ok", f"saved {n} deltas to {path}", "Save")


def export(s: State, rt: Runtime, path: str) -> tuple[State, Path, list]:
    """A standalone pytest file of the stream's case (the check's findings, this stream's)."""
    from workbench.export import pytest_file as ex
    from workbench.export import authored as export_code

    s, session, deltas = on_screen(s, rt)
    if not s.fresh(s.check):
        s = check(s, rt, text_budget_s=0)
    case = ex.build_case(session, deltas, s.check.value)
    written = ex.write_pytest(path, case, code=export_code.copies(session))  # the plugins it ran, beside it
    failures = ex.self_check(written)
    state = (f"it fails now ({len(failures)} test(s)), as it should while the bug is present"
             if failures else "it passes now")
    return with_outcome(s, "ok", f"exported {written}: {state}", "Export"), written, failures
