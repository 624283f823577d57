"""Where a parser config's fault lives: the transition and terminal that fired at the failing
step, their lines in the author's file, and whose fault it is.

A config parser's file is its format: a cause "in vLLM's ParserEngine.parse_delta" says
nothing to its author. ``trace`` replays the stream with vLLM's engine reporting each terminal
it is handed (the state it met, the state it left for, the events it emitted); ``locate``
reads, at the step a finding names, which transition fired there (or, when none did, the
last one before it and the state the text fell into), with the token texts around that
step and the config lines of the transition and its terminal. Two readings are named:
what the text there reads like (config_readings.py). Whether vLLM's own configs show the
same fault is config_family.py's to say.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.diagnosis.config import fixes as F
from workbench.diagnosis.config import readings as R
from workbench.diagnosis.config.segments import Fired, Segment
from workbench.core import vllm_compat as compat

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.core.deltas import Delta
    from workbench.core.session import Session

AROUND = 2  # token texts shown on each side of a step


class Traced(list):
    """``trace``'s terminals, and what the stream sent (``final``: a client's joined message)."""

    final: Any = None


def trace(session: Session, deltas: Sequence[Delta]) -> Traced:
    """Every terminal vLLM's engine was handed while the stream ran, in order."""
    from workbench.core.config.parser import config_of

    run = session.stream(keep_rows=False)
    config = config_of(session.parser_cls)
    out: list[Fired] = []
    step = [0]

    def keep(before: object, terminal: str, value: str, after: object, events: list) -> None:
        # the transition's own events (what the engine returned also flushes held content)
        tr = config.transitions.get((before, terminal)) if config is not None else None
        out.append(Fired(step[0], before.name, terminal, value, after.name,  # type: ignore[attr-defined]
                         tuple(e.name for e in tr.events) if tr else (), tr is not None))

    for engine in run.engines.values():
        compat.record_terminals(engine, keep)
    for n, delta in enumerate(deltas, 1):
        step[0] = n
        run.feed(delta)
    traced = Traced(f for f in out if f.step > 0)
    traced.final = run.result.final()
    return traced


def segments(text: str, fired: Sequence[Fired], initial: str, steps: Sequence[int]) -> list[Segment]:
    """``text`` cut at each fired terminal (found in order); ``steps[i]``: the step of character i."""
    out, pos, state = [], 0, initial
    for f in fired:
        at = text.find(f.value, pos) if f.value else -1
        if at < 0:
            continue
        if at > pos:
            out.append(Segment(state, text[pos:at], None, steps[at - 1]))
        out.append(Segment(f.state, f.value, f, f.step))
        pos, state = at + len(f.value), f.to
    if pos < len(text):
        out.append(Segment(state, text[pos:], None, steps[-1]))
    return out


def lines_of(path: str | None) -> tuple[dict[str, int], list]:
    """(field path -> line, the file's own transitions) of the author's config file."""
    if not path:
        return {}, []
    from workbench.core import door, limits
    from workbench.core.config.lines import locate as locate_lines

    text = door.read_text(path, "config", limits.MAX_CONFIG_BYTES)
    data = door.parse_toml(text, f"config {path}")
    own = data.get("transitions") if isinstance(data.get("transitions"), list) else []
    return locate_lines(text), own


def transition_line(fired: Fired, lines: dict[str, int], own: list) -> int | None:
    for i, t in enumerate(own):
        if isinstance(t, dict) and t.get("from") == fired.state and t.get("on") == fired.terminal:
            return lines.get(f"transitions[{i}]")
    return None


def tokens_around(deltas: Sequence[Delta], step: int, session: Session) -> list[dict]:
    """The deltas from AROUND before ``step`` to AROUND after it: step, token texts."""
    out = []
    for n in range(max(step - AROUND, 1), min(step + AROUND, len(deltas)) + 1):
        d = deltas[n - 1]
        out.append({"step": n, "text": d.text, "tokens": [session.tokenizer.decode([t]) for t in d.token_ids],
                    "at": n == step})
    return out


