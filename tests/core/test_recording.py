"""Recordings are checked against the tokenizer and survive crashes; outputs are never
overwritten unasked; --json stdout is one object even when a parser logs an error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.seed import SEED_TEXT
from workbench.core import recording as rec
from workbench.core.config.io import PARSERS_DIR

SEED = PARSERS_DIR / "recordings" / "hermes" / "seed_weather.jsonl"
ROOT = Path(__file__).resolve().parents[2]


def test_a_cut_last_line_replays_its_prefix_with_a_note(run_cli, tmp_path):
    lines = SEED.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:6]) + lines[6][:20])  # a crash in the middle of writing line 7
    code, out, err = run_cli("replay", cut, "--json")
    assert code == 0, err
    assert "note: cut at line 7, the stream did not finish" in err
    assert len(json.loads(out)["rows"]) == 5
    # A whole line that is not JSON is corruption, not a cut: refused.
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(lines[:6]) + lines[6][:20] + "\n" + "".join(lines[7:]))
    code, _, err = run_cli("replay", bad)
    assert code == 2 and "line 7: invalid JSON" in err


def test_a_last_line_cut_inside_a_character_replays_its_prefix(run_cli, tmp_path):
    lines = SEED.read_text().splitlines(keepends=True)
    delta = json.loads(lines[6])
    delta["text"] = "é☕"  # the crash comes in the middle of the three bytes of ☕
    raw = json.dumps(delta, ensure_ascii=False).encode()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes("".join(lines[:6]).encode() + raw[:raw.index("☕".encode()) + 1])
    code, out, err = run_cli("replay", cut, "--json")
    assert code == 0, err
    assert "note: cut at line 7, the stream did not finish" in err and len(json.loads(out)["rows"]) == 5
    # The same bytes in a middle line are not a cut: refused, naming the line.
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(cut.read_bytes() + b"\n" + "".join(lines[7:]).encode())
    code, _, err = run_cli("replay", bad)
    assert code == 2 and "line 7: not UTF-8 text" in err and err.count("\n") == 1


def test_a_killed_record_is_marked_as_cut_short(run_cli, tmp_path):
    lines = SEED.read_text().splitlines(keepends=True)
    assert json.loads(lines[-1])["finish_reason"] == "stop"
    prefix = tmp_path / "killed.jsonl"
    prefix.write_text("".join(lines[:9]))  # every line whole, as flushed before a kill
    r = rec.load(prefix)
    assert len(r.deltas) == 8 and r.notes == ["cut short: no delta has a finish_reason, the stream did not finish"]
    code, _, err = run_cli("replay", prefix, "--json")
    assert code == 0 and "cut short" in err


def test_tokenizer_mismatch_is_an_error_or_a_note_with_force(run_cli, tmp_path):
    lines = SEED.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["tokenizer"]["sha256"] = "0" * 64
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    code, out, err = run_cli("replay", other, "--json")
    assert code == 2 and out == "" and "sha256" in err and "--force" in err and err.count("\n") == 1
    code, out, err = run_cli("replay", other, "--json", "--force")
    assert code == 0 and "note: tokenizer qwen3 is not the recording's: its sha256 is d253cb4f86a7" in err
    assert json.loads(out)["stream"]["tool_calls"][0]["name"] == "get_weather"


def test_an_out_of_vocabulary_id_is_refused_not_dropped(run_cli, tmp_path):
    # The issue: with k:2 such an id dropped text ("Weather is needed." -> "Weather needed.").
    lines = SEED.read_text().splitlines(keepends=True)
    delta = json.loads(lines[3])
    delta["token_ids"] = [10 ** 9]
    oov = tmp_path / "oov.jsonl"
    oov.write_text("".join(lines[:3]) + json.dumps(delta) + "\n" + "".join(lines[4:]))
    code, _, err = run_cli("replay", oov, "--chunking", "k:2")
    assert code == 2 and "delta 3: token id 1000000000 is outside tokenizer 'qwen3'" in err


def test_finish_reasons_are_vllms():
    from vllm.v1.engine import FINISH_REASON_STRINGS

    assert rec.FINISH_REASONS == FINISH_REASON_STRINGS


def test_save_refuses_an_existing_file_unless_forced(run_cli, tmp_path):
    out = tmp_path / "rec.jsonl"
    out.write_text("mine")
    code, _, err = run_cli("replay", "--text", "hi", "--save", out)
    assert code == 2 and "--force" in err and out.read_text() == "mine"
    code, _, err = run_cli("replay", "--text", "hi", "--save", out, "--force")
    assert code == 0 and rec.load(out).text == "hi"


RUN_AFTER_ENGINE_LOGGING = """
import sys
import workbench.core.env
from vllm.config import LoggingConfig
from vllm.logger import configure_logging
configure_logging(LoggingConfig())  # what LLMEngine does at start-up: vLLM's console handler
from workbench.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_json_stdout_is_one_object_when_a_parser_logs_an_error(tmp_path, tools_file):
    """A fresh process (vLLM binds its log stream when it configures logging, stdout unless
    VLLM_LOGGING_STREAM says otherwise), configured as an engine start configures it."""
    text = SEED_TEXT.replace('{"city": "Paris"}', "{bad}")
    env = {k: v for k, v in os.environ.items() if k != "VLLM_LOGGING_STREAM"} | {"PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", RUN_AFTER_ENGINE_LOGGING, "replay", "--text", text,
                           "--tool-parser", "hermes", "--reasoning-parser", "qwen3", "--tools", str(tools_file),
                           "--json"], capture_output=True, text=True, env=env, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(proc.stdout)  # exactly one object: a log line before it would break this
    assert proc.stdout.count("\n") == 1
    logged = [line for r in data["rows"] for line in r["logs"]] + data["nonstream"].get("logs", [])
    assert any("hermes_tool_parser" in line and "JSONDecodeError" in line for line in logged), logged
    assert "Error in extracting tool call" in proc.stderr
    assert "Traceback" not in proc.stderr  # vLLM's logger.exception: one line, the row has it


