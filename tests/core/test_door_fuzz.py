"""A fuzzer over every input the reading door guards (issue 16, item 8).

Grammar-aware hypothesis strategies mutate what a user or an attacker hands the
CLI: recordings (the seed recording, field by field and byte by byte), parser
configs (the teaching config with hostile values and callables), tools and
messages files, --chat-template-kwargs, SSE logs for `capture --from-sse`, and
--url with credentials. Every example runs in-process through run_cli, and must hold:

- exit 0, 1 or 2; no "Traceback" anywhere; at most one stderr line on exit 2;
- with --json and exit 0/1, stdout is one strict JSON value (no NaN/Infinity);
- no secret this process holds in any output (stdout, stderr, every file written).
  The process holds an API key and a URL's password, registered as capture's client
  registers them (``--api-key-env``, ``user:password@`` in --url), and the strategies
  plant them, in several spellings, where an attacker would: a recording's request,
  origin and deltas, a config's strings, tools, kwargs, SSE chunks, --url itself;
  outputs are searched with core/secrets.py's own list of spellings;
- what it writes for a person cannot be steered (the writing door, core/writing/): the
  strategies also plant control characters (ESC/OSC/CSI, BEL, C1, DEL, bidi overrides,
  U+2028, a newline that would forge a line), backtick runs, ``<!--``, ``</script>``,
  HTML, Markdown images and rich markup, and secrets split over two fields, in every
  field they generate and in file names; stdout and stderr then hold no raw control
  character and no forged line, every written file is what its medium allows (a report
  renders without images, links, raw HTML or extra headings; generated Python parses;
  JSON lines hold no raw control), and the corpus page and terminal report built from
  hostile results keep every ``<script>`` whole and every line one line;
- a seeded sample (every ``BOUNDED_EVERY``-th example) runs in a forked child instead
  (tests/support/bounded.py): RLIMIT_AS of 2 GB more than it started with, killed at 60 s, and
  its own peak RSS must grow by less than 2 GB.

Seeded and derandomized: `make test` runs 500 examples in all; `make test-slow`
runs 10x more. A failure it finds is kept below as a regression case (REGRESSIONS).
"""

from __future__ import annotations

import ast
import itertools
import json
import re

import pytest
from hypothesis import HealthCheck, given, seed, settings, strategies as st

from tests.support import bounded
from tests.support.seed import WEATHER_TOOLS
from workbench.core.config.io import PARSERS_DIR

SEED_REC = PARSERS_DIR / "recordings" / "hermes" / "seed_weather.jsonl"
TEACHING = (PARSERS_DIR / "teaching.toml").read_text(encoding="utf-8")
KEY_VAR = "WORKBENCH_FUZZ_API_KEY"
KEY = "sk-fuzz-0123456789abcdef-SECRET"
PASSWORD = "pw/fuzz#4?@%2F"  # a password with what URLs escape
URL = f"http://fuzz-user:{PASSWORD}@127.0.0.1:9/v1"  # port 9 (discard): nothing answers
# Where an attacker puts a secret: as is, JSON-escaped, percent-encoded.
# Where an attacker puts a secret: as is, percent-encoded, as the URL's userinfo, and as
# JSON / TOML escapes that spell it only once parsed (ESCAPED, put in raw where MARK is).
PLANTED = [KEY, PASSWORD, "pw%2Ffuzz%234%3F%40%252F", f"fuzz-user:{PASSWORD}", f"Bearer {KEY}"]
ESCAPED = "\\u0073k-fuzz-0123456789abcdef-SECRET"
MARK = "@@escaped-secret@@"
SECRET = st.sampled_from(PLANTED + [MARK])
FAST = {"recording": 200, "config": 100, "tools": 70, "kwargs": 50, "sse": 60, "url": 20, "page": 40,
        "text": 5}  # 570 in all (text: per command)
BOUNDED_EVERY = 10
GB = 1 << 30