def locate(session: Session, deltas: Sequence[Delta], step: int, config_file: str | None) -> dict:
    """The config ``where`` of a fault first seen at ``step`` of ``deltas``."""
    from workbench.core.config.parser import config_of

    config = config_of(session.parser_cls)
    fired = trace(session, deltas)
    steps = [n for n, d in enumerate(deltas, 1) for _ in d.text]
    text = "".join(d.text for d in deltas)
    segs = segments(text, fired, config.initial_state.name, steps or [1])
    lines, own = lines_of(config_file)
    at = [f for f in fired if f.step == step and f.transition]
    before = [f for f in fired if f.step < step and f.transition]
    shown = at[-1] if at else (before[-1] if before else None)
    state = (at[-1].to if at else before[-1].to if before else config.initial_state.name)
    out: dict = {"config": config_file or "(the editor's text)", "file": config_file, "class": session.parser_cls.__name__,
                 "step": step, "tokens": tokens_around(deltas, step, session), "state": state,
                 "fired_at_step": bool(at), "vllm": False}
    if shown is not None:
        out["terminal"] = {"name": shown.terminal, "value": shown.value, "step": shown.step,
                           "line": lines.get(f"terminals.{shown.terminal}") or lines.get(
                               f"token_id_terminals.{shown.terminal}")}
        out["transition"] = {"from": shown.state, "on": shown.terminal, "to": shown.to, "emit": list(shown.events),
                             "line": transition_line(shown, lines, own), "matched": shown.transition}
        out["line"] = out["transition"]["line"]
    named = []
    for f, args in R.terminals_in_arguments(segs):
        named.append({"kind": "terminal_in_arguments", "terminal": f.terminal, "value": f.value, "step": f.step,
                      "line": lines.get(f"terminals.{f.terminal}"), "arguments": args[-60:],
                      "detail": f"terminal {f.terminal} {f.value!r} fired inside a call's JSON arguments at step "
                                f"{f.step} (after {args[-40:]!r}): the call ends in the middle of its own JSON",
                      "fix": F.terminal_in_arguments_fix(f)})
    named += [{**n, "line": lines.get(n["key"])} for n in F.raw_json(config, segs, fired.final)]
    # a converter's "line" is its def in its own module; "config_line" the key's in the config
    named += [{**n, "config_line": lines.get(n["key"])} for n in F.converter_output(config, segs, fired.final)]
    tail = R.marker_tail(segs, step)
    if tail is not None:
        f, more = tail
        named.append({"kind": "marker_continues", "terminal": f.terminal, "value": f.value, "step": f.step,
                      "line": lines.get(f"terminals.{f.terminal}"),
                      "detail": f"the text goes on {more!r} right after terminal {f.terminal} {f.value!r} "
                                f"(step {f.step}): is {f.value + more!r} the whole marker?"})
    if state not in {k.name for k in config.content_events}:
        named.append({"kind": "no_content_event", "state": state, "line": lines.get("content_events"),
                      "detail": f"state {state} has no [content_events] entry: the text read there is dropped"})
    window = "".join(t["text"] for t in out["tokens"])
    start = max(text.find(window), 0)
    for name, literal, seen in R.near_misses(config, text, state, text[max(0, start - 40):start + len(window) + 40]):
        named.append({"kind": "terminal_never_fired", "terminal": name, "value": literal,
                      "line": lines.get(f"terminals.{name}"),
                      "detail": f"terminal {name} {literal!r} never fired in state {state}; the text has {seen!r}"})
    out["named"] = named
    out["_segments"] = segs
    return out


