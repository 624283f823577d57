"""The state-machine diagram's widget model, headless: what it draws is the config's
table (read here straight from the TOML file), and what it lights is the state the
real StreamingParserEngine reported for the selected (else the last) row."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS

ROOT = Path(__file__).resolve().parents[2]
TEACHING = ROOT / "parsers/teaching.toml"


def test_diagram_draws_the_configs_states_and_transitions():
    from workbench import Workbench

    wb = Workbench(SEED_TEXT, tools=WEATHER_TOOLS, config="parsers/teaching.toml")
    assert wb.diagram.machines == [] and "Step" in wb.diagram.message
    wb.step()
    data = tomllib.loads(TEACHING.read_text())
    [m] = wb.diagram.machines
    assert (m["role"], m["name"], m["initial"]) == ("engine", "teaching", data["initial_state"])
    want_edges = {(t["from"], t["on"], t["to"], tuple(t["emit"])) for t in data["transitions"]}
    assert {(e["from"], e["on"], e["to"], tuple(e["events"])) for e in m["edges"]} == want_edges
    want_states = {data["initial_state"]} | {s for t in data["transitions"] for s in (t["from"], t["to"])}
    assert [n["id"] for n in m["nodes"]] == sorted(want_states, key=[n["id"] for n in m["nodes"]].index)
    assert {n["id"] for n in m["nodes"]} == want_states
    assert {e["on"]: e["literal"] for e in m["edges"]} == data["terminals"]
    assert {n["id"]: n["content_event"] for n in m["nodes"]} == {
        s: data["content_events"].get(s) for s in want_states}
    assert wb.diagram.message == ""


def test_lit_state_follows_the_last_then_the_selected_row():
    from workbench import Workbench

    wb = Workbench(SEED_TEXT, tools=WEATHER_TOOLS, config="parsers/teaching.toml").load()
    redrawn = []
    wb.diagram.observe(lambda change: redrawn.append(change["name"]), names=["machines", "message"])
    seen = []
    while not wb.state.stream.done:
        wb.step()
        row = wb.rows[-1]
        lit = wb.diagram.lit["engine"]
        assert (lit["state"], lit["step"]) == (row.states["engine"], row.step)
        seen.append(lit["state"])
    assert {"REASONING", "CONTENT", "TOOL_ARGS"} <= set(seen)
    assert redrawn == []  # a Step sends only the small `lit` dict, never the graph again
    m = wb.diagram.machines[0]
    moves = [r for r in wb.rows if r.states_before["engine"] != r.states["engine"]]
    assert moves
    for r in moves:
        wb.select(r.step)
        lit = wb.diagram.lit["engine"]
        assert (lit["state"], lit["before"]) == (r.states["engine"], r.states_before["engine"])
        [i] = lit["edges"]  # the one transition taken, with its terminal in this delta's text
        e = m["edges"][i]
        assert (e["from"], e["to"]) == (r.states_before["engine"], r.states["engine"])
        assert e["literal"] in r.text
    stay = next(r for r in wb.rows if r.states_before["engine"] == r.states["engine"] == "REASONING")
    wb.select(stay.step)
    assert wb.diagram.lit["engine"] == {"state": "REASONING", "before": None, "step": stay.step, "edges": []}
    wb.reset()
    assert wb.diagram.lit == {}


def test_engine_based_and_legacy_parsers():
    from workbench import Workbench

    wb = Workbench(SEED_TEXT, tools=WEATHER_TOOLS, tool_parser="hermes", reasoning_parser="qwen3")
    wb.step()
    # vLLM's qwen3 reasoning parser runs a ParserEngine; hermes is hand-written
    [m] = wb.diagram.machines
    assert (m["role"], m["name"]) == ("reasoning", "qwen3")
    assert wb.diagram.lit["reasoning"]["state"] == wb.rows[0].states["reasoning"]
    # the picture says whose machine it is, and that the calls on screen are hermes's (issue 31, item 9)
    assert wb.diagram.message.startswith("Drawn: the reasoning parser qwen3's state machine")
    assert "The tool calls here come from hermes, a hand-written (legacy) tool parser" in wb.diagram.message
    assert "tool-call states are not reached" in wb.diagram.message
    legacy = Workbench(SEED_TEXT, tools=WEATHER_TOOLS, tool_parser="hermes", reasoning_parser=None)
    legacy.step()
    assert legacy.rows[0].states == {}
    assert legacy.diagram.machines == [] and "no state machine" in legacy.diagram.message
    assert legacy.diagram.lit == {}
