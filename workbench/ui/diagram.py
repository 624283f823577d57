"""The parser's state machine as a diagram, with the current state lit as you step.

A declarative parser (a ``parsers/*.toml`` config, or a vLLM parser built on
``vllm.parser.engine``) runs one ``StreamingParserEngine`` per role; each
engine's ``ParserEngineConfig`` is drawn as states (nodes) and transitions on
terminals (labelled edges). ``static/diagram.js`` lays it out with dagre and
draws SVG in JupyterLab's theme colours. Rows carry each engine's state before
and after the delta (``Row.states_before`` / ``Row.states``); the state after the
selected row (else the last) is lit, with the transition it took.
"""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets as T

from workbench.core.machine import machines_of
from workbench.core.rows import Row
from workbench.ui.shared import Shared

STATIC = Path(__file__).parent / "static"
NOT_STARTED = "Step or Run: the parser's state machine is drawn once the parser is composed."
NO_MACHINE = ("{label} has no state machine: it is a hand-written (legacy) parser, not a "
              "declarative vLLM parser engine, so there is nothing to draw.")


def hand_written(spec, machines: list[dict]) -> str:
    """Which picked parser each drawn machine is, and which picked parser runs no engine
    (hermes beside qwen3: the calls come from a hand-written class)."""
    roles = {m["role"] for m in machines}
    if "engine" in roles or not machines:
        return ""
    picked = (("tool parser", spec.tool_parser, "tool"), ("reasoning parser", spec.reasoning_parser, "reasoning"))
    drawn = [f"the {kind} {name}'s" for kind, name, role in picked if name and role in roles]
    legacy = [(kind, name) for kind, name, role in picked if name and role not in roles]
    if not legacy:
        return ""
    out = f"Drawn: {' and '.join(drawn)} state machine (a vLLM ParserEngine config). " if drawn else ""
    for kind, name in legacy:
        role = "tool calls" if kind == "tool parser" else "reasoning"
        out += (f"The {role} here come from {name}, a hand-written (legacy) {kind} with no state machine "
                "to draw")
        if drawn and role == "tool calls":
            out += "; the drawn config's own tool-call states are not reached in this composed parser"
        out += ". "
    return out.strip()


def taken(machine: dict, before: str | None, after: str | None, row: Row) -> list[int]:
    """Edges the row's delta took: from ``before`` to ``after``; for a stay in one state,
    only a transition whose terminal is in the delta's text and whose events it emitted."""
    if not before or not after:
        return []
    events = {e.type for e in row.events if e.engine == machine["role"]}
    found = []
    for i, e in enumerate(machine["edges"]):
        if e["from"] != before or e["to"] != after:
            continue
        if before == after and not (e["literal"] and e["literal"] in row.text
                                    and set(e["events"]) <= events):
            continue
        found.append(i)
    if len(found) > 1 and before != after:  # several terminals lead there: prefer the one in the text
        in_text = [i for i in found if machine["edges"][i]["literal"]
                   and machine["edges"][i]["literal"] in row.text]
        found = in_text or found
    return found


def lit_for(machines: list[dict], row: Row | None) -> dict:
    """{role: {state, before, step, edges}} for the row (nothing lit before the first row)."""
    if row is None:
        return {}
    out = {}
    for m in machines:
        before, after = row.states_before.get(m["role"]), row.states.get(m["role"])
        out[m["role"]] = {"state": after, "before": before if before != after else None,
                          "step": row.step, "edges": taken(m, before, after, row)}
    return out


DIAGRAM = Shared.of(STATIC / "diagram.js", STATIC / "diagram.css")


class StateDiagram(anywidget.AnyWidget):
    _esm = DIAGRAM.esm
    machines = T.List(T.Dict()).tag(sync=True)
    lit = T.Dict().tag(sync=True)
    message = T.Unicode(NOT_STARTED).tag(sync=True)

    def __init__(self, **kwargs) -> None:
        DIAGRAM.ensure()
        super().__init__(**kwargs)

    def show_parser(self, session, label: str) -> None:
        machines = machines_of(session) if session is not None else []
        with self.hold_sync():
            self.machines = machines
            self.lit = {}
            self.message = (NOT_STARTED if session is None
                            else hand_written(session.setup.parser, machines) if machines
                            else NO_MACHINE.format(label=label))

    def light(self, row: Row | None) -> None:
        lit = lit_for(self.machines, row)
        if lit != self.lit:
            self.lit = lit