# -- ids are the truth (issue 16, item 5) --------------------------------------------
def _with(tmp_path, change, name="rec.jsonl") -> Path:
    lines = [json.loads(line) for line in SEED.read_text().splitlines()]
    change(lines)
    p = tmp_path / name
    p.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    return p


def test_a_delta_whose_text_is_not_its_ids_is_refused(run_cli, tmp_path):
    lines = [json.loads(line) for line in SEED.read_text().splitlines()]
    n, d = next((i, d) for i, d in enumerate(lines[1:], 1) if "tool_call>" in d["text"])
    forged = _with(tmp_path, lambda ls: ls[n].__setitem__("text", "harmless"))
    code, out, err = run_cli("replay", forged, "--json")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"delta {n}: its text 'harmless' is not what vLLM's detokenizer makes of its ids ({d['text']!r})" in err
    code, out, err = run_cli("replay", forged, "--json", "--force")
    assert code == 0 and "replaying the ids' text" in err
    real = run_cli("replay", SEED, "--json")[1]
    assert json.loads(out)["rows"][n - 1]["text"] == d["text"]  # the ids won, not the file's text
    calls = [[(c["name"], c["arguments"]) for c in json.loads(o)["stream"]["tool_calls"]] for o in (out, real)]
    assert calls[0] == calls[1] == [("get_weather", '{"city": "Paris"}')]


def test_an_error_delta_after_the_finish_is_refused(run_cli, tmp_path):
    after = _with(tmp_path, lambda ls: ls.append({"type": "delta", "token_ids": [], "text": "",
                                                  "finish_reason": "error"}))
    code, _, err = run_cli("replay", after)
    assert code == 2 and "a delta after the finish_reason" in err


def test_a_header_tokenizer_folder_is_used_only_when_given(run_cli, tmp_path):
    import shutil

    from workbench.core.tokenizers import ensure_tokenizer

    folder = tmp_path / "tok"
    shutil.copytree(ensure_tokenizer("qwen3"), folder)
    rec_path = _with(tmp_path, lambda ls: ls[0]["tokenizer"].__setitem__("name", str(folder)))
    code, _, err = run_cli("replay", rec_path)
    assert code == 2 and f"names the tokenizer folder '{folder}'" in err and f"--tokenizer {folder}" in err
    code, _, err = run_cli("replay", rec_path, "--tokenizer", folder, "--json")
    assert code == 0, err  # the same files: same sha256, and the folder is the header's


def test_the_hash_covers_the_chat_template(run_cli, tmp_path):
    import shutil

    from workbench.core.tokenizers import ensure_tokenizer

    folder = tmp_path / "tok"
    shutil.copytree(ensure_tokenizer("qwen3"), folder)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config["chat_template"] = "{{ 'changed' }}" + config["chat_template"]
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    rec_path = _with(tmp_path, lambda ls: ls[0]["tokenizer"].__setitem__("name", str(folder)))
    code, _, err = run_cli("replay", rec_path, "--tokenizer", folder)
    assert code == 2 and "its sha256 is" in err  # tokenizer.json is the same; the template is not


def test_an_older_header_hashed_tokenizer_json_only_loads_with_a_note(run_cli, tmp_path):
    from workbench.core.tokenizers import ensure_tokenizer, main_file_sha256

    sha = main_file_sha256(ensure_tokenizer("qwen3"))
    old = _with(tmp_path, lambda ls: ls[0].__setitem__("tokenizer", {"name": "qwen3", "sha256": sha}))
    code, _, err = run_cli("replay", old, "--json")
    assert code == 0 and "covers its main file only (an older recording)" in err


def test_the_fast_delta_check_accepts_only_what_the_full_check_accepts():
    """``recording.load`` takes a delta line on ``_valid_delta`` alone (its fast path); it
    must never accept a line ``_check_delta`` would refuse."""
    import itertools

    from workbench.core import recording as rec
    from workbench.errors import WorkbenchError

    good = {"type": "delta", "token_ids": [1, 2], "text": "hi", "finish_reason": None, "engine_steps": 1,
            "extra": {}}
    odd = [None, True, False, 0, -1, 1.5, "", "x", "stop", [], [1], [-1], [True], [1.0], {}, {"a": 1}]
    accepted = 0
    for key, value in itertools.product(list(good) + ["other"], odd + ["__missing__"]):
        obj = dict(good)
        if value == "__missing__":
            obj.pop(key, None)
        else:
            obj[key] = value
        try:
            rec._check_delta(obj, "here")
            full = True
        except WorkbenchError:
            full = False
        if rec._valid_delta(obj):
            accepted += 1
            assert full, obj
    assert accepted > 10 and rec._valid_delta(good)
