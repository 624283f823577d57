"""A stranger's pass over the input door: request bodies, SSE logs, configs, the widget's
arguments. Each hostile input gives one line and exit 2 (or a banner), within a bound on
time and memory, and never a traceback."""

from __future__ import annotations

import json
import resource
import time

import pytest

from workbench.core import limits


def _peak_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


_WARM: list[bool] = []


def _one_line(run_cli, *argv, most_s: float = 20, most_mb: int = 300) -> str:
    if not _WARM:  # vLLM's imports and the first session are not the input's cost
        for api in ("responses", "messages"):
            assert run_cli("replay", "--text", "hi", "--tool-parser", "hermes", "--api", api)[0] == 0
        _WARM.append(True)
    before, start = _peak_mb(), time.monotonic()
    code, out, err = run_cli(*argv)
    took, grew = time.monotonic() - start, _peak_mb() - before
    assert "Traceback" not in out + err, err
    assert code == 2 and err.count("\n") == 1, (code, err[-500:])
    assert took < most_s and grew < most_mb, (took, grew)
    return err


# 100,000 entries of one wrong shape: pydantic builds every entry's error against every union
# member before the first is shown (16 GB for the Responses one before it was killed).
BOMBS = {
    "responses, input of 100,000 strings": ("responses", lambda: {"input": ["x"] * 100_000}, "input"),
    "responses, input of 40,000 unknown items": ("responses", lambda: {"input": [{"type": "bogus"}] * 40_000},
                                                 "input"),
    "responses, good entries then 40,000 bad": ("responses", lambda: {
        "input": [{"role": "user", "content": "hi"}] * 40 + [{"type": "bogus"}] * 40_000}, "input"),
    "responses, one message of 40,000 unknown parts": ("responses", lambda: {
        "input": [{"role": "user", "content": [{"type": "weird"}] * 40_000}]}, "input"),
    "messages, 40,000 unknown blocks": ("messages", lambda: {
        "max_tokens": 10, "messages": [{"role": "user", "content": [{"type": "x"}] * 40_000}]}, "messages"),
    "responses, 30,000 bad tools": ("responses", lambda: {"input": "hi", "tools": [{"type": "x"}] * 30_000},
                                    "tools"),
}


@pytest.mark.parametrize("name", list(BOMBS))
def test_a_request_body_of_many_bad_entries_is_one_line_in_bounded_memory(run_cli, tmp_path, name):
    api, body, field = BOMBS[name]
    req = tmp_path / "req.json"
    req.write_text(json.dumps(body()))
    err = _one_line(run_cli, "replay", "--text", "hi", "--tool-parser", "hermes", "--api", api, "--request", req)
    assert f"request ({field}" in err, err


def test_a_bad_entry_in_a_later_window_is_numbered_in_the_whole_array(run_cli, tmp_path):
    req = tmp_path / "req.json"
    req.write_text(json.dumps({"max_tokens": 10, "messages": [{"role": "user", "content": "hi"}] * 40
                               + [{"role": "robot", "content": "x"}]}))
    err = _one_line(run_cli, "replay", "--text", "hi", "--api", "messages", "--request", req)
    assert "(messages.40.role)" in err, err


def test_a_long_valid_body_still_validates_and_cross_checks_see_every_entry(tmp_path):
    """tool_choice naming the 30th tool: the sample holds 16 tools, the whole body decides."""
    from workbench.core.faces import bodies

    tools = [{"type": "function", "name": f"f{i}", "parameters": {"type": "object"}} for i in range(30)]
    request = bodies.responses_request({"input": [{"role": "user", "content": "hi"}] * 40, "tools": tools,
                                        "tool_choice": {"type": "function", "name": "f29"}})
    assert len(request.input) == 40 and request.tool_choice.name == "f29"
    assert limits.VALIDATE_ITEMS < 30


# -- --from-sse: a log saved from a compressed answer ----------------------------------------
def _chat_log() -> str:
    chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
    chunks += [{"choices": [{"index": 0, "delta": {"content": t}, "finish_reason": None}]} for t in ("Hel", "lo")]
    chunks += [{"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_compressed_sse_log_is_read_decompressed(run_cli, tmp_path, encoding):
    import gzip
    import zlib

    from workbench.core import recording as rec

    data = _chat_log().encode()
    log = tmp_path / "log.sse"
    log.write_bytes(gzip.compress(data) if encoding == "gzip" else zlib.compress(data))
    req = tmp_path / "req.json"
    req.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    code, out, err = run_cli("capture", "--from-sse", log, "--request", req, "-o", tmp_path / "o.jsonl")
    assert code == 0, err
    assert "".join(d.text for d in rec.load(tmp_path / "o.jsonl").deltas).startswith("Hello")


@pytest.mark.parametrize("name", ["a gzip bomb", "a corrupt gzip"])
def test_a_hostile_compressed_sse_log_is_one_line_in_bounded_memory(run_cli, tmp_path, name):
    import gzip

    if name == "a gzip bomb":  # 200 MB of one line: refused at the line cap, never inflated whole
        data = gzip.compress(b"data: " + b"x" * (200 << 20), compresslevel=9)
        words = "a line may be"
    else:
        data = gzip.compress(_chat_log().encode())[:12] + b"\xff" * 64
        words = "(gzip): its gzip body does not decompress"
    log = tmp_path / "log.sse"
    log.write_bytes(data)
    req = tmp_path / "req.json"
    req.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    err = _one_line(run_cli, "capture", "--from-sse", log, "--request", req, "-o", tmp_path / "o.jsonl")
    assert words in err, err


# -- a config's markers --------------------------------------------------------------------
TEACHING_HEAD = 'extends = "{}"\nname = "t"\n'


@pytest.mark.parametrize("line, words", [
    ('preserve_tokens = [""]', "preserve_tokens[0]: expected a non-empty string, got ''"),
    ('turn_boundary_tokens = [""]', "turn_boundary_tokens[0]: expected a non-empty string, got ''"),
    ('arg_structural_chars = ["ab"]', "arg_structural_chars[0]: expected one character, got 'ab'"),
    ('[token_id_terminals]\nTHINK_START = ""', "token_id_terminals.THINK_START: expected a non-empty string"),
    ('name = ""', "name: expected a non-empty string, got ''"),
    ('name = "' + "n" * 100_000 + '"', "name: 100,000 characters, over the 256 it may have"),
])
def test_an_empty_or_oversized_marker_in_a_config_is_one_line(run_cli, tmp_path, line, words):
    from workbench.core.config.io import PARSERS_DIR

    head = TEACHING_HEAD.format(PARSERS_DIR / "teaching.toml")
    if line.startswith("name"):
        head = head.replace('name = "t"\n', "")
    config = tmp_path / "c.toml"
    config.write_text(head + line + "\n")
    err = _one_line(run_cli, "replay", "--text", "hi", "--config", config)
    assert words in err, err


def test_good_parts_then_many_bad_ones_deep_in_a_body_are_one_line_in_bounded_memory(run_cli, tmp_path):
    """The windows reach arrays at any depth: a message's content parts, past the sample's 16."""
    parts = [{"type": "input_text", "text": "x"}] * 16 + [{"type": "weird"}] * 40_000
    req = tmp_path / "req.json"
    req.write_text(json.dumps({"input": [{"role": "user", "content": "hi"}] * 20 + [{"role": "user",
                                                                                     "content": parts}]}))
    err = _one_line(run_cli, "replay", "--text", "hi", "--api", "responses", "--request", req)
    assert "invalid Responses request (input" in err, err
