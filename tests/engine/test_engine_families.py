"""The embedded engine on gpt_oss and Mistral: the tiny model built for each tokenizer,
scripted streams recorded with tool_choice "required" enforced by the engine's grammar.

Slow: each tokenizer starts its own LLMEngine (the run's one engine is qwen3's; a second
tokenizer replaces it). Measured on 2 shared cores: 13-60 s per start, ~2 min for the file.
"""

from __future__ import annotations

import pytest

from tests.support.direct import HARMONY_TEXTS, MISTRAL_CALL, MISTRAL_TEXTS
from workbench.core import recording

pytestmark = pytest.mark.slow(reason="starts one LLMEngine per tokenizer (13-60 s each on 2 cores)")


def _record(run_cli, tmp_path, tokenizer, parsers, tools_file, text):
    out = tmp_path / f"{tokenizer}-{len(list(tmp_path.glob('*.jsonl')))}.jsonl"  # record -o never overwrites
    code, stdout, err = run_cli("record", "--tokenizer", tokenizer, *parsers, "--tools", tools_file,
                                "--tool-choice", "required", "--text", text, "-o", out)
    return code, stdout + err, recording.load(out) if out.exists() else None


def test_gpt_oss_engine_streams_harmony_under_the_structural_tag(run_cli, tmp_path, tools_file):
    code, out, rec = _record(run_cli, tmp_path, "gpt_oss", ("--tool-parser", "openai", "--reasoning-parser",
                             "openai_gptoss"), tools_file, HARMONY_TEXTS["seed"])
    assert code == 0, out
    assert "finish_reason=tool_calls" in out and "grammar did not allow" not in out
    ids = [t for d in rec.deltas for t in d.token_ids]
    assert ids[-1] == 200012  # the engine stopped on <|call|>, a gpt-oss stop token


def test_mistral_engine_enforces_the_pre_v11_json_array(run_cli, tmp_path, tools_file):
    parsers = ("--tool-parser", "mistral")
    code, out, _ = _record(run_cli, tmp_path, "mistral_tekken", parsers, tools_file, f"[{MISTRAL_CALL}]")
    assert code == 0 and "finish_reason=tool_calls" in out, out
    # vLLM constrains a pre-v11 "required" call to a bare JSON array: [TOOL_CALLS] is not allowed.
    code, out, _ = _record(run_cli, tmp_path, "mistral_tekken", parsers, tools_file, MISTRAL_TEXTS["call"])
    assert "the grammar did not allow token 9 ('[TOOL_CALLS]') at step 1" in out


def test_widget_engine_source_steps_gpt_oss_with_required():
    from tests.support.seed import WEATHER_TOOLS
    from workbench import Workbench

    wb = Workbench(HARMONY_TEXTS["seed"], source="engine", tokenizer="gpt_oss", tool_parser="openai",
                   reasoning_parser="openai_gptoss", tools=WEATHER_TOOLS, tool_choice="required")
    wb.run()
    rows = wb.rows
    assert rows[-1].finish_reason == "tool_calls" and "error" not in wb.banner.value.lower()
    assert all(r.extra.get("grammar", {}).get("emitted_allowed") for r in rows)
    assert "commentary to=functions.get_weather" in {r.phase for r in rows}
