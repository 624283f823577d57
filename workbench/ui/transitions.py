"""The stream's actions as transitions ``(state, runtime) -> state`` (widget-free): Step, a
Run's slice, Stop, Reset, Replay, a recording loaded, a row selected.

A stream starts from the settings as they are then (they become its ``applied``); a later
change of the settings waits (``State.pending``) until Replay or Reset applies it. Replay
runs the same deltas through the new settings, or, when the settings make other deltas
(another source, script, recording, tokenizer or grouping: ``State.stream_changed``), a new
stream from them. The runtime makes the rows; a transition that raises leaves the state it
was given (the controller shows why), with every row made so far kept in its log.

``seen`` is the controller's last word on every state it keeps: what of the runtime the
views read (``State.made``), and every API's final once a stream ends, so that drawing
reads the state alone and writes nothing.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError
from workbench.ui import final as final_mod
from workbench.ui.final import FinalView, rows_changed
from workbench.ui.runtime import label, recorded
from workbench.ui.state import Made, Outcome, Rows, State, Stream, frozen, switched, with_outcome  # noqa: F401 (with_outcome: the widget's one-line outcomes)

if TYPE_CHECKING:
    from workbench.core.deltas import Delta
    from workbench.core.rows import Row
    from workbench.ui.runtime import Runtime


def ready(s: State) -> None:
    """Settings that apply must be whole: a box whose text is not JSON yet says so."""
    for _name, (_text, error) in s.drafts.items():
        raise WorkbenchError(error)


def begin(s: State, rt: Runtime, deltas: list[Delta] | None = None, origin: str = "") -> State:
    """A stream from the settings (``deltas``: those, replayed), unless one is on screen."""
    if s.stream.started and deltas is None:
        return s
    ready(s)
    i = s.settings
    session = rt.session_for(i)
    source = rt.source_for(i, session, deltas)
    sid = rt.use(source, session, keep_origin=origin == "recorded")
    stream = Stream(applied=i, id=sid, parser=parser_of(session), origin=origin, total=source.total)
    rt.status("ready", None)
    rt.last = replace(s, stream=stream, selected=None, selection=())
    return rt.last


def parser_of(session) -> dict:
    """What the session composed (``parsers.describe``) and the plugins it loaded: their files
    and the names they register (a class alone does not say the editor's file)."""
    info = dict(session.parser_info or {})
    loaded = getattr(session, "plugins", ())
    if loaded:
        info["plugins"] = [{"file": p.file, "names": p.names()} for p in loaded]
    return info


def took(s: State, rt: Runtime, new: list[Row]) -> State:
    """The stream with ``new`` rows (and its final answers once the source is done)."""
    st = s.stream
    src = rt.source
    rows = st.rows.grown(new) if new else st.rows
    done = bool(src is not None and src.done)
    final = st.final
    if done and final is None:
        final = finish(rows, src)
    errors = st.errors + sum(1 for r in new if r.error)
    rt.last = replace(s, stream=replace(st, rows=rows, done=done, final=final, errors=errors))
    return rt.last


def finish(rows: Rows, source) -> FinalView:
    rows_list = list(rows)
    stream, nonstream = source.final()
    diffs = final_mod.compare(rows_list, stream, nonstream)
    note = final_mod.content_note(rows_list, stream)
    return FinalView(stream, nonstream, diffs, final_mod.first_divergent_step(diffs),
                     list(getattr(source, "notes", [])) + ([note] if note else []))


def step(s: State, rt: Runtime, n: int = 1) -> State:
    """``n`` deltas (engine steps, server chunks)."""
    s = begin(s, rt)
    src = rt.source
    if src.done:
        return with_outcome(s, "ok", "the stream is finished: Reset or Replay", "Step")
    new: list[Row] = []
    try:
        for _ in range(n):
            if src.done:
                break
            new += src.step()
    except BaseException:
        took(s, rt, new)  # the rows made before it failed stay (the controller's checkpoint)
        raise
    return with_outcome(took(s, rt, new), "ok", "", "Step")


def run_slice(s: State, rt: Runtime, seconds: float = 0.05) -> State:
    """A Run's share of work: the deltas that go within ``seconds`` (a lane's: the rows that
    came in that time, its request sent at the first slice)."""
    s = begin(s, rt)
    src = rt.source
    new: list[Row] = []
    if getattr(src, "streams", False):
        new = src.step_for(seconds) if not src.done else []
    else:
        end = time.perf_counter() + seconds
        try:
            while not src.done and time.perf_counter() < end:
                new += src.step()
        except BaseException:
            took(s, rt, new)  # the rows made before it failed stay (the controller's checkpoint)
            raise
    total = src.total
    s = took(s, rt, new)
    n = len(s.stream.rows)
    return replace(s, outcome=Outcome("ok", "", "Run", progress=n / total if total and not s.stream.done else None))


def run_all(s: State, rt: Runtime) -> State:
    s = begin(s, rt)
    while not s.stream.done:
        s = run_slice(s, rt, 0.25)
    return s


def stop(s: State, rt: Runtime) -> State:
    """A Run stops after the row in progress; a lane's request is cancelled and the rows it
    had made come in."""
    src = rt.source
    new = src.pause() if src is not None and getattr(src, "streams", False) and not src.done else []
    s = took(s, rt, new) if new else s
    if s.stream.done:  # the Run ended before the Stop was heard
        return with_outcome(replace(s, running=False), "ok", "", "Run")
    return with_outcome(replace(s, running=False), "ok", "stopped; Step or Run goes on", "Stop")


def reset(s: State, rt: Runtime) -> State:
    """The stream goes; the settings apply to the next Step."""
    ready(s)
    rt.use(None)
    return with_outcome(replace(s, stream=Stream(applied=s.settings), selected=None, selection=(),
                                running=False, notes=()),
                        "ok", "reset: Step or Run to start the stream again", "Reset")


def replay(s: State, rt: Runtime, deltas: list[Delta] | None = None, origin: str = "") -> State:
    """The stream through the current settings, to its end; the rows that changed are marked.
    ``deltas``: replay those instead (a grouping, a minimal text), named ``origin``."""
    ready(s)
    old = s.stream
    if deltas is None and (not old.started or s.stream_changed()):
        new = run_all(begin(replace(s, stream=Stream(applied=s.settings), notes=()), rt), rt)
        what = "a new stream from the settings" if old.started else "the stream"
        return with_outcome(_keep_selection(new, s.selected), "ok",
                            f"replayed {what}: {len(new.stream.rows)} deltas through {label(s.settings)}",
                            "Replay")
    if deltas is None:
        deltas = rt.recorded()
        live = old.applied.source in ("engine", "server")
        origin = "recorded" if live or old.origin == "recorded" else old.origin
    if not deltas:
        raise WorkbenchError("no deltas to replay: Step or Run first")
    new = run_all(begin(s, rt, deltas, origin), rt)
    changed = frozenset(rows_changed(list(old.rows), list(new.stream.rows))) if len(old.rows) else frozenset()
    new = replace(new, stream=replace(new.stream, changed=changed))
    return with_outcome(_keep_selection(new, s.selected), "ok",
                        f"replayed {len(new.stream.rows)} deltas through {label(s.settings)}: "
                        f"{len(changed)} rows changed", "Replay")


def _keep_selection(s: State, selected: int | None) -> State:
    """The same step of the new stream stays selected, when it has one."""
    return select(s, None, selected) if selected is not None and selected <= len(s.stream.rows) else s


def load_recording(s: State, rt: Runtime, path: str) -> State:
    """A recording's settings (its header's tokenizer, parser, request, prompt), at once
    (``Workbench(recording=...)``, ``wb.load_recording``; the picker waits: ``settings.pick_recording``);
    the stream goes, and Step replays it; the script stays the text's and the engine's. Its
    request replaces the messages and tools: a draft in their boxes goes, and does not stop it."""
    s = replace(s, drafts=frozen({k: v for k, v in s.drafts.items() if k not in ("messages", "tools")}))
    ready(s)
    rt.use(None)
    s = switched(s, "recording")
    settings, notes = rt.open_recording(s.settings, str(path))
    s = replace(s, settings=settings, stream=Stream(applied=settings), selected=None, selection=(),
                notes=tuple(notes), editor=replace(s.editor, problems=(), note=""))
    return with_outcome(s, "ok", f"recording {path}: {settings.tokenizer}, {label(settings)}; "
                                 "Step or Run to replay it", "recording")


def select(s: State, rt: Runtime | None, step: int | None, selection: tuple[int, ...] | None = None) -> State:
    """A row of the current stream (clamped to it); ``selection``: every selected step."""
    n = len(s.stream.rows)
    if step is None and selection:
        step = selection[-1]
    if step is None or not n:
        return replace(s, selected=None, selection=())
    step = max(1, min(int(step), n))
    keep = tuple(k for k in (selection or ()) if 1 <= k <= n)
    return replace(s, selected=step, selection=keep if step in keep else (step,))


def load(s: State, rt: Runtime) -> State:
    """vLLM loaded and the settings' parser composed (nothing streamed yet)."""
    ready(s)
    session = rt.session_for(s.settings)
    rt.status("ready", None)
    return with_outcome(s, "ok", f"ready: {label(s.settings)} on {session.setup.tokenizer}; Step or Run", "load")


def seen(s: State, rt: Runtime) -> State:
    """``s`` with what the views read of the runtime (``State.made``) and, once its stream
    ended, every API's final (a long stream's wait for a click: ``every_api``)."""
    was = s.made
    session, stream_session, source = rt.session, rt.stream_session, rt.source
    tokenizer = getattr(stream_session or session, "tokenizer", None)
    decoder = was.decoder if was.decoder is not None and was.decoder.tokenizer is tokenizer else None
    if decoder is None and tokenizer is not None:
        from workbench.ui.table import TokenText

        decoder = TokenText(tokenizer)
    made = Made(session, rt.built_key(), stream_session, source, decoder, rt.faces(s.stream.applied))
    if made != was:
        s = replace(s, made=made)
    f = s.stream.final
    if f is not None and f.apis is None and f.apis_failed is None and made.faces is not None:
        from workbench.ui.faces_view import MOST_FINAL_DELTAS

        if len(s.stream.rows) <= MOST_FINAL_DELTAS:
            s = replace(s, stream=replace(s.stream, final=with_apis(s, f)))
    return s


def with_apis(s: State, f: FinalView) -> FinalView:
    """``f`` with every API's client object and body (it replays the stream once per API),
    or why they failed (the chat verdict stays; the banner says what failed)."""
    try:
        apis = s.made.faces.finals(list(s.stream.rows), recorded(s.made.source), (f.stream, f.nonstream))
    except Exception as e:  # noqa: BLE001 - shown: the final tab's note and the banner (screen.final)
        return replace(f, apis_failed=e)
    return replace(f, apis=apis)


def api_finals(s: State, force: bool = False) -> tuple[list | None, str]:
    """Every API's client object and body once the stream ended (the controller made them;
    a long stream's wait for a click, ``force``: made now, for a caller that is not drawing),
    or None and why."""
    f = s.stream.final
    if f is None:
        return None, ""
    if s.made.faces is None:
        return None, "the other APIs' finals run on the installed vLLM only"
    if f.apis is None and f.apis_failed is None and force:
        f = with_apis(s, f)
    if f.apis_failed is not None:
        return None, f"the other APIs' finals failed: {type(f.apis_failed).__name__}"
    if f.apis is None:
        return None, f"{len(s.stream.rows):,} deltas: every API's final replays them once per API; click below"
    return f.apis, ""


def every_api(s: State, rt: Runtime) -> State:
    """Every API's final of a stream too long to replay unasked (the final tab's button)."""
    f = s.stream.final
    if f is None or f.apis is not None or s.made.faces is None:
        return s
    return replace(s, stream=replace(s.stream, final=with_apis(s, f)))