def attach(causes: list, session: Session, deltas: Sequence[Delta], checked: object) -> None:
    """Give each parser cause of a config parser its config ``where`` (``locate``) and verdict
    (config_family.same_fault): in place of vLLM's ParserEngine.parse_delta, which every config
    shares."""
    from workbench.diagnosis.facts import PARSER
    from workbench.diagnosis.config.family import same_fault
    from workbench.core.config.parser import config_of

    config = config_of(session.parser_cls)
    if config is None:
        return
    by_key = {(f.kind, f.field): f for f in checked.findings}  # type: ignore[attr-defined]
    verdicts: dict = {}
    for cause in causes:
        found = [by_key[k] for x in cause.findings if (k := (x["kind"], x["field"])) in by_key]
        f = next((f for f in found if f.first_step), None)
        if cause.cls not in PARSER or f is None:
            continue
        label = f.extra.get("minimal_grouping") or f.extra.get("grouping") or f.chunking
        grouped = list(deltas) if label in (None, "token", "source", "nonstream") else \
            session.regroup(list(deltas), label)
        where = locate(session, grouped, f.first_step, session.setup.parser.config)
        segs = where.pop("_segments")
        key = (f.kind, f.field)
        if key not in verdicts:
            verdicts[key] = same_fault(session, config, segs, f)
        where |= {"grouping": label if label not in (None, "source") else "token", "finding": f.kind,
                  "field": f.field, "fault": verdicts[key], "engine_file": ENGINE_FILE}
        where["vllm"] = verdicts[key]["verdict"] == "vllm"
        cause.where = where


ENGINE_FILE = "vllm/parser/engine/parser_engine.py"


def machine_parts(w: dict) -> list[str]:
    """The step and its tokens, the transition and terminal with their lines, and what was
    read there (``describe`` less the verdict; `check` prints these under a finding)."""
    name = config_name(w.get("file"))
    toks = " | ".join(("[" if t["at"] else "") + repr(t["text"]) + ("]" if t["at"] else "") for t in w["tokens"])
    parts = [f"step {w['step']} of grouping {w.get('grouping', 'token')} (deltas {toks}), in state {w['state']}"]
    tr = w.get("transition")
    if tr:
        line = f" ({name}:{tr['line']})" if tr.get("line") else ""
        term = w["terminal"]
        tline = f", terminal at line {term['line']}" if term.get("line") else ""
        when = "at this step" if w["fired_at_step"] else f"at step {term['step']}"
        parts.append(f"transition {tr['from']} --{tr['on']} {term['value']!r}--> {tr['to']}"
                     f"{' emits ' + ', '.join(tr['emit']) if tr['emit'] else ''}{line} fired {when}{tline}")
    for n in w.get("named", []):
        if n["kind"] == "converter_output":  # its line is the converter's own, in its module
            line = f" ({name}:{n['config_line']})" if n.get("config_line") else ""
        else:
            line = f" ({name}:{n['line']})" if n.get("line") else ""
        parts.append(n["detail"] + line + (f"; fix: {n['fix']}" if n.get("fix") else ""))
    return parts


def describe(w: dict) -> str:
    """One paragraph: ``machine_parts``, then whose fault it is."""
    name = config_name(w.get("file"))
    parts = machine_parts(w)
    fault = w.get("fault") or {}
    fams = fault.get("families", [])
    if fault.get("verdict") == "vllm":
        t = next(t for t in fams if t["bare"])
        hooks = "" if t["with_class"] else f"; vLLM's {t['class']} ({t['file']}) avoids it with its own hooks"
        parts.append(f"vLLM's ParserEngine ({w['engine_file']}): vLLM's {t['family']} config shows the same fault "
                     f"on the bare engine{hooks}")
    elif fault.get("verdict") == "config":
        parts.append(f"your config {name}: vLLM's " + ", ".join(t["family"] for t in fams if t["bare"] is not None)
                     + " config(s), walked the same way, do not show it")
    else:
        parts.append(f"your config {name} (no vLLM config has the same transitions to compare with)")
    return "; ".join(parts)


def config_name(path: str | None) -> str:
    return Path(path).name if path else "the editor's config"