def _settings(kind: str, slow: bool = False):
    return settings(max_examples=FAST[kind] * (10 if slow else 1), deadline=None, derandomize=True,
                    database=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module", autouse=True)
def held_secrets():
    """This process holds a key and a URL password, read as capture reads them."""
    import os

    from workbench.capture import client
    from workbench.core import secrets

    os.environ[KEY_VAR] = KEY
    client.api_key(KEY_VAR)
    client.strip_credentials(URL)
    yield
    os.environ.pop(KEY_VAR, None)
    secrets.forget()


_examples = itertools.count()


def run(run_cli, argv):
    """``run_cli(*argv)``, or for the sampled examples the same in a bounded fork."""
    if next(_examples) % BOUNDED_EVERY:
        return run_cli(*argv)
    o = bounded.run(argv, memory=2 * GB, seconds=60)
    assert o.died is None, (f"{argv!r:.300}", o.died, o.err[-2000:])
    assert o.grew < 2 * GB, (f"{argv!r:.300}", f"peak memory grew by {o.grew_gb:.2f} GB")
    return o.code, o.out, o.err


# What steers a terminal, a report or a page, as values an attacker controls.
FORGED = "FORGED-LINE"
HOSTILE = ["\x1b]0;owned\x07", "\x1b[2J\x1b[H", "\x1b]8;;http://evil.example\x07here\x1b]8;;\x07", "\x9b31m", "\x7f",
           "\u202eevil\u202c", "\u2066x\u2069", "\u2028", "a\rb", f"x\n{FORGED}: error: all is well", "`````\n# Owned",
           "<!--<script>", "</script><script>alert(1)</script>", "<img src=http://evil.example/x.png>",
           "![x](http://evil.example/y.png)", "[link=http://evil.example]z[/link]", "[red]x", "a | b", "\x08\x08"]
HOSTILE_TEXT = st.sampled_from(HOSTILE) | st.builds(str.__add__, st.sampled_from(HOSTILE), st.sampled_from(HOSTILE))
SPLIT = (KEY[:11], KEY[11:])  # a secret in two fields, neither of which holds it
# raw in an output for a person: every control but newline and tab, bidi controls, U+2028/9
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def leaked(text: str) -> bool:
    from workbench.core import secrets

    return secrets.spelled_in(text)


def holds(argv, code, out, err, files=()) -> None:
    where = f"{argv!r:.300}"
    assert code in (0, 1, 2), (where, code, err[-500:])
    assert "Traceback" not in out + err, (where, err[-2000:])
    for name, text in [("stdout", out), ("stderr", err)] + [(str(f), f.read_text("utf-8", "replace"))
                                                              for f in files if f.exists()]:
        assert not leaked(text), (where, name)
    for name, text in (("stdout", out), ("stderr", err)):
        assert not RAW_CONTROL.search(text), (where, name, RAW_CONTROL.search(text))
        assert not any(line.startswith(FORGED) for line in text.splitlines()), (where, name)
    for f in files:
        if f.exists():
            written_for_a_person(f, where)
    if code == 2:
        assert err.count("\n") <= 1, (where, err)
    if "--json" in argv and code in (0, 1):
        value, end = json.JSONDecoder(parse_constant=lambda c: pytest.fail(f"{c} on stdout: {where}")
                                      ).raw_decode(out)
        assert not out[end:].strip(), where


def written_for_a_person(f, where: str) -> None:
    """A written file holds what its medium allows, whatever its values were."""
    text = f.read_text("utf-8", "replace")
    if f.suffix == ".md":
        from markdown_it import MarkdownIt

        html = MarkdownIt("commonmark").enable("table").render(text)
        assert not re.search(r"<(img|a |script|iframe|!--)", html), (where, f.name, html[:2000])
        assert html.count("<h1>") <= 1 and html.count("<h2>") <= 6, (where, f.name)
    elif f.suffix == ".py":
        ast.parse(text)
    else:
        assert not RAW_CONTROL.search(text.replace("\t", "")), (where, f.name)


# -- hostile values --------------------------------------------------------------------
ODD = st.one_of(HOSTILE_TEXT,
    st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40), st.just(""), st.just("x" * 5000), st.just("\u0000\ud7ff\uffff"),
    st.lists(st.integers(-5, 200_000), max_size=6), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)
RAW = st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "9" * 5000, "[" * 5000, '"\\ud800"',
                       "{" * 70 + "}" * 70, "[[[[[[[[", "\"\xff\"", "{\"a\": 1, \"a\": 2}"])


