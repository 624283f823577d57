"""`workbench replay` and `workbench parsers`: output contract and bad input."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.seed import SEED_TEXT

DATA = Path(__file__).resolve().parents[1] / "data"


def test_replay_json_contract(run_cli, tools_file, tmp_path):
    code, out, err = run_cli("replay", "--text", SEED_TEXT, "--tokenizer", "qwen3",
                             "--tool-parser", "hermes", "--reasoning-parser", "qwen3",
                             "--tools", tools_file, "--json", "--save", tmp_path / "rec.jsonl")
    assert code == 0, err
    data = json.loads(out)
    assert set(data["stream"]) >= {"reasoning", "content", "tool_calls", "finish_reason"}
    assert data["stream"]["tool_calls"][0]["index"] == 0
    assert data["stream"]["tool_calls"][0]["name"] == "get_weather"
    assert data["nonstream"]["content"] is None  # None is never turned into ""
    assert data["nonstream"]["tool_calls"][0]["id"].startswith("chatcmpl-tool-")
    row = data["rows"][0]
    assert {"step", "token_ids", "text", "phase", "delta", "sse", "chunk", "logs", "parser_us"} <= set(row)
    assert data["parser"]["kind"] == "delegating"
    assert data["parser"]["reasoning"].endswith("Qwen3ParserReasoningAdapter")

    # The saved recording replays to the same rows.
    code2, out2, _ = run_cli("replay", tmp_path / "rec.jsonl", "--json")
    again = json.loads(out2)
    assert code2 == 0
    assert _without_ids(again["rows"]) == _without_ids(data["rows"])
    assert again["stream"]["reasoning"] == data["stream"]["reasoning"]


def _without_ids(rows):
    """Tool-call ids are random per run (chatcmpl-tool-<hex>); compare the rest."""
    out = []
    for r in rows:
        d = json.loads(json.dumps(r["delta"]))
        for c in (d or {}).get("tool_calls", []):
            c["id"] = bool(c["id"])
        out.append((r["token_ids"], r["text"], r["phase"], d, r["sse"], r["finish_reason"]))
    return out


def test_replay_table_output(run_cli, tools_file):
    code, out, _ = run_cli("replay", "--text", SEED_TEXT, "--tool-parser", "hermes",
                           "--reasoning-parser", "qwen3", "--tools", tools_file)
    assert code == 0
    assert "reasoning→tool" in out and "final message" in out and "get_weather" in out


def test_parsers_lists_engine_and_legacy(run_cli):
    code, out, _ = run_cli("parsers", "--json")
    entries = json.loads(out)
    by = {(e["kind"], e["name"]): e for e in entries}
    assert by[("tool", "hermes")]["engine_based"] is False
    assert by[("reasoning", "qwen3")]["engine_based"] is True
    assert by[("tool", "qwen3_coder")]["engine_based"] is True
    assert len([e for e in entries if e["kind"] == "tool"]) >= 50


def test_unknown_parser_names_close_matches(run_cli):
    code, out, err = run_cli("replay", "--text", "x", "--tool-parser", "hermez")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "hermes" in err and "Traceback" not in err


def test_unknown_tokenizer(run_cli):
    code, _, err = run_cli("replay", "--text", "x", "--tokenizer", "qwen33")
    assert code == 2 and "qwen3" in err and err.count("\n") == 1


def test_invalid_tools_json_names_file_and_position(run_cli, tmp_path):
    bad = tmp_path / "tools.json"
    bad.write_text('[{"type": "function",\n  "function": {"name": "f",}}]')
    code, _, err = run_cli("replay", "--text", "x", "--tool-parser", "hermes", "--tools", bad)
    assert code == 2 and str(bad) in err and "line 2" in err


def test_bad_recordings(run_cli, tmp_path):
    code, _, err = run_cli("replay", tmp_path / "missing.jsonl")
    assert code == 2 and "missing.jsonl" in err
    rec = tmp_path / "bad.jsonl"
    rec.write_text('{"type": "header", "format": "parser-workbench/recording", "version": 1, '
                   '"tokenizer": {"name": "qwen3"}, "request": {}, "prompt_token_ids": []}\n'
                   '{"type": "delta", "token_ids": [1], "text": "a"}\n{"type": "delta", "token_ids": [2, \n')
    code, _, err = run_cli("replay", rec)
    assert code == 2 and "line 3" in err and err.count("\n") == 1


def test_parser_raising_mid_stream_is_an_error_row(run_cli, tools_file):
    code, out, err = run_cli("replay", "--text", "one boom two three", "--tool-parser", "test_raising",
                             "--plugin", DATA / "raising_tool_parser.py", "--tools", tools_file, "--json")
    assert code == 1
    rows = json.loads(out)["rows"]
    failed = [r for r in rows if r["error"]]
    assert len(failed) == 1 and "exploded" in failed[0]["error"]
    assert rows[-1]["step"] > failed[0]["step"]  # the remaining deltas still ran
    assert err.count("\n") == 1 and "step" in err


def test_tokenizer_lacking_markers_gives_vllm_message(run_cli):
    # deepseek_v3's reasoning markers are not single tokens of... the qwen3 vocab has
    # <think>, so use a reasoning parser whose markers qwen3 lacks.
    code, _, err = run_cli("replay", "--text", "x", "--reasoning-parser", "mistral")
    assert code == 2 and "cannot be used with the tokenizer" in err and err.count("\n") == 1


def test_bad_plugin_file(run_cli, tmp_path):
    bad = tmp_path / "plugin.py"
    bad.write_text("raise RuntimeError('nope')\n")
    code, _, err = run_cli("replay", "--text", "x", "--plugin", bad)
    assert code == 2 and "nope" in err


def test_request_rejected_by_vllms_validator(run_cli, tools_file):
    code, _, err = run_cli("replay", "--text", "x", "--tool-choice", "get_weather")
    assert code == 2 and "tools" in err and err.count("\n") == 1
    code, _, err = run_cli("replay", "--text", "x", "--tool-parser", "hermes", "--tools", tools_file,
                           "--tool-choice", "get_time")
    assert code == 2 and "does not match" in err and err.count("\n") == 1


def test_a_library_warning_is_one_note_line_and_none_under_an_error(run_cli, tmp_path):
    """Python warnings and the libraries' loggers are collected while a command runs: after
    it, each is one ``note:`` line; under a one-line error, none."""
    plugin = tmp_path / "warns.py"
    plugin.write_text("import logging, warnings\n"
                      "warnings.warn('a library says\\nsomething on two lines')\n"
                      "logging.getLogger('huggingface_hub.utils').warning('and its logger too')\n"
                      # a plugin registers a parser (core/plugins.py refuses one that does not)
                      "from vllm.tool_parsers import ToolParserManager\n"
                      "from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser\n"
                      "ToolParserManager.register_module('warns', module=Hermes2ProToolParser)\n")
    code, out, err = run_cli("replay", "--text", "hi", "--plugin", plugin, "--json")
    assert code == 0 and err.splitlines() == ["workbench replay: note: UserWarning: a library says",
                                              "workbench replay: note: huggingface_hub: and its logger too"], err
    plugin.write_text(plugin.read_text().replace("says", "says again"))
    code, out, err = run_cli("replay", "--text", "hi", "--plugin", plugin, "--chunking", "at:1000")
    assert code == 2 and err.count("\n") == 1 and "--chunking at:1000" in err, err
