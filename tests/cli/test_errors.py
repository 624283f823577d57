"""Bad input never reaches the user as a traceback (issue 10).

Each case runs the CLI in this process (``run_cli``) and must give exit 2, one
line on stderr, no "Traceback" anywhere and, with --json, nothing on stdout.
Cases are the issue's inputs plus a fuzz of every recording header field.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.seed import WEATHER_TOOLS
from workbench.core.config.io import PARSERS_DIR

SEED = PARSERS_DIR / "recordings" / "hermes" / "seed_weather.jsonl"
JSON_COMMANDS = ("replay", "check", "doctor", "diff")
CASES: dict[str, object] = {}


def case(name: str, *, also: tuple[str, ...] = ()):
    """Register ``fn(tmp_path) -> argv``; ``also``: more commands given the same source."""
    def register(fn):
        CASES[name] = fn
        for command in also:
            CASES[f"{name}[{command}]"] = lambda tmp, fn=fn, command=command: [command, *fn(tmp)[1:]]
        return fn
    return register


def write(tmp: Path, name: str, data: str | bytes) -> Path:
    p = tmp / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return p


def seed_lines() -> list[dict]:
    return [json.loads(line) for line in SEED.read_text(encoding="utf-8").splitlines()]


def recording(tmp: Path, change) -> Path:
    """The seed recording with ``change(lines)`` applied (lines: header, then deltas)."""
    lines = seed_lines()
    change(lines)
    return write(tmp, "rec.jsonl", "".join(json.dumps(line) + "\n" for line in lines))


def set_path(obj: dict, path: str, value) -> None:
    *parents, last = path.split(".")
    for key in parents:
        obj = obj[key]
    obj[last] = value


# -- text files -------------------------------------------------------------------
TEXT = ("replay", "--tool-parser", "hermes", "--text-file")
case("text file, binary", also=("check", "doctor"))(lambda t: [*TEXT, write(t, "b.bin", bytes(range(256)))])
case("text file, Latin-1")(lambda t: [*TEXT, write(t, "l.txt", "café <tool_call>".encode("latin-1"))])
case("text file, missing")(lambda t: [*TEXT, t / "nope.txt"])
case("text file, a directory")(lambda t: [*TEXT, t])
case("text and text file")(lambda t: ["replay", "--text", "x", "--text-file", write(t, "a.txt", "x")])


@case("text file, 50 MB")
def _(t):
    p = t / "big.txt"
    with p.open("wb") as f:
        f.truncate(50 << 20)  # sparse: the size is refused before anything is read
    return [*TEXT, p]


@case("text, more tokens than the delta limit")
def _(t):
    from workbench.core import limits

    return ["replay", "--text-file", write(t, "many.txt", "a " * (limits.MAX_DELTAS + 10))]


# -- recordings -------------------------------------------------------------------
case("recording, empty")(lambda t: ["replay", write(t, "e.jsonl", "")])
case("recording, binary")(lambda t: ["replay", write(t, "b.jsonl", bytes(range(256)) * 4)])
case("recording, header cut")(lambda t: ["replay", write(t, "c.jsonl", SEED.read_text()[:80])])
case("recording, a directory")(lambda t: ["replay", t])
case("recording, not objects")(lambda t: ["replay", write(t, "n.jsonl", "[1, 2]\n")])
case("recording, only a header")(lambda t: ["replay", recording(t, lambda ls: ls.__delitem__(slice(1, None)))])

HEADER_FIELDS = [
    ("format", 1), ("version", "1"), ("version", 2), ("tokenizer", "qwen3"), ("tokenizer.name", 5),
    ("tokenizer.sha256", 5), ("tokenizer.sha256", "0" * 64), ("tokenizer.name", "deepseek_v3"),
    ("vllm_version", 5), ("request", []), ("request.messages", [1, 2]), ("request.messages", "hi"),
    ("request.tools", {"a": 1}), ("request.tools", [1]), ("request.tool_choice", 5),
    ("request.chat_template_kwargs", [1]), ("request.parallel_tool_calls", "yes"),
    ("request.include_reasoning", "x"), ("request.max_tokens", -5), ("request.max_tokens", "5"),
    ("prompt_token_ids", "abc"), ("prompt_token_ids", [-1]), ("prompt_token_ids", [1e12]),
    ("prompt_token_ids", [10 ** 12]), ("prompt_token_ids", [True]), ("origin", "x"),
    ("parser", "hermes"), ("parser.tool_parser", 5), ("parser.reasoning_parser", ["qwen3"]),
    ("parser.config", 5), ("parser.plugins", "x"), ("parser.plugins", [{"file": 5}]),
    ("parser.tool_strict_level", 1),
]
for _field, _value in HEADER_FIELDS:
    case(f"header {_field} = {_value!r}"[:60])(
        lambda t, f=_field, v=_value: ["replay", recording(t, lambda ls: set_path(ls[0], f, v))])

DELTA_FIELDS = [
    ("token_ids", [-1]), ("token_ids", [1.5]), ("token_ids", [10 ** 9]), ("token_ids", "abc"),
    ("token_ids", [None]), ("text", None), ("text", 5), ("finish_reason", 5), ("finish_reason", "banana"),
    ("type", "foo"), ("engine_steps", "x"), ("engine_steps", -1), ("extra", [1]),
]
for _field, _value in DELTA_FIELDS:
    case(f"delta {_field} = {_value!r}", also=("check",) if _field == "token_ids" else ())(
        lambda t, f=_field, v=_value: ["replay", recording(t, lambda ls: ls[3].__setitem__(f, v))])
case("delta finish_reason mid-stream")(
    lambda t: ["replay", recording(t, lambda ls: ls[3].__setitem__("finish_reason", "stop"))])
case("delta, out-of-vocabulary id with k:2")(
    lambda t: ["replay", recording(t, lambda ls: ls[3].__setitem__("token_ids", [10 ** 9])), "--chunking", "k:2"])


@case("recording, a million deltas")
def _(t):
    header = SEED.read_text().splitlines()[0]
    p = t / "million.jsonl"
    with p.open("w") as f:
        f.write(header + "\n")
        f.write('{"type": "delta", "token_ids": [1], "text": "a", "finish_reason": null}\n' * 1_000_000)
    return ["replay", p]


@case("recording, over the size limit")
def _(t):
    from workbench.core import limits

    p = write(t, "huge.jsonl", SEED.read_text())
    with p.open("ab") as f:
        f.truncate(limits.MAX_RECORDING_BYTES + 1)
    return ["replay", p]


# -- request files and flags ------------------------------------------------------
def tools(t, value) -> Path:
    return write(t, "tools.json", value if isinstance(value, (str, bytes)) else json.dumps(value))


REQ = ("replay", "--text", "x", "--tool-parser", "hermes")
case("tools, an object")(lambda t: [*REQ, "--tools", tools(t, {"a": 1})])
case("tools, ints")(lambda t: [*REQ, "--tools", tools(t, [1, 2])])
case("tools, not UTF-8")(lambda t: [*REQ, "--tools", tools(t, b"\xff\xfe[]")])
case("tools, no function")(lambda t: [*REQ, "--tools", tools(t, [{"type": "function"}])])
case("messages, ints")(lambda t: [*REQ, "--messages", write(t, "m.json", "[1, 2]")])
case("messages, an object")(lambda t: [*REQ, "--messages", write(t, "m.json", '{"role": "user"}')])
case("messages, no role")(lambda t: [*REQ, "--messages", write(t, "m.json", '[{"content": "x"}]')])
case("messages, empty")(lambda t: [*REQ, "--messages", write(t, "m.json", "[]")])
case("chunking random:1:0")(lambda t: [*REQ, "--chunking", "random:1:0"])
case("chunking k:0")(lambda t: [*REQ, "--chunking", "k:0"])
case("chunking banana")(lambda t: [*REQ, "--chunking", "banana"])
case("chunking random:1#10000 (past --fuzz's most)")(lambda t: [*REQ, "--chunking", "random:1#10000"])
case("chunking random:SEED of 5,000 digits")(lambda t: [*REQ, "--chunking", "random:" + "9" * 5000])
case("chunking at: 5,000 digits")(lambda t: [*REQ, "--chunking", "at:" + "9" * 5000])
case("deltas file, more deltas than the limit")(lambda t: ["replay", "--deltas", write(t, "d.json", "[" + ", ".join(
    ["[1]"] * 100_001) + "]")])
case("deltas file, more ids than the limit")(lambda t: ["replay", "--deltas", write(t, "d.json", json.dumps(
    [[1] * 100_001]))])


@case("recording, one delta with more ids than the limit", also=("check",))
def _(t):
    """--chunking token or check would make each id a delta: 150,000 of them ran for minutes."""
    header = SEED.read_text().splitlines()[0]
    delta = {"type": "delta", "token_ids": [87] * 100_001, "text": "x" * 100_001, "finish_reason": "stop"}
    return ["replay", write(t, "one.jsonl", header + "\n" + json.dumps(delta) + "\n"), "--chunking", "token"]
case("chat-template-kwargs, a list")(lambda t: [*REQ, "--chat-template-kwargs", "[1]"])
case("chat-template-kwargs, bad JSON")(lambda t: [*REQ, "--chat-template-kwargs", "{bad"])
case("chat-template-kwargs, a clash")(lambda t: [*REQ, "--chat-template-kwargs", '{"tokenize": false}'])
case("max-tokens -5")(lambda t: [*REQ, "--max-tokens", "-5"])
case("max-tokens -5 (record)")(lambda t: ["record", "--text", "x", "--max-tokens", "-5", "-o", t / "r.jsonl"])
case("tool-choice without tools")(lambda t: [*REQ, "--tool-choice", "get_weather"])
case("check --fuzz -1")(lambda t: ["check", "--text", "x", "--fuzz", "-1"])


# -- tokenizers -------------------------------------------------------------------
@case("tokenizer.json without added_tokens")
def _(t):
    from workbench.core.tokenizers import ensure_tokenizer

    src = json.loads((ensure_tokenizer("qwen3") / "tokenizer.json").read_text(encoding="utf-8"))
    del src["added_tokens"]
    (t / "tok").mkdir()
    write(t / "tok", "tokenizer.json", json.dumps(src))
    return ["replay", "--text", "x", "--tokenizer", t / "tok"]


@case("tokenizer.json, invalid JSON")
def _(t):
    (t / "tok").mkdir()
    write(t / "tok", "tokenizer.json", "{")
    return ["replay", "--text", "x", "--tokenizer", t / "tok"]


case("tokenizer, a folder without one")(lambda t: ["replay", "--text", "x", "--tokenizer", t])


# -- the reading door (issue 16): devices, nesting, huge integers, NaN ---------------
case("text file, /dev/zero", also=("check",))(lambda t: [*TEXT, "/dev/zero"])
case("text file, /dev/urandom")(lambda t: [*TEXT, "/dev/urandom"])
case("recording, /dev/zero")(lambda t: ["replay", "/dev/zero"])
case("tools, /dev/urandom")(lambda t: [*REQ, "--tools", "/dev/urandom"])
case("tools, nested 100,000 deep")(lambda t: [*REQ, "--tools", tools(t, "[" * 100_000)])
case("tools, a 4,301-digit integer")(lambda t: [*REQ, "--tools", tools(t, "[" + "7" * 4301 + "]")])
case("tools, NaN")(lambda t: [*REQ, "--tools", tools(t, '[{"type": "function", "x": NaN}]')])
case("messages, a lone surrogate")(lambda t: [*REQ, "--messages", write(
    t, "m.json", '[{"role": "user", "content": "\\ud800"}]')])
case("chat-template-kwargs, nested 100,000 deep")(lambda t: [*REQ, "--chat-template-kwargs",
                                                            '{"a": ' + "[" * 100_000 + "}"])
case("chat-template-kwargs, Infinity")(lambda t: [*REQ, "--chat-template-kwargs", '{"a": Infinity}'])
case("header, a 5,000-digit prompt id")(lambda t: ["replay", write(
    t, "h.jsonl", SEED.read_text().replace('"prompt_token_ids": [', '"prompt_token_ids": [' + "9" * 5000 + ", ", 1))])
case("header, nested 100,000 deep")(lambda t: ["replay", write(
    t, "d.jsonl", SEED.read_text().replace('"origin": {', '"origin": {"x": ' + "[" * 100_000 + "]" * 100_000 + ", ", 1))])
case("config, nested 100,000 deep")(lambda t: [*CFG, config(t, TEACHING + "x = " + "[" * 100_000 + "\n")])
case("config, nan")(lambda t: [*CFG, config(t, TEACHING + "x = nan\n")])
case("config, a 900,000-character terminal")(lambda t: [*CFG, config(t, TEACHING + '[terminals]\nX = "' + "x" * 900_000 + '"\n')])
case("config, 5,000 terminals")(lambda t: [*CFG, config(t, TEACHING + "[terminals]\n" + "".join(
    f'T{i} = "<t{i}>"\n' for i in range(5000)))])
case("config, 100,000 transitions")(lambda t: [*CFG, config(t, TEACHING + "transitions = [" + ", ".join(
    ['{ from = "CONTENT", on = "X", to = "CONTENT" }'] * 100_000) + "]\n")])
case("config, /dev/zero")(lambda t: [*CFG, "/dev/zero"])
case("text, non-UTF-8 bytes in --text")(lambda t: ["replay", "--text", b"caf\xe9".decode("utf-8", "surrogateescape")])


# -- configs ----------------------------------------------------------------------
def config(t, text: str | bytes, name: str = "c.toml") -> Path:
    return write(t, name, text)


CFG = ("replay", "--text", "x", "--config")
TEACHING = f'extends = "{PARSERS_DIR / "teaching.toml"}"\nname = "t"\n'
case("config, TOML syntax")(lambda t: [*CFG, config(t, 'name = "x\n')])
case("config, unknown state")(lambda t: [*CFG, config(t, TEACHING + 'initial_state = "CONTNET"\n')])
case("config, bad transition")(lambda t: [*CFG, config(t, TEACHING + 'transitions = [{ from = 1 }]\n')])
case("config, missing extends")(lambda t: [*CFG, config(t, 'extends = "nope"\nname = "x"\n')])
case("config, not UTF-8")(lambda t: [*CFG, config(t, 'name = "caf\xe9"\n'.encode("latin-1"))])
case("config, missing file")(lambda t: [*CFG, t / "nope.toml"])
case("config, refused callable")(lambda t: [*CFG, config(t, TEACHING + 'arg_converter = "os:system"\n')])
case("config, callable kwargs not a table")(lambda t: [*CFG, config(
    t, TEACHING + 'arg_converter = { call = "vllm.parser.granite:_granite_arg_converter", kwargs = 5 }\n')])
case("config, parser_class not a class")(lambda t: [*CFG, config(
    t, TEACHING + 'parser_class = "vllm.parser.granite:_granite_arg_converter"\n')])


@case("config, circular extends")
def _(t):
    config(t, 'extends = "b.toml"\nname = "a"\n', "a.toml")
    config(t, 'extends = "a.toml"\nname = "b"\n', "b.toml")
    return [*CFG, t / "a.toml"]


@case("config, extends a non-UTF-8 file")
def _(t):
    config(t, b'name = "\xff"\n', "base.toml")
    return [*CFG, config(t, 'extends = "base.toml"\nname = "x"\n')]


# -- plugins ----------------------------------------------------------------------
PLUG = ("replay", "--text", "x", "--plugin")
case("plugin, missing")(lambda t: [*PLUG, t / "nope.py"])
case("plugin, raises")(lambda t: [*PLUG, write(t, "p1.py", "raise RuntimeError('nope')\n")])
case("plugin, syntax error")(lambda t: [*PLUG, write(t, "p2.py", "def f(:\n")])
case("plugin, not UTF-8")(lambda t: [*PLUG, write(t, "p3.py", b"x = '\xff'\n")])
case("plugin, calls sys.exit(0)")(lambda t: [*PLUG, write(t, "p4.py", "import sys\nsys.exit(0)\n")])


# -- output paths -----------------------------------------------------------------
case("export-config -o missing dir")(lambda t: ["export-config", "qwen3", "-o", t / "missing" / "x.toml"])
case("export-config --all onto a file")(lambda t: ["export-config", "--all", write(t, "f.toml", "x")])
case("replay --save onto an existing file")(lambda t: ["replay", "--text", "x", "--save", write(t, "r.jsonl", "keep")])
case("replay --save onto a directory")(lambda t: ["replay", "--text", "x", "--save", t])
case("record -o onto an existing file")(lambda t: ["record", "--text", "x", "-o", write(t, "r.jsonl", "keep")])
case("export -o missing dir")(lambda t: ["export", "--text", "x", "-o", t / "missing" / "test_x.py"])
case("export-config -o a full disk")(lambda t: ["export-config", "qwen3", "-o", "/dev/full", "--force"])
case("doctor --report a full disk")(lambda t: ["doctor", "--text", "x", "--report", "/dev/full", "--force"])


@case("export -o onto a FIFO with --force", also=("record",))
def _(t):
    import os

    os.mkfifo(t / "out.fifo")  # no reader: opening it for writing would wait for ever
    return ["export", "--text", "x", "-o", t / "out.fifo", "--force"]



# -- issue 45: watch, plugins, names from data, the Rust lane ------------------------------
for _v in ("nan", "inf", "-inf", "1e308"):
    case(f"watch --interval {_v}")(lambda t, v=_v: ["watch", write(t, "a.toml", "x"), "--interval", v, "--once"])
case("watch, two text files")(lambda t: ["watch", write(t, "a.txt", "x"), write(t, "b.txt", "y"), "--once"])
case("watch, two configs")(lambda t: ["watch", write(t, "a.toml", "x"), write(t, "b.toml", "y"), "--once"])
for _m in ("json", "re", "vllm"):
    case(f"plugin named {_m}.py", also=("check", "doctor"))(lambda t, m=_m: [
        "replay", "--plugin", write(t, f"{m}.py", "X = 1\n"), "--tool-parser", "hermes", "--text", "x"])
case("config, extends ../ segments")(lambda t: [*CFG, config(t, 'extends = "../../../etc/passwd"\nname = "t"\n')])
case("config, extends a NUL")(lambda t: [*CFG, config(t, 'extends = "x\\u0000y"\nname = "t"\n')])


def _hostile_model_type(t: Path, model_type: str) -> Path:
    from workbench.core.tokenizers import ensure_tokenizer

    tok = t / "tok"
    tok.mkdir(exist_ok=True)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        write(tok, name, (ensure_tokenizer("qwen3") / name).read_bytes())
    write(tok, "config.json", json.dumps({"model_type": model_type}))
    return tok


for _mt in ("../../victim", "x\x00y", "x;touch PWNED;#"):
    case(f"--frontend rust, a tokenizer whose model_type is {_mt!r}")(lambda t, mt=_mt: [
        "replay", "--frontend", "rust", "--tokenizer", _hostile_model_type(t, mt), "--tool-parser", "hermes",
        "--text", "x"])

# --vllm with relative paths: made absolute here, refused here, never looked up in the checkout
case("--vllm, a relative config that is nowhere", also=("check", "doctor"))(lambda t: [
    "replay", "--text", "x", "--config", "no-such-folder/mine.toml", "--vllm", "0.33.0"])
case("--vllm, a relative recording that is the checkout's folder")(lambda t: ["replay", "parsers", "--vllm", "0.33.0"])
case("--vllm, a relative plugin that is nowhere")(lambda t: [
    "replay", "--text", "x", "--plugin", "no-such-folder/p.py", "--tool-parser", "hermes", "--vllm", "0.34.0"])
case("export-config --python into a missing folder")(lambda t: [
    "export-config", "qwen3", "--python", "-o", t / "missing" / "x.py"])


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_one_line(run_cli, tmp_path, name):
    argv = [str(a) for a in CASES[name](tmp_path)]
    if argv[0] in JSON_COMMANDS:
        argv.append("--json")
    code, out, err = run_cli(*argv)
    assert "Traceback" not in out + err, err
    assert code == 2, (code, err, out[:300])
    assert err.count("\n") == 1 and err.startswith(f"workbench {argv[0]}: error: "), err
    assert out == "", out[:300]
    for keep in tmp_path.glob("r.jsonl"):
        assert keep.read_text() == "keep"  # an existing file is never overwritten


def test_there_are_at_least_40_cases():
    assert len(CASES) >= 40


def test_tools_for_the_good_path_still_work(run_cli, tmp_path):
    """The harness is not vacuous: the same flags with good values succeed."""
    code, out, err = run_cli("replay", "--text", "x", "--tool-parser", "hermes", "--tools",
                             tools(tmp_path, WEATHER_TOOLS), "--chunking", "random:1:2", "--json")
    assert code == 0 and json.loads(out)["text"] == "x", err
    code, out, err = run_cli("replay", recording(tmp_path, lambda ls: None), "--json")
    assert code == 0 and err == "", err


BAD_VALUES = [None, -1, 0, 1.5, 10 ** 12, True, "", "x" * 300, [], [None], [-1], {}, {"a": [1]}, "banana"]


def _mutate(rng, lines: list[dict]) -> str:
    """One random field of the header or a delta, set to a random odd value."""
    line = rng.choice([0] + list(range(1, len(lines))))
    obj = lines[line]
    if line == 0 and rng.random() < 0.6:
        key = rng.choice(["tokenizer", "request", "parser"])
        obj = obj[key] if isinstance(obj.get(key), dict) else obj
    key = rng.choice(sorted(obj))
    obj[key] = rng.choice(BAD_VALUES)
    return f"line {line + 1} {key}"


@pytest.mark.parametrize("seed", range(30))
def test_fuzzed_recordings_replay_or_give_one_line(run_cli, tmp_path, seed):
    """Random single-field mutations of a good recording: exit 0, or 2 with one line."""
    import random

    rng = random.Random(seed)
    lines = seed_lines()
    what = _mutate(rng, lines)
    path = write(tmp_path, "fuzz.jsonl", "".join(json.dumps(line) + "\n" for line in lines))
    code, out, err = run_cli("replay", path, "--json")
    assert "Traceback" not in out + err, (what, err)
    if code == 0:
        json.loads(out)
    else:
        assert code == 2 and out == "" and err.count("\n") == 1, (what, code, err)


@pytest.mark.parametrize("argv", [
    ["tokenizers"], ["parsers"], ["replay", "--text", "hi"], ["doctor", "--text", "hi"],
    ["check", "--text", "hi", "--fuzz", "2", "--no-cost", "--shrink-budget", "0"],
    ["diff", "--text", "hi", "--a", "hermes+qwen3", "--b", "+qwen3"],
])
def test_json_stdout_is_exactly_one_object(run_cli, argv):
    code, out, err = run_cli(*argv, "--json")
    assert code in (0, 1), err
    value, end = json.JSONDecoder().raw_decode(out)  # one JSON value and nothing else
    assert value and not out[end:].strip()


# -- chat templates are data (issue 16, item 3) ---------------------------------------
BOMB = "{{ ('x' * 100000000) * 50 }}"
LOOP = "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}"


def _template_recording(t, template: str) -> Path:
    def change(ls):
        ls[0]["prompt_token_ids"] = []  # no prompt ids: replay renders the header's request
        ls[0]["request"]["chat_template_kwargs"] = {"chat_template": template}
    return recording(t, change)


@pytest.mark.parametrize("template, flags, message", [
    (BOMB, [], "a template from a recording or request is data and is not rendered"),
    (BOMB, ["--trust-template"], "chat template failed: over the 1024.0 MB a template may use"),
    (LOOP, ["--trust-template"], "chat template failed: still rendering after 2 s"),
])
def test_a_recordings_chat_template_is_data(run_cli, tmp_path, monkeypatch, template, flags, message):
    """The box's own limits end it (the message says which), not a timer in the test."""
    from workbench.core import limits

    if template == LOOP:
        monkeypatch.setattr(limits, "TEMPLATE_SECONDS", 2)  # the stated 10 s, shortened for the test
    code, out, err = run_cli("replay", _template_recording(tmp_path, template), *flags, "--json")
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_chat_template_kwargs_cannot_bring_a_template_loop(run_cli):
    code, out, err = run_cli("replay", "--text", "x", "--chat-template-kwargs", json.dumps({"chat_template": LOOP}))
    assert code == 2 and "is data and is not rendered" in err and err.count("\n") == 1