def _bytes_mutation(draw, data: bytes) -> bytes:
    kind = draw(st.sampled_from(["cut", "flip", "insert", "none"]))
    if kind == "none" or not data:
        return data
    at = draw(st.integers(0, len(data) - 1))
    if kind == "cut":
        return data[:at]
    if kind == "flip":
        return data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1:]
    return data[:at] + draw(st.sampled_from([b"\xff", b"\xe2\x98", b"\n", b"NaN", b"\r\n", b"\x00"])) + data[at:]


@st.composite
def recordings(draw) -> bytes:
    lines = [json.loads(line) for line in SEED_REC.read_text(encoding="utf-8").splitlines()]
    raw_at: dict[int, str] = {}
    for _ in range(draw(st.integers(1, 3))):
        n = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["set", "del", "dup", "drop", "raw", "ids", "text", "nested"]))
        line = lines[n]
        if op in ("set", "del", "nested"):
            target = line
            if n == 0 and draw(st.booleans()):
                key = draw(st.sampled_from(["tokenizer", "request", "parser", "origin"]))
                target = line[key] if isinstance(line.get(key), dict) else line
            key = draw(st.sampled_from(sorted(target) + ["extra", "chat_template_kwargs", "plugins"]))
            if op == "del":
                target.pop(key, None)
            elif op == "nested":
                target[key] = {"chat_template": draw(st.sampled_from(["{{ 'x' * 9 }}", "{% for i in range(9) %}"]))}
            else:
                target[key] = draw(ODD)
        elif op == "dup":
            lines.insert(n, dict(line))
        elif op == "drop" and len(lines) > 1:
            lines.pop(n)
        elif op == "raw":
            raw_at[n] = draw(RAW)
        elif op == "ids" and n:
            line["token_ids"] = draw(st.lists(st.integers(0, 151_700), max_size=4))
        elif op == "text" and n:
            line["text"] = draw(st.text(max_size=12))
    _plant(draw, lines)
    text = "".join((raw_at.get(i) or json.dumps(obj, ensure_ascii=False)) + "\n" for i, obj in enumerate(lines))
    return _bytes_mutation(draw, text.replace(MARK, ESCAPED).encode("utf-8", "surrogatepass"))


def _plant(draw, lines: list) -> None:
    """One secret where an attacker would put it in a recording, a value that would steer
    an output in another spot, and a secret split over two spots."""
    hostile = [draw(HOSTILE_TEXT)] if draw(st.booleans()) else []
    for value in [draw(SECRET), *hostile, *(SPLIT if draw(st.booleans()) else ())]:
        _plant_one(draw, lines, value)


def _plant_one(draw, lines: list, secret: str) -> None:
    header = lines[0]
    spot = draw(st.sampled_from(["message", "tool", "kwargs", "origin", "parser", "text", "extra"]))
    request = header.get("request") if isinstance(header.get("request"), dict) else {}
    if spot == "message":
        request["messages"] = [{"role": "user", "content": f"my key is {secret}"}]
    elif spot == "tool":
        request["tools"] = [{"type": "function", "function": {"name": "f", "description": secret}}]
    elif spot == "kwargs":
        request["chat_template_kwargs"] = {secret: secret}
    elif spot == "origin":
        header["origin"] = {"kind": draw(st.sampled_from(["capture", "text"])), "url": f"http://{secret}@h/v1"}
    elif spot == "parser":
        header["parser"] = {"tool_parser": secret, "reasoning_parser": "qwen3"}
    elif len(lines) > 1:
        delta = lines[draw(st.integers(1, len(lines) - 1))]
        if spot == "text":
            delta["text"] = secret
        else:
            delta["extra"] = {"chunk": json.dumps({"choices": [{"delta": {"content": secret}}]})}


CALLABLES = ["vllm.parser.granite:_granite_arg_converter", "vllm.compilation.codegen:compile_execution_fn",
             "os:system", "builtins:eval", "subprocess:run", "vllm.envs:os.system", "vllm.parser.qwen3:Qwen3Parser",
             "nope", ":", "vllm.parser.granite:__class__"]


