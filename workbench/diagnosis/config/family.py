"""Whose fault a config's finding is: does a vLLM config with the same transitions show it too?

The author's text is cut at the terminals that fired (config_where.segments). For each vLLM
engine family, the same walk is looked for in its transition table: from its initial state,
each of the author's transitions matched by one of the family's with the same tool events
and target state, reached through at most two of its quiet transitions (no tool event, no
content between: a section opener, a reasoning close). The family's terminal texts then
replace the author's, the author's content stays, and `check` runs the result twice: on the
family's table alone (vLLM's bare ParserEngine, as the author's config runs) and with the
family's own class (its Python hooks). The same finding on the same field with vLLM's table
on vLLM's engine is vLLM's ParserEngine's fault (its upstream file named); no family with
the walk showing it is the config's. Families closest to the author's flags go first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.check.coverage import TEXT_DROPPED
from workbench.core.messages import CHUNKING, STREAM_VS_NONSTREAM
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from workbench.diagnosis.config.segments import Segment
    from workbench.core.session import Session

TOOL_EVENTS = {"TOOL_CALL_START", "TOOL_CALL_END", "TOOL_NAME", "ARG_VALUE_CHUNK"}
QUIET = {"REASONING_END"}  # a quiet transition may close reasoning that never opened
# tool_call_body_array is vLLM 0.32/0.33's, tool_call_body_collection 0.34's: a version has one of them
FLAGS = ("tool_args_json", "tool_call_body_array", "tool_call_body_collection", "stream_arg_deltas", "arg_converter",
         "initial_state")
MOST = 3  # families tried


def _literal(config: Any, name: str) -> str | None:
    return config.terminal_literal(name) or config.token_id_terminals.get(name)


def _step(config: Any, state: Any, to: str, events: set[str], relaxed: bool) -> list | None:
    """Transitions from ``state``: up to two quiet ones, then one with ``events``' tool and
    reasoning events into ``to`` (any state when ``relaxed``); None when there is none."""
    from collections import deque

    table = config.transitions
    queue = deque([(state, [])])
    while queue:
        at, path = queue.popleft()
        for (src, on), tr in table.items():
            if src != at or _literal(config, on) is None:
                continue
            emitted = {e.name for e in tr.events}
            if emitted - QUIET == events - QUIET and (relaxed or tr.next_state.name == to) \
                    and events & {"REASONING_START"} <= emitted:
                return path + [(on, tr)]
            if len(path) < 2 and not emitted & TOOL_EVENTS and emitted <= QUIET and tr.next_state != at:
                queue.append((tr.next_state, path + [(on, tr)]))
    return None


def family_text(config: Any, segs: Sequence[Segment]) -> str | None:
    """The author's text in the family's spelling, or None when its table has no such walk."""
    state, out = config.initial_state, []
    for i, seg in enumerate(segs):
        last = i == len(segs) - 1
        if seg.fired is None:
            if seg.state != state.name:
                path = _quiet_to(config, state, seg.state)
                if path is None:
                    return None
                out += [_literal(config, on) for on, _ in path]
                state = path[-1][1].next_state
            out.append(seg.text)
            continue
        f = seg.fired
        if not f.transition:
            out.append(seg.text)
            continue
        follows = not last and segs[i + 1].fired is None
        if state.name == f.to and not set(f.events) & TOOL_EVENTS:
            continue  # the family is in that state already (it starts in reasoning): its marker is optional
        path = _step(config, state, f.to, set(f.events), relaxed=not follows)
        if path is None:
            return None
        out += [_literal(config, on) for on, _ in path]
        state = path[-1][1].next_state
    return "".join(out)


def _quiet_to(config: Any, state: Any, to: str) -> list | None:
    """Quiet transitions (at most two) from ``state`` into ``to``, for content read there."""
    for (src, on), tr in config.transitions.items():
        emitted = {e.name for e in tr.events}
        if src == state and tr.next_state.name == to and emitted <= QUIET and _literal(config, on):
            return [(on, tr)]
    return None


def _closeness(mine: Any, theirs: Any) -> int:
    return sum((getattr(mine, f) is None) == (getattr(theirs, f) is None) if f == "arg_converter"
               else getattr(mine, f, None) == getattr(theirs, f, None) for f in FLAGS if hasattr(mine, f))


def same_fault(session: Session, mine: Any, segs: Sequence[Segment], finding: Any) -> dict:
    """{"verdict": "vllm" | "config" | "unknown", "families": [...]} for check's ``finding``."""
    from workbench.core.config import from_vllm as config_export

    tried = []
    families = []
    for name, cls in config_export.families().items():
        try:
            config, _ = config_export.family_config(name, session.tokenizer)
        except WorkbenchError:
            continue
        families.append((-_closeness(mine, config), name, cls, config))
    for _, name, cls, config in sorted(families, key=lambda t: (t[0], t[1])):
        text = family_text(config, segs)
        if text is None:
            continue
        bare = _fault(session, config, None, text, finding)
        hooked = _fault(session, config, cls, text, finding)
        tried.append({"family": name, "file": f"vllm/parser/{cls.__module__.rsplit('.', 1)[-1]}.py",
                      "class": cls.__name__, "text": text, "bare": bare, "with_class": hooked})
        if bare is None:
            continue
        if bare or len(tried) >= MOST:
            break
    if not tried:
        return {"verdict": "unknown", "families": []}
    ran = [t for t in tried if t["bare"] is not None]
    if not ran:
        return {"verdict": "unknown", "families": tried}
    return {"verdict": "vllm" if any(t["bare"] for t in ran) else "config", "families": tried}


def _fault(session: Session, config: Any, family: type | None, text: str, finding: Any) -> bool | None:
    """Whether `check` finds ``finding`` again for ``text`` under this table (its kind, a mode
    difference and a grouping one alike, on the same field; text lost: the same words); None
    (no evidence either way) when the table cannot run here."""
    from dataclasses import replace

    from workbench.check import Options, check
    from workbench.core.config.plain import engine_class
    from workbench.core.parsers import ParserSpec
    from workbench.core.session import Session

    other = Session(replace(session.setup, parser=ParserSpec(), plugins=()), prompt_token_ids=session.prompt_ids)
    try:
        other.use_parser_class(engine_class(config, family))
        deltas = other.deltas_from_text(text)
        report = check(other, deltas, options=Options(fuzz=8, cost=False, shrink_budget_s=0.1, text_budget_s=0,
                                                      jobs=1, splits="markers"))
    except Exception:  # noqa: BLE001  a family class that refuses this tokenizer (mistral's vocab): no evidence
        return None
    return any(f.severe and _same(f, finding) for f in report.findings)


MODES = {STREAM_VS_NONSTREAM, CHUNKING}  # one fault in the streaming path shows as either


def _same(found: Any, finding: Any) -> bool:
    if found.field != finding.field or not (found.kind == finding.kind or {found.kind, finding.kind} <= MODES):
        return False
    if finding.kind == TEXT_DROPPED:
        return bool(set(found.a or ()) & set(finding.a or ()))
    return True
