"""The worst inputs we can build, each in a bounded fork: 2 GB more memory, 60 s (issue 16).

Every case runs `workbench ...` through tests/support/bounded.py: RLIMIT_AS of 2 GB more than the
fork starts with, killed at 60 s, and its peak RSS must rise by less than 2 GB. A case is
either refused in one stderr line (exit 2, the expected words in it) or runs (exit 0 or
1). `make test` runs the small cases; `make test-slow` the full-size ones (streams at the
100,000-delta limit, files at their byte caps). Long valid streams are bounded relative to
vLLM, not to 60 s: check replays a stream once per grouping, each as long as vLLM's own
loop over it (bench/recording_scale.py --check), so the streams here are sized for 60 s.
"""

from __future__ import annotations

import json

import pytest

from tests.support import bounded
from workbench.core import limits

GB = 1 << 30
BOMB = "{{ ('x' * 100000000) * 50 }}"
WEATHER = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]


def _check_text(n: int) -> str:
    steps, calls = max(1, n // 29), max(1, n // 117)
    thinking = " ".join(f"Step {i}: the user wants the weather, so I consider city number {i}." for i in range(steps))
    return f"<think>{thinking}</think>\n\n" + "\n".join(
        f'<tool_call>{{"name": "get_weather", "arguments": {{"city": "City {i}"}}}}</tool_call>' for i in range(calls))


def _big_config(tmp, text_chars: int) -> list:
    """A config at its limits (256 terminals of 256 characters sharing a 255-character
    prefix, 1,016 transitions), over a text that is a prefix of every terminal: the lexer
    holds every partial match back."""
    from workbench.core.config.io import PARSERS_DIR

    base = (PARSERS_DIR / "teaching.toml").read_text(encoding="utf-8")
    names = [f"T{i}" for i in range(limits.MAX_TERMINALS // 2 - 4)]
    terminals = "".join(f'{n} = "{"x" * 255}{chr(0x4e00 + i)}"\n' for i, n in enumerate(names))
    rows = [f'  {{ from = "{s}", on = "{n}", to = "{s}", emit = [] }},'
            for s in ("CONTENT", "REASONING", "TOOL_ARGS", "TOOL_PREAMBLE") for n in names][:limits.MAX_TRANSITIONS - 8]
    text = base.replace("transitions = [\n", "transitions = [\n" + "\n".join(rows) + "\n", 1)
    text = text.replace("[terminals]\n", "[terminals]\n" + terminals, 1)
    (tmp / "big.toml").write_text(text, encoding="utf-8")
    return ["replay", "--config", tmp / "big.toml", "--text", "x" * text_chars, "--json"]


def _rec(tmp, n: int, parser: tuple) -> str:
    """A recording of ``n`` one-token deltas made by replay --save (through the real writer)."""
    from workbench.cli import main

    (tmp / "t.txt").write_text(_check_text(n) if parser else "the weather is mild today " * (n // 5 + 1))
    (tmp / "tools.json").write_text(json.dumps(WEATHER))
    argv = ["replay", "--text-file", tmp / "t.txt", "--tools", tmp / "tools.json", "--save", tmp / f"r{n}.jsonl"]
    argv += ["--tool-parser", parser[0], "--reasoning-parser", parser[1]] if parser else []
    assert main([str(a) for a in argv]) in (0, 1)
    return tmp / f"r{n}.jsonl"


def _file(tmp, name: str, data) -> str:
    p = tmp / name
    (p.write_bytes if isinstance(data, bytes) else p.write_text)(data)
    return p


def _sse(tmp, lines: list[str]) -> list:
    _file(tmp, "req.json", json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    _file(tmp, "log.sse", "".join(f"data: {line}\n\n" for line in lines))
    return ["capture", "--from-sse", tmp / "log.sse", "--request", tmp / "req.json", "-o", tmp / "o.jsonl"]


def _chunk(text: str, finish=None) -> str:
    return json.dumps({"id": "c", "object": "chat.completion.chunk", "model": "m",
                       "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]})


# (name, argv builder(tmp, full), expected: words of the one refusal line, or None: it runs;
# {full: expected} where the size decides)
CASES = [
    ("tools nested a million deep", lambda t, full: ["replay", "--text", "hi", "--tools",
                                                     _file(t, "t.json", "[" * (limits.MAX_TEXT_BYTES - 1))],
     "nested more than 64 deep"),
    ("a dotted TOML key of 500,000 parts", lambda t, full: ["replay", "--config", _file(
        t, "c.toml", "a." * (limits.MAX_CONFIG_BYTES // 2 - 8) + "b = 1"), "--text", "hi"], "nested more than 64 deep"),
    ("an integer of a million digits", lambda t, full: ["replay", "--text", "hi", "--chat-template-kwargs",
                                                        "9" * (limits.MAX_TEXT_BYTES - 1)], "digits"),
    ("a config at every limit over its worst text", lambda t, full: _big_config(t, 20_000 if full else 2_000), None),
    ("a template that asks for 5 GB (trusted)", lambda t, full: ["replay", "--text", "hi", "--trust-template",
                                                                "--chat-template-kwargs",
                                                                json.dumps({"chat_template": BOMB})],
     "a template may use"),
    ("an SSE line past the line cap", lambda t, full: _sse(t, [_chunk("x" * (limits.MAX_LINE_BYTES + 1))]),
     "a line may be"),
    ("an SSE log of 100,001 chunks", lambda t, full: _sse(t, [_chunk("a") for _ in range(
        limits.MAX_DELTAS + 1 if full else 5_000)] + [_chunk("", "stop")]), {True: "more than 100,000 chunks", False: None}),
    ("check with a billion random groupings", lambda t, full: ["check", "--text", "hi", "--fuzz", str(10**9)],
     "--fuzz must be between 0 and 10,000"),
    ("check over a long stream (hermes + qwen3)", lambda t, full: [
        "check", _rec(t, 3_000 if full else 600, ("hermes", "qwen3")), "--fuzz", "10" if full else "2",
        "--json"] + ([] if full else ["--no-cost", "--shrink-budget", "0"]), None),
    ("check over a stream at the delta limit (no parser)", lambda t, full: [
        "check", _rec(t, limits.MAX_DELTAS - 10 if full else 2_000, ()), "--fuzz", "2", "--no-cost", "--json"],
     None),
]


def _holds(tmp_path, case, full: bool) -> None:
    name, build, refused = case
    argv = build(tmp_path, full)
    if isinstance(refused, dict):
        refused = refused[full]
    o = bounded.run(argv, memory=2 * GB, seconds=60)
    where = f"{name}: {o.err[-600:]}"
    assert o.died is None, f"{name}: {o.died}"
    assert o.grew < 2 * GB, f"{name}: peak memory grew by {o.grew_gb:.2f} GB"
    assert "Traceback" not in o.out + o.err, where
    if refused is None:
        assert o.code in (0, 1), where
    else:
        assert o.code == 2 and o.err.count("\n") == 1 and refused in o.err, where


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_the_worst_inputs_stay_bounded(tmp_path, case, qwen3_tokenizer):
    _holds(tmp_path, case, full=False)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_the_worst_inputs_stay_bounded_at_full_size(tmp_path, case, qwen3_tokenizer):
    _holds(tmp_path, case, full=True)