@st.composite
def configs(draw) -> bytes:
    text = TEACHING
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["callable", "key", "terminal", "transition", "raw"]))
        if op == "callable":
            field = draw(st.sampled_from(["arg_converter", "parser_class"]))
            text = f'{field} = "{draw(st.sampled_from(CALLABLES))}"\n' + text.replace(
                'arg_converter = "vllm.parser.granite:_granite_arg_converter"', "")
        elif op == "key":
            value = draw(st.sampled_from(['"x"', "1", "nan", "inf", "[1, 2]", "{ a = 1 }", "true", '"' + "y" * 3000 + '"',
                                          f'"{MARK}"', json.dumps(KEY), json.dumps(PASSWORD)]))
            text = f"{draw(st.sampled_from(['initial_state', 'tool_args_json', 'name', 'x', 'extends']))} = {value}\n" + text
        elif op == "terminal":
            text = text.replace("[terminals]", "[terminals]\nX = " + draw(st.sampled_from(
                ['"' + "z" * 300 + '"', '""', "[]", '["a", 1]', "5", '"<x>"'])), 1)
        elif op == "transition":
            text += "\n[[transitions]]\n" + draw(st.sampled_from([
                'from = "CONTENT"\non = "X"\nto = "NOWHERE"\n', 'from = 1\n', 'on = "TOOL_END"\nemit = ["BAD"]\n']))
        else:
            text = draw(RAW) + "\n" + text
    secret = draw(SECRET | HOSTILE_TEXT)
    spot = draw(st.sampled_from(["name", "terminal", "callable"]))
    if spot == "name":
        text = text.replace('name = "teaching"', f"name = {json.dumps(secret)}", 1)
    elif spot == "terminal":
        text = text.replace("[terminals]", f"[terminals]\nLEAK = {json.dumps(secret)}", 1)
    else:
        text = f'arg_converter = {json.dumps(secret + ":attr")}\n' + text.replace(
            'arg_converter = "vllm.parser.granite:_granite_arg_converter"', "")
    return _bytes_mutation(draw, text.replace(MARK, ESCAPED).encode("utf-8", "surrogatepass"))


JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**64, 2**64) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                    max_leaves=12)


@st.composite
def tools_files(draw) -> bytes:
    kind = draw(st.sampled_from(["json", "tool", "raw"]))
    if kind == "json":
        return json.dumps(draw(JSON)).encode()
    if kind == "raw":
        return draw(RAW).encode("utf-8", "surrogatepass")
    tools = json.loads(json.dumps(WEATHER_TOOLS))
    fn = tools[0]["function"]
    fn[draw(st.sampled_from(["name", "parameters", "description", "strict"]))] = draw(JSON)
    fn[draw(st.sampled_from(["name", "description"]))] = draw(SECRET | HOSTILE_TEXT)
    fn["name"], fn["description"] = (SPLIT if draw(st.booleans()) else (fn["name"], fn["description"]))
    return _bytes_mutation(draw, json.dumps(tools).replace(MARK, ESCAPED).encode())


