"""diagnosis/config/where.py and config_family.py: a config parser's finding names the transition
and terminal that fired at the failing step, their lines in the author's file, what the text
there reads like (a terminal inside JSON arguments, a marker longer than its terminal, a state
whose text is dropped), and whether vLLM's own configs walked the same way show it."""

from __future__ import annotations

import json

import pytest

from tests.support.invented_formats import FERRET as NAMED, FERRET_TEXT as NAMED_TEXT, OWL as BODY, OWL_TEXT as BODY_TEXT

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]


def doctor(run_cli, tmp_path, config, text):
    from workbench.lanes.versions import installed

    (tmp_path / "f.toml").write_text(config)
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    code, out, err = run_cli("doctor", "--config", tmp_path / "f.toml", "--tools", tmp_path / "tools.json",
                             "--text", text, "--vllm", installed(), "--json")
    assert "Traceback" not in err, err
    d = json.loads(out)
    return code, [c for c in d["causes"] if c["class"].startswith("parser_")]


def line_of(config, needle):
    return 1 + next(i for i, ln in enumerate(config.splitlines()) if needle in ln)


def test_vllms_engine_fault_names_the_transition_and_the_vllm_config_that_shows_it(run_cli, tmp_path):
    """The first argument character is lost when a call's name ends on a text terminal: vLLM's
    kimi_k2 table on the bare engine loses it too (KimiK2Parser's hooks avoid it)."""
    code, causes = doctor(run_cli, tmp_path, NAMED, NAMED_TEXT)
    w = causes[0]["where"]
    assert code == 1 and w["config"].endswith("f.toml") and w["state"] == "TOOL_ARGS"
    assert w["transition"] == {"from": "TOOL_NAME", "on": "NAME_END", "to": "TOOL_ARGS", "emit": [],
                               "line": line_of(NAMED, 'on = "NAME_END"'), "matched": True}
    assert w["terminal"]["line"] == line_of(NAMED, 'NAME_END = ">>"')
    assert [t["at"] for t in w["tokens"]].count(True) == 1 and w["tokens"][0]["step"] == w["step"] - 2
    assert w["fault"]["verdict"] == "vllm" and w["vllm"]
    kimi = next(t for t in w["fault"]["families"] if t["bare"])
    assert kimi["family"] == "kimi_k2" and kimi["with_class"] is False and kimi["file"] == "vllm/parser/kimi_k2.py"


@pytest.mark.parametrize("case, kind, verdict", [
    ("typo", "marker_continues", "vllm"),  # a terminal spelled shorter than the marker: '>>' leaks
    ("inside", "terminal_in_arguments", "vllm"),
    ("dropped", "no_content_event", "config"),
])
def test_readings_of_the_text_at_the_failing_step(run_cli, tmp_path, case, kind, verdict):
    config, text = BODY, BODY_TEXT
    if case == "typo":
        config = BODY.replace('CALL_END = "<</call>>"', 'CALL_END = "<</call"')
    elif case == "inside":
        text = 'Sure.<<call>>{"name": "get_weather", "arguments": {"city": "<</call>> Paris"}}<</call>>'
    else:
        config = BODY.replace('CONTENT = "TEXT_CHUNK"\n', "")
    code, causes = doctor(run_cli, tmp_path, config, text)
    assert code == 1 and causes, causes
    w = causes[0]["where"]
    named = {n["kind"]: n for n in w["named"]}
    assert kind in named, w["named"]
    if kind != "no_content_event":
        assert named[kind]["line"] == line_of(config, f'{named[kind]["terminal"]} = ')
    assert w["fault"]["verdict"] == verdict, w["fault"]


def test_check_names_the_transition_under_each_finding_of_a_config(run_cli, tmp_path):
    (tmp_path / "f.toml").write_text(BODY.replace('CALL_END = "<</call>>"', 'CALL_END = "<</call"'))
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    code, out, _ = run_cli("check", "--config", tmp_path / "f.toml", "--tools", tmp_path / "tools.json",
                           "--text", BODY_TEXT, "--no-cost", "--fuzz", "5")
    line = line_of(BODY, 'on = "CALL_END"')
    assert code == 1 and f"config: transition TOOL_ARGS --CALL_END '<</call'--> CONTENT emits TOOL_CALL_END " \
                          f"(f.toml:{line})" in out, out