def test_a_trusted_or_given_template_renders_like_the_tokenizers_own(run_cli, tmp_path):
    from workbench.core.tokenizers import ensure_tokenizer

    own = json.loads((ensure_tokenizer("qwen3") / "tokenizer_config.json").read_text())["chat_template"]
    plain = json.loads(run_cli("replay", SEED, "--json")[1])
    rec = _template_recording(tmp_path, own)
    code, out, err = run_cli("replay", rec, "--trust-template", "--json")
    assert code == 0, err
    file = tmp_path / "t.jinja"
    file.write_text(own)
    code, given, err = run_cli("replay", "--text", "hi", "--chat-template", file, "--json")
    assert code == 0, err
    code, builtin, err = run_cli("replay", "--text", "hi", "--json")
    assert json.loads(given)["rows"][0]["opening_chunk"] == json.loads(builtin)["rows"][0]["opening_chunk"]
    assert json.loads(out)["stream"]["tool_calls"][0]["name"] == plain["stream"]["tool_calls"][0]["name"]


@pytest.mark.parametrize("argv", [
    ["corpus", SEED, "--workers", "3"],
    ["check", SEED, "--jobs", "3", "--fuzz", "0", "--no-cost"],
])
def test_more_processes_than_two_per_cpu_are_refused(run_cli, monkeypatch, argv):
    """Each forked process holds its own vLLM: `corpus --workers 100000` forked 3,500 of them
    before the machine stopped answering. Here the machine has one CPU, so 3 is too many."""
    from workbench.core import limits

    monkeypatch.setattr(limits, "cpus", lambda: 1)
    code, out, err = run_cli(*argv)
    assert code == 2 and out == "" and err.count("\n") == 1, (code, err)
    assert "3: at most 2 here (2 per CPU" in err, err


@pytest.mark.parametrize("argv, message", [
    (["corpus", SEED, "--workers", "0"], "--workers must be >= 1, got 0"),
    (["corpus", SEED, "--workers", "-4"], "--workers must be >= 1, got -4"),
    (["check", SEED, "--jobs", "-1", "--fuzz", "0", "--no-cost"], "--jobs must be >= 0"),
])
def test_no_processes_or_fewer_is_refused(run_cli, argv, message):
    """--workers 0 was taken as "one per core" (and ran); a negative --jobs as no jobs."""
    code, out, err = run_cli(*argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, (code, err)
