"""A parser config written for one vLLM, read by another (core/config/spelling.py).

vLLM 0.34.0 spells ``tool_call_body_array`` as ``tool_call_body_collection`` and adds
``complete_tool_call_validator``; 0.33.0 added ``arg_value_extender``. The lane's own
``export-config`` writes 0.34.0's spelling, the installed vLLM reads it (translated, or
refused in one line), and the 0.34.0 lane reads the shipped files. The config round trip
(export, load, compare with vLLM's class, replay against it) runs inside every lane:
tests/core/config/test_configs.py in that lane's interpreter. One lane process per version for the module.
"""

from __future__ import annotations

import json

import pytest

from tests.support.lanes import run_captured
from workbench.core.config import io as config_io
from workbench.core.config.io import PARSERS_DIR
from workbench.lanes import versions

LANES = [v for v in versions.listed() if not versions.is_installed(v)]
LANE = next((v for v in LANES if v == "0.34.0"), None)
needs_034 = pytest.mark.skipif(LANE is None, reason="no 0.34.0 lane in setup/vllm-lanes.lock")


def _fields() -> set[str]:
    import dataclasses

    from vllm.parser.engine.parser_engine_config import ParserEngineConfig

    return {f.name for f in dataclasses.fields(ParserEngineConfig)}


@pytest.fixture(scope="module")
def exported_034(tmp_path_factory):
    """granite and llama_json as the 0.34.0 lane's export-config writes them."""

    folder = tmp_path_factory.mktemp("exported_034")
    for name in ("granite", "llama_json"):
        done = run_captured(LANE, ["export-config", name, "-o", str(folder / f"{name}.toml")])
        assert done["rc"] == 0, done["stderr"]
    return folder


def test_the_installed_spelling_is_read_as_written():
    """Every shipped file loads here with no note: it is this vLLM's own export."""
    for path in sorted(PARSERS_DIR.glob("*.toml")):
        loaded = config_io.load_file(path)
        assert loaded.ok and loaded.notes == [], (path.name, loaded.problems, loaded.notes)


def test_a_field_this_vllm_lacks_is_one_line_naming_the_version(tmp_path):
    fields = _fields()
    if "complete_tool_call_validator" in fields:
        pytest.skip("the installed vLLM has complete_tool_call_validator")
    config = tmp_path / "v.toml"
    lines = (PARSERS_DIR / "granite.toml").read_text(encoding="utf-8").splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("name = ")) + 1
    lines.insert(at, 'complete_tool_call_validator = "vllm.parser.granite:GraniteParser"')
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    loaded = config_io.load_file(config)
    assert not loaded.ok and len(loaded.problems) == 1
    problem = loaded.problems[0]
    assert problem.path == "complete_tool_call_validator" and problem.line == at + 1
    assert "vLLM 0.34.0" in problem.message and "--vllm 0.34.0" in problem.message and "\n" not in str(problem)


@needs_034
def test_a_034_config_is_translated_or_refused_here(exported_034, run_cli, tools_file):
    granite, llama = exported_034 / "granite.toml", exported_034 / "llama_json.toml"
    assert 'tool_call_body_collection = "JSON_ARRAY"' in granite.read_text()
    assert 'tool_call_body_collection = "SEMICOLON_SEQUENCE"' in llama.read_text()
    if "tool_call_body_collection" in _fields():
        pytest.skip("the installed vLLM spells it as 0.34.0 does")
    loaded = config_io.load_file(granite)
    assert loaded.ok and loaded.config.tool_call_body_array is True
    assert loaded.notes == ['tool_call_body_collection = "JSON_ARRAY" (vLLM 0.34.0) read as '
                            f'tool_call_body_array = true (vLLM {versions.installed()})']
    text = '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
    code, out, err = run_cli("replay", "--config", granite, "--text", text, "--tools", tools_file, "--json")
    assert code == 0 and "read as tool_call_body_array = true" in err
    assert json.loads(out)["nonstream"]["tool_calls"][0]["name"] == "get_weather"
    code, out, err = run_cli("replay", "--config", llama, "--text", text, "--tools", tools_file)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "SEMICOLON_SEQUENCE" in err and "--vllm 0.34.0" in err


@needs_034
def test_the_shipped_files_run_in_the_034_lane_in_its_spelling(run_cli, tools_file):
    text = '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
    code, out, err = run_cli("replay", "--config", PARSERS_DIR / "granite.toml", "--text", text, "--tools",
                             tools_file, "--vllm", LANE, "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["parser"]["notes"] == ['tool_call_body_array = true (vLLM before 0.34.0) read as '
                                      'tool_call_body_collection = "JSON_ARRAY" (vLLM 0.34.0)']
    assert [c["name"] for c in res["nonstream"]["tool_calls"]] == ["get_weather"]


@pytest.mark.parametrize("version", LANES)
def test_config_round_trip_in_each_lane(version):
    """export -> load == that vLLM's class config, the shipped file loads in its spelling, and a
    config built from its export replays exactly as its class (tests/core/config/test_configs.py, run there)."""
    from workbench.cli.vllm_option import IN_LANE
    from workbench.lanes import lane as lanes

    out = lanes.get(version, program=IN_LANE).call("pytest", args=[
        "-q", "-p", "no:cacheprovider", str(versions.REPO_ROOT / "tests/core/config/test_configs.py"), "-k",
        "every_engine_family or round_trip or equals_vllm_class"])
    assert out["rc"] == 0, out["failed"]
    assert len(out["passed"]) >= 40 and not out["failed"]
