"""Parser formats as data: parsers/*.toml against vLLM's own family classes.

- every engine family: export -> load gives back the exact ParserEngineConfig, and the
  checked-in parsers/<family>.toml is what export-config writes today;
- a ParserEngine built from the file gives the same rows (deltas, states, events,
  stream and non-stream answers) as vLLM's class over five scenario streams, rendered
  with the family's own terminals;
- bad files give problems naming the field and the line; diff finds the first changed
  step; live reload keeps the last good config; the plugin example loads.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json

import pytest

from tests.support.seed import WEATHER_TOOLS
from workbench.core import diff
from workbench.core.config import from_vllm as config_export, io as config_io
from workbench.core.config.io import PARSERS_DIR
from workbench.core.deltas import Delta
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.session import Session, Setup
from workbench.corpus.scenarios import CALLS, SCENARIOS, render  # each family's own markup, from its terminals
from workbench.errors import WorkbenchError
from workbench.lanes import versions

SHIPPED = sorted(p.stem for p in PARSERS_DIR.glob("*.toml") if p.stem != "teaching")
# In a lane (test_config_round_trip_in_each_lane), every shipped family that lane's vLLM still has.
FAMILIES = SHIPPED if not versions.in_lane() else [f for f in SHIPPED if f in config_export.families()]
# MistralParser raises without [TOOL_CALLS] in the vocab: it runs on the Mistral tokenizers
# (test_mistral_config_equals_vllm_class_on_mistral_tokenizers), not on qwen3.
NEEDS_OWN_TOKENIZER = {"mistral"}
TOOLS = WEATHER_TOOLS + [{"type": "function", "function": {
    "name": "get_time", "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}}}}]
TEACHING_TEXT = ('<think>hm</think>Sure.<tool_call>{"name": "get_weather", "arguments": '
                 '{"city": "Paris"}}</tool_call>')


def test_every_engine_family_is_exported():
    if versions.in_lane():  # a newer vLLM may add families; every shipped one it has is checked
        assert set(FAMILIES) <= set(config_export.families()) and FAMILIES
    else:
        assert set(FAMILIES) == set(config_export.families())
    assert {"qwen3", "seed_oss", "deepseek_v4", "glm47_moe", "kimi_k2", "gemma4"} <= set(FAMILIES)
    assert config_export.family("glm47")[0] == "glm47_moe"  # registered parser names resolve


def _comparable(config):
    """functools.partial has no __eq__: compare its parts (deepseek_v41's arg_converter)."""
    return dataclasses.replace(config, **{
        f.name: (v.func, v.args, sorted(v.keywords.items()))
        for f in dataclasses.fields(config) if isinstance(v := getattr(config, f.name), functools.partial)})


@pytest.mark.parametrize("name", FAMILIES)
def test_round_trip(name, qwen3_tokenizer, config_dir):
    original, _ = config_export.family_config(name, qwen3_tokenizer)
    text = config_export.export(name, qwen3_tokenizer)
    if not versions.in_lane():  # the shipped files are the installed vLLM's export
        assert text == (PARSERS_DIR / f"{name}.toml").read_text(encoding="utf-8"), \
            f"parsers/{name}.toml is stale: run `workbench export-config --all parsers`"
    assert text.startswith(f"# {name}: vLLM's") and "Wire format:" in text
    flat = config_export.export(name, qwen3_tokenizer, flat=True)
    for loaded in (config_io.loads(text, base_dir=config_dir), config_io.loads(flat)):  # extends: its own base
        assert _comparable(loaded) == _comparable(original)
    shipped = config_io.load_file(PARSERS_DIR / f"{name}.toml")  # in a lane: read in that vLLM's spelling
    assert shipped.ok, shipped.problems
    assert shipped.parser_class is config_export.families()[name]


def _token_mode(cfg, tokenizer) -> bool:
    """Replay by token ids when the family's token-id terminals are single qwen3 tokens;
    otherwise feed text only (4-character deltas), as a tokenizer-free engine would see it."""
    vocab = tokenizer.get_vocab()
    return all(v in vocab for v in cfg.token_id_terminals.values())


def _rows(result) -> list[dict]:
    return [diff.normalise({k: v for k, v in r.to_dict().items() if k != "parser_us"}) for r in result.rows]


@pytest.fixture(scope="module")
def config_dir(qwen3_tokenizer, tmp_path_factory):
    """parsers/, or in a lane that vLLM's own export of every family (export-config --all)."""
    if not versions.in_lane():
        return PARSERS_DIR
    folder = tmp_path_factory.mktemp("exported")
    config_export.export_all(folder, qwen3_tokenizer)
    return folder


@pytest.fixture(scope="module")
def family_sessions(qwen3_tokenizer, config_dir):
    """name -> (session on <config_dir>/<name>.toml, the same session on vLLM's class)."""
    out = {}
    for name in FAMILIES:
        if name in NEEDS_OWN_TOKENIZER:
            continue
        cfg_session = Session(Setup(parser=ParserSpec(config=str(config_dir / f"{name}.toml")),
                                    request=RequestSpec(tools=TOOLS)))
        vllm_session = copy.copy(cfg_session)
        vllm_session.use_parser_class(config_export.families()[name])
        out[name] = (cfg_session, vllm_session)
    return out


@pytest.mark.parametrize("name", [f for f in FAMILIES if f not in NEEDS_OWN_TOKENIZER])
def test_config_parser_equals_vllm_class(name, family_sessions, qwen3_tokenizer):
    cfg_session, vllm_session = family_sessions[name]
    cfg = cfg_session.parser_cls._workbench_config
    assert cfg_session.parser_info["kind"] == "engine"
    assert cfg_session.parser_cls.__mro__[1] is vllm_session.parser_cls
    # The file's table reaches ParserEngine whether the family's __init__ uses setdefault,
    # hard-codes its own config (deepseek, gemma4) or calls ParserEngine.__init__ (ling3).
    assert cfg_session.parser_cls(qwen3_tokenizer).parser_engine_config is cfg
    for scenario in SCENARIOS:
        text = render(cfg, scenario)
        if _token_mode(cfg, qwen3_tokenizer):
            deltas = cfg_session.deltas_from_text(text)
        else:
            deltas = [Delta((), text[i:i + 4]) for i in range(0, len(text), 4)]
            deltas[-1] = Delta((), deltas[-1].text, "stop")
        ours, theirs = cfg_session.replay(deltas), vllm_session.replay(deltas)
        assert _rows(ours) == _rows(theirs), f"{name} {scenario}"
        assert diff.normalise(ours.stream) == diff.normalise(theirs.stream), f"{name} {scenario}"
        assert diff.normalise(ours.nonstream) == diff.normalise(theirs.nonstream), f"{name} {scenario}"
        assert not ours.errors
        if scenario == "think-then-tool":  # the rendering is real markup, not noise
            assert [c["name"] for c in theirs.nonstream["tool_calls"]] == ["get_weather"], name
            assert any(r.events for r in ours.rows) and ours.rows[-1].states == theirs.rows[-1].states


def test_config_class_validated_against_tokenizer(qwen3_tokenizer):
    from workbench.core.config.parser import parser_class_from_config

    with pytest.raises(WorkbenchError, match=r"cannot be used with this tokenizer: RuntimeError: Mistral"):
        parser_class_from_config(PARSERS_DIR / "mistral.toml", qwen3_tokenizer)


# -- bad configs: every problem names the field and the line ---------------------------------

GOOD = (PARSERS_DIR / "teaching.toml").read_text(encoding="utf-8")


def _line(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


BAD = {
    "unknown state": ('to = "CONTENT",   emit = ["REASONING_END"]', 'to = "CONTNET",   emit = ["REASONING_END"]',
                      "transitions[1].to", "unknown state 'CONTNET' (did you mean: CONTENT?)"),
    "unknown event": ('emit = ["TOOL_CALL_END"]', 'emit = ["TOOL_CALL_ENDS"]',
                      "transitions[3].emit[0]", "unknown event 'TOOL_CALL_ENDS'"),
    "unknown terminal": ('on = "TOOL_END",', 'on = "TOOL_ENDS",', "transitions[3].on",
                         "transition from an unknown terminal 'TOOL_ENDS'"),
    "unknown content state": ('TOOL_ARGS = "ARG_VALUE_CHUNK"', 'TOOL_ARG = "ARG_VALUE_CHUNK"',
                              "content_events.TOOL_ARG", "unknown state 'TOOL_ARG'"),
    "unresolvable callable": ("granite:_granite_arg_converter", "granite:_granit_arg_converter",
                              "arg_converter", "refused callable 'vllm.parser.granite:_granit_arg_converter' "
                              "(did you mean: vllm.parser.granite:_granite_arg_converter"),
    "missing module": ("vllm.parser.granite:", "vllm.parser.no_such_module:", "arg_converter",
                       "refused callable 'vllm.parser.no_such_module:_granite_arg_converter'"),
    "unknown key": ('initial_state = "CONTENT"', 'inital_state = "CONTENT"', "inital_state",
                    "unknown key (did you mean: initial_state?)"),
    "TOML syntax": ('THINK_END = "</think>"', 'THINK_END = "</think>', "", "TOML syntax"),
}


@pytest.mark.parametrize("case", BAD)
def test_bad_config_names_field_and_line(case):
    old, new, path, message = BAD[case]
    assert old in GOOD
    text = GOOD.replace(old, new, 1)
    problems = config_io.load_text(text).problems
    assert len(problems) == 1, problems
    p = problems[0]
    assert (p.path, p.line) == (path, _line(text, new)) and message in p.message, str(p)
    assert str(p).startswith(f"<text> line {p.line}: ")


def test_duplicate_transition_and_several_problems_at_once():
    row = '  { from = "CONTENT",   on = "TOOL_START",  to = "TOOL_ARGS", emit = ["TOOL_CALL_START"] },\n'
    text = GOOD.replace(row, row + row.replace("TOOL_ARGS", "CONTENT", 1)).replace(
        'initial_state = "CONTENT"', 'initial_state = "THINKING"')
    problems = config_io.load_text(text).problems
    assert [(p.path, p.line) for p in problems] == [
        ("initial_state", _line(text, "initial_state")), ("transitions[3]", _line(text, row.strip()) + 1)]
    assert "duplicate transition from CONTENT on TOOL_START (first at transitions[2]" in problems[1].message
    with pytest.raises(WorkbenchError, match=r"2 problems: .*initial_state.*; .*duplicate transition"):
        config_io.loads(text)


def test_extends_cycle_and_override(tmp_path):
    (tmp_path / "a.toml").write_text('extends = "b"\nname = "a"\n')
    (tmp_path / "b.toml").write_text('name = "b"\n\nextends = "a"\n')
    (p,) = config_io.load_file(tmp_path / "a.toml").problems
    assert (p.path, p.line, p.file) == ("extends", 3, str((tmp_path / "b.toml").resolve()))
    assert "extends cycle: a.toml -> b.toml -> a.toml" in p.message
    # A variant is its overrides; a bad override points into the variant's own file.
    (tmp_path / "v.toml").write_text('extends = "teaching"\nname = "v"\n\ntransitions = [\n'
                                     '  { from = "CONTENT", on = "TOOL_START", to = "NOWHERE" },\n]\n')
    (p,) = config_io.load_file(tmp_path / "v.toml").problems
    assert (p.path, p.line, p.file) == ("transitions[0].to", 5, str(tmp_path / "v.toml"))
    seed = config_io.load(PARSERS_DIR / "seed_oss.toml")
    assert seed.terminals["THINK_START"] == "<seed:think>" and len(seed.transitions) == 16


# -- A/B diff and live reload -----------------------------------------------------------------

CHANGED = GOOD.replace('to = "TOOL_ARGS", emit = ["TOOL_CALL_START"]', 'to = "CONTENT",   emit = []')


def test_diff_finds_first_changed_step(tmp_path, run_cli, tools_file):
    assert CHANGED != GOOD
    (tmp_path / "b.toml").write_text(CHANGED)
    code, out, err = run_cli("diff", "--text", TEACHING_TEXT, "--tools", tools_file, "--json",
                             "--a", PARSERS_DIR / "teaching.toml", "--b", tmp_path / "b.toml")
    assert code == 0, err
    result = json.loads(out)
    texts = [s["a"]["text"] for s in result["steps"]]
    at = texts.index("<tool_call>") + 1
    assert result["first_machine_step"] == at  # the changed transition fires here
    assert result["first_step"] == at + 1  # and the next delta goes to content, not the call
    assert not result["final"]["stream"]["tool_calls"]["same"]
    assert result["final"]["stream"]["reasoning"]["same"]
    # A built-in pair against the config: same answers, argument chunks split differently.
    code, out, _ = run_cli("diff", "--text", TEACHING_TEXT, "--tools", tools_file, "--json",
                           "--a", "hermes+qwen3", "--b", PARSERS_DIR / "teaching.toml")
    result = json.loads(out)
    assert code == 0 and not result["machine_comparable"] and result["first_machine_step"] is None
    assert all(f["same"] for mode in result["final"].values() for f in mode.values())
    first = result["steps"][result["first_step"] - 1]
    assert first["output"] == ["delta", "sse"] and first["a"]["delta"]["tool_calls"][0]["arguments"] == '{"'


def test_live_reload_keeps_last_good(tools_file):
    from workbench.core.live import LiveConfig

    live = LiveConfig(Setup(parser=ParserSpec(config=str(PARSERS_DIR / "teaching.toml")),
                            request=RequestSpec(tools=WEATHER_TOOLS)), text=TEACHING_TEXT)
    first = live.result
    assert [c["name"] for c in first.stream["tool_calls"]] == ["get_weather"]
    problems = live.reload(GOOD.replace('to = "CONTENT",   emit = ["REASONING_END"]', 'to = "CONTNET"'))
    assert [p.path for p in problems] == ["transitions[1].to"] and live.result is first
    assert live.reload(CHANGED) == [] and live.problems == []
    assert live.result.stream["tool_calls"] == [] and '"get_weather"' in live.result.stream["content"]
    good_cls = live.parser_class
    assert live.reload("name = ") and live.parser_class is good_cls and live.config_text == CHANGED


# -- the CLI: export-config, replay --config, the plugin example ------------------------------


def test_export_config_cli(run_cli, tmp_path):
    code, out, _ = run_cli("export-config", "seed_oss")
    assert code == 0 and out == (PARSERS_DIR / "seed_oss.toml").read_text(encoding="utf-8")
    assert 'extends = "qwen3"' in out
    code, out, _ = run_cli("export-config", "--all", tmp_path)
    assert code == 0 and len(list(tmp_path.glob("*.toml"))) == len(FAMILIES)
    code, _, err = run_cli("export-config", "qwen4")
    assert code == 2 and "unknown parser family 'qwen4' (did you mean: qwen3" in err


def test_replay_config_rows_show_the_machine(run_cli, tools_file):
    code, out, err = run_cli("replay", "--config", PARSERS_DIR / "qwen3.toml", "--tools", tools_file,
                             "--json", "--text", "<think>a</think>\n\n<tool_call>\n<function=get_weather>\n"
                             "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>")
    assert code == 0, err
    result = json.loads(out)
    assert result["parser"]["kind"] == "engine"
    end = next(r for r in result["rows"] if r["text"] == "</think>")
    assert (end["states_before"], end["states"]) == ({"engine": "REASONING"}, {"engine": "CONTENT"})
    assert [e["type"] for e in end["events"]] == ["REASONING_END"]
    assert (end["phase_before"], end["phase"]) == ("reasoning", "content")
    assert result["stream"]["tool_calls"][0]["arguments"] == '{"city": "Paris"}'
    code, _, err = run_cli("replay", "--config", PARSERS_DIR / "missing.toml", "--text", "x")
    assert code == 2 and "not found" in err


def test_plugin_example(run_cli, tools_file):
    text = 'Let me check.<call>{"name": "get_weather", "arguments": {"city": "Paris"}}</call> Done.'
    code, out, err = run_cli("replay", "--plugin", PARSERS_DIR / "plugins" / "example_tool_parser.py",
                             "--tool-parser", "example_json", "--tools", tools_file, "--json", "--text", text)
    assert code == 0, err
    result = json.loads(out)
    for mode in ("stream", "nonstream"):
        assert [(c["name"], c["arguments"]) for c in result[mode]["tool_calls"]] == [
            ("get_weather", '{"city": "Paris"}')], mode
        assert result[mode]["content"] == "Let me check. Done."
        assert result[mode]["finish_reason"] == "tool_calls"


# -- mistral: on the real (pre-v11) Mistral tokenizers, as vLLM builds MistralParser there ----

MISTRAL_ARRAY = lambda calls: "[TOOL_CALLS]" + json.dumps(  # noqa: E731
    [{"name": n, "arguments": a} for n, a in calls])
MISTRAL_SCENARIOS = {
    "think-then-tool": "[THINK]Need the weather.[/THINK]" + MISTRAL_ARRAY(CALLS[:1]),  # [THINK]: text here
    "parallel-tools": MISTRAL_ARRAY(CALLS),
    "content-only": "The weather in Paris is sunny.",
    "whitespace-before-tool": "\n\n" + MISTRAL_ARRAY(CALLS[:1]),
    "empty-tool-block": "[TOOL_CALLS][]",
}


@pytest.mark.parametrize("tokenizer", ["mistral_tekken", "mistral_v7"])
def test_mistral_config_equals_vllm_class_on_mistral_tokenizers(tokenizer, run_cli, tmp_path, monkeypatch):
    from vllm.parser.mistral import MistralToolCall

    # Mistral's tool-call ids are 9 random characters (diff.normalise knows only vLLM's own).
    monkeypatch.setattr(MistralToolCall, "generate_random_id", staticmethod(lambda: "call00001"))
    path = tmp_path / "mistral.toml"
    code, _, err = run_cli("export-config", "mistral", "--tokenizer", tokenizer, "-o", path)
    assert code == 0, err
    # MistralParser picks reasoning_encoding from the vocabulary: no [THINK] and no grammar
    # support below v11 give "none", not parsers/mistral.toml's "special_token" table.
    assert "THINK_START" not in path.read_text() and "THINK_START" in (PARSERS_DIR / "mistral.toml").read_text()
    cfg_session = Session(Setup(tokenizer, ParserSpec(config=str(path)), RequestSpec(tools=TOOLS)))
    vllm_session = copy.copy(cfg_session)
    vllm_session.use_parser_class(config_export.families()["mistral"])
    cfg = cfg_session.parser_cls._workbench_config
    assert cfg_session.parser_cls(cfg_session.tokenizer).parser_engine_config is cfg
    for scenario, text in MISTRAL_SCENARIOS.items():
        deltas = cfg_session.deltas_from_text(text)
        ours, theirs = cfg_session.replay(deltas), vllm_session.replay(deltas)
        assert _rows(ours) == _rows(theirs), f"{tokenizer} {scenario}"
        assert diff.normalise(ours.stream) == diff.normalise(theirs.stream), f"{tokenizer} {scenario}"
        assert diff.normalise(ours.nonstream) == diff.normalise(theirs.nonstream), f"{tokenizer} {scenario}"
        assert not ours.errors
    # The checked-in special_token table on the same tokenizer is not what vLLM runs there.
    shipped = Session(Setup(tokenizer, ParserSpec(config=str(PARSERS_DIR / "mistral.toml")),
                            RequestSpec(tools=TOOLS)))
    deltas = shipped.deltas_from_text(MISTRAL_SCENARIOS["think-then-tool"])
    assert diff.normalise(shipped.replay(deltas).stream) != diff.normalise(vllm_session.replay(deltas).stream)