@st.composite
def sse_logs(draw) -> bytes:
    chunks = [{"id": "c", "object": "chat.completion.chunk", "model": "m",
               "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
    for piece in draw(st.lists(st.text(max_size=6) | SECRET | HOSTILE_TEXT | st.sampled_from(SPLIT),
                               min_size=1, max_size=6)):
        chunks.append({"id": "c", "object": "chat.completion.chunk", "model": "m",
                       "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
    chunks[-1]["choices"][0]["finish_reason"] = draw(st.sampled_from(["stop", "length", None, "banana", 5]))
    if draw(st.booleans()):
        target = draw(st.sampled_from(chunks))
        target[draw(st.sampled_from(["choices", "model", "usage", "prompt_token_ids"]))] = draw(JSON)
    if draw(st.booleans()):
        chunks.append({"error": {"message": f"bad key {draw(SECRET)}", "code": 401}})
    lines = [f"data: {json.dumps(c)}" for c in chunks] + ["data: [DONE]"]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), "data: " + draw(RAW))
    return _bytes_mutation(draw, ("\n\n".join(lines) + "\n").replace(MARK, ESCAPED).encode("utf-8", "surrogatepass"))


NAMES = ["", "\x1b]0;owned\x07", "<!--<script>", "a\nFORGED-LINE: x", "`````", "\u202e", "[red]"]
_names = itertools.count()


def _file(tmp_path_factory, name: str, data: bytes):
    """``data`` in a file named ``name``, every few with a hostile prefix (paths reach messages)."""
    p = tmp_path_factory.mktemp("fuzz") / (NAMES[next(_names) % len(NAMES)] + name)
    p.write_bytes(data)
    return p


# -- the properties ---------------------------------------------------------------------
def _recording_case(run_cli, tmp_path_factory, data, command):
    rec = _file(tmp_path_factory, "rec.jsonl", data)
    argv, files = [command.split()[0], rec, "--json"], []
    if command == "check":
        argv += ["--fuzz", "1", "--no-cost", "--shrink-budget", "0"]
    if command == "replay --save":  # a recording written back: every line through the writer
        files = [rec.with_name("saved.jsonl")]
        argv += ["--save", files[0]]
    if command == "doctor --report":  # a Markdown report, its minimal text and its exported test
        from workbench.diagnosis import bugreport

        files = bugreport.paths(str(rec.with_name("bug.md")))
        argv += ["--report", files[0]]
    holds(argv, *run(run_cli, argv), files=files)


@seed(20260902)
@_settings("recording")
@given(data=recordings(), command=st.sampled_from(["replay", "replay", "replay --save", "doctor", "doctor --report"]))
def test_fuzzed_recordings(run_cli, tmp_path_factory, data, command):
    _recording_case(run_cli, tmp_path_factory, data, command)


@seed(20260902)
@_settings("config")
@given(data=configs())
def test_fuzzed_configs(run_cli, tmp_path_factory, data):
    argv = ["replay", "--config", _file(tmp_path_factory, "c.toml", data), "--text", "<tool_call>x</tool_call>",
            "--json"]
    holds(argv, *run(run_cli, argv))


@seed(20260902)
@_settings("tools")
@given(data=tools_files(), flag=st.sampled_from(["--tools", "--messages"]))
def test_fuzzed_tools_and_messages(run_cli, tmp_path_factory, data, flag):
    argv = ["replay", "--text", "hi", "--tool-parser", "hermes", flag, _file(tmp_path_factory, "t.json", data),
            "--json"]
    holds(argv, *run(run_cli, argv))


@seed(20260902)
@_settings("kwargs")
@given(value=JSON | RAW, secret=SECRET)
def test_fuzzed_request_kwargs(run_cli, value, secret):
    text = value if isinstance(value, str) and value in RAW_VALUES else json.dumps({"k": value, secret: secret})
    argv = ["replay", "--text", "hi", "--chat-template-kwargs", text.replace(MARK, ESCAPED), "--json"]
    holds(argv, *run(run_cli, argv))


RAW_VALUES = {"NaN", "Infinity", "-Infinity", "1e999", "9" * 5000, "[" * 5000, '"\\ud800"', "{" * 70 + "}" * 70,
              "[[[[[[[[", "\"\xff\"", "{\"a\": 1, \"a\": 2}"}


@seed(20260902)
@_settings("sse")
@given(data=sse_logs())
def test_fuzzed_sse_logs(run_cli, tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("sse")
    (folder / "req.json").write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    (folder / "log.sse").write_bytes(data)
    argv = ["capture", "--from-sse", folder / "log.sse", "--request", folder / "req.json", "-o", folder / "o.jsonl",
            "--json"]
    holds(argv, *run(run_cli, argv), files=[folder / "o.jsonl"])


PASSWORDS = st.sampled_from([PASSWORD, KEY, "p@ss", "a/b#c?d", "%41%2F", "é€-pass", "x" * 300])


@seed(20260902)
@_settings("url")
@given(password=PASSWORDS, tail=st.sampled_from(["127.0.0.1:9/v1", "127.0.0.1:notaport/v1", "[::1]:9/v1",
                                                 "", "/v1", "127.0.0.1:99999/v1"]),
       scheme=st.sampled_from(["http://", "https://", "ftp://", ""]))
def test_fuzzed_urls_with_credentials(run_cli, tmp_path_factory, password, tail, scheme):
    """--url with user:password@ (what the process holds, and others): the password never
    shows, whatever the URL's shape and however the connection fails."""
    folder = tmp_path_factory.mktemp("url")
    (folder / "req.json").write_text(json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}))
    argv = ["capture", "--url", f"{scheme}fuzz-user:{password}@{tail}", "--request", folder / "req.json",
            "-o", folder / "o.jsonl", "--timeout", "2", "--deadline", "5", "--api-key-env", KEY_VAR, "--json"]
    code, out, err = run(run_cli, argv)
    holds(argv, code, out, err, files=[folder / "o.jsonl"])
    assert password not in out + err, argv  # registered or not (a fork registers it in itself)


@pytest.mark.slow
@seed(20260903)
@_settings("recording", slow=True)
@given(data=recordings(), command=st.sampled_from(["replay", "replay --save", "check", "doctor", "doctor --report",
                                                  "diff"]))
def test_fuzzed_recordings_long(run_cli, tmp_path_factory, data, command):
    if command == "diff":
        argv = ["diff", _file(tmp_path_factory, "rec.jsonl", data), "--a", "hermes+qwen3", "--b", "+qwen3", "--json"]
        holds(argv, *run(run_cli, argv))
        return
    _recording_case(run_cli, tmp_path_factory, data, command)


@pytest.mark.slow
@seed(20260903)
@_settings("config", slow=True)
@given(data=configs())
def test_fuzzed_configs_long(run_cli, tmp_path_factory, data):
    argv = ["replay", "--config", _file(tmp_path_factory, "c.toml", data), "--text", "<tool_call>x</tool_call>",
            "--json"]
    holds(argv, *run(run_cli, argv))


@st.composite
def model_texts(draw) -> tuple[str, list]:
    """Model text that parses (a hermes tool call) with hostile values where the outputs show
    them: the reasoning, the content, the call's name and arguments; and tools to match."""
    value = HOSTILE_TEXT | st.sampled_from(SPLIT) | st.text(max_size=6)
    name = draw(value)
    args = {draw(value): draw(value)}
    text = (f"<think>{draw(value)}</think>{draw(value)}<tool_call>"
            f"{json.dumps({'name': name, 'arguments': args}, ensure_ascii=draw(st.booleans()))}</tool_call>"
            + draw(st.sampled_from(["", "`````", "\n# Owned", "<!-- x"])))
    tools = [{"type": "function", "function": {"name": name, "description": draw(value),
                                               "parameters": {"type": "object", "properties": {}}}}]
    return text, tools


TEXT_COMMANDS = ["replay", "replay --json", "check", "doctor", "doctor --report", "export"]


def _text_case(run_cli, tmp_path_factory, text, tools, command):
    folder = tmp_path_factory.mktemp("text")
    (folder / "tools.json").write_text(json.dumps(tools))
    name, *flags = command.split()
    argv, files = [name, "--text", text, "--tools", folder / "tools.json", "--tool-parser", "hermes",
                   "--reasoning-parser", "qwen3", *(f for f in flags if f == "--json")], []
    if command == "check":
        argv += ["--fuzz", "2", "--no-cost", "--shrink-budget", "0"]
    if name == "doctor":  # the installed vLLM only: no lane is started
        from workbench.lanes.versions import installed

        argv += ["--vllm", installed()]
    if command == "doctor --report":
        from workbench.diagnosis import bugreport

        files = bugreport.paths(str(folder / "bug.md"))
        argv += ["--report", files[0]]
    if command == "export":
        files = [folder / "test_fuzzed.py"]
        argv += ["-o", files[0], "--fuzz", "2"]
    holds(argv, *run(run_cli, argv), files=files)


@pytest.mark.parametrize("command", TEXT_COMMANDS)
@seed(20260902)
@_settings("text")
@given(case=model_texts())
def test_fuzzed_texts_reach_every_output(run_cli, tmp_path_factory, case, command):
    """Hostile values that get through (a call that parses) reach tables, findings, reports
    and exported tests: each output still holds only what its medium allows."""
    _text_case(run_cli, tmp_path_factory, *case, command)


@pytest.mark.slow
@pytest.mark.parametrize("command", TEXT_COMMANDS)
@seed(20260903)
@_settings("text", slow=True)
@given(case=model_texts())
def test_fuzzed_texts_reach_every_output_long(run_cli, tmp_path_factory, case, command):
    _text_case(run_cli, tmp_path_factory, *case, command)


@st.composite
def results_lines(draw) -> list[dict]:
    """corpus results lines (findings, errors, versions) whose every string is hostile."""
    text = HOSTILE_TEXT | st.text(max_size=8) | st.sampled_from(SPLIT)
    lines = []
    for i in range(draw(st.integers(1, 5))):
        versions = {draw(text) or "0.32.0": {"findings": [{"kind": draw(text), "field": draw(text),
                                                           "first_step": draw(st.integers(1, 40)),
                                                           "severity": "error", "text": draw(text)}]}}
        error = draw(st.none() | text)
        lines.append({"path": f"/r/{draw(text)}{i}.jsonl", "sha256": f"{i}", "spec": "s", "mode": "check",
                      "parser": draw(text), "error": error, "error_kind": draw(text) if error else None,
                      "versions": {} if error else versions, "seconds": 0.1})
    return lines


def page_holds(lines: list[dict]) -> None:
    import contextlib
    import io

    from workbench.cli import corpus_terminal as terminal
    from workbench.corpus import html, summary

    s = summary.summarise(lines)
    page = html.page(s, lines, "workbench corpus: " + lines[0]["parser"])
    # a browser ends a script at its first "</script", unless "<!--" came before it
    opened = [m.end() for m in re.finditer(r"<script\b[^>]*>", page)]
    bodies = [page[at:page.lower().index("</script", at)] for at in opened]
    assert len(bodies) == page.lower().count("</script") and not any("<!--" in b for b in bodies)
    for head, body in zip(re.finditer(r"<script\b([^>]*)>", page), bodies):
        if "application/json" in head.group(1):
            json.loads(body)
    assert "<img" not in page and not RAW_CONTROL.search(page)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        terminal.print_report(s, "corpus: " + lines[0]["path"])
    assert not RAW_CONTROL.search(out.getvalue()) and not any(
        ln.startswith(FORGED) for ln in out.getvalue().splitlines()), out.getvalue()


@seed(20260902)
@_settings("page")
@given(lines=results_lines())
def test_fuzzed_pages_and_reports(lines):
    page_holds(lines)


@pytest.mark.slow
@seed(20260903)
@_settings("page", slow=True)
@given(lines=results_lines())
def test_fuzzed_pages_and_reports_long(lines):
    page_holds(lines)


# -- what the fuzzer found, kept ------------------------------------------------------------
def _seed_with(change) -> bytes:
    lines = [json.loads(line) for line in SEED_REC.read_text(encoding="utf-8").splitlines()]
    out = change(lines)
    return out if isinstance(out, bytes) else "\n".join(json.dumps(x) for x in lines).encode() + b"\n"


def _set(n: int, **fields):
    return lambda lines: lines[n].update(fields)


# Recordings that broke the property before the door (the audit's and the fuzzer's), each
# with the exit codes the fixed workbench gives: 2 is a one-line refusal.
REGRESSIONS: list[tuple[str, bytes, set[int]]] = [
    ("text disagrees with its ids", _seed_with(_set(1, text="</tool_call>")), {2}),
    ("a delta after the finish", _seed_with(lambda ls: ls.append(dict(ls[1]))), {2}),
    ("NaN in a delta", _seed_with(lambda ls: SEED_REC.read_bytes().replace(
        b'"finish_reason": null', b'"finish_reason": NaN', 1)), {2}),
    ("4,300-digit token id", _seed_with(lambda ls: SEED_REC.read_bytes().replace(
        b"[28981]", b"[" + b"9" * 4300 + b"]", 1)), {2}),
    ("nested 100,000 deep", _seed_with(lambda ls: SEED_REC.read_bytes() + b"[" * 100_000 + b"\n"), {2}),
    ("the key echoed in a delta's text", _seed_with(_set(2, text=KEY)), {2}),
    ("a template bomb in chat_template_kwargs", _seed_with(lambda ls: ls[0]["request"].update(
        chat_template_kwargs={"chat_template": "{{ ('x' * 100000000) * 50 }}"})), {0, 1, 2}),
    ("last line cut inside a character", _seed_with(lambda ls: SEED_REC.read_bytes()[:-1] + b'\n{"type": "delta", "text": "\xe2\x98'),
     {0, 1, 2}),
]


@pytest.mark.parametrize("name, data, codes", REGRESSIONS, ids=[r[0] for r in REGRESSIONS])
def test_regressions(run_cli, tmp_path_factory, name, data, codes):
    rec = _file(tmp_path_factory, "rec.jsonl", data)
    argv = ["replay", rec, "--json"]
    code, out, err = bounded_run(argv)
    holds(argv, code, out, err)
    assert code in codes, (name, code, err)


def bounded_run(argv):
    o = bounded.run(argv, memory=2 * GB, seconds=60)
    assert o.died is None and o.grew < 2 * GB, (o.died, o.grew_gb, o.err[-500:])
    return o.code, o.out, o.err
