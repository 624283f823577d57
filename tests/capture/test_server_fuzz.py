"""A hostile local server, fuzzed: hypothesis mutates what `workbench capture` is sent.

One server on 127.0.0.1 (tests/support/hostile.py), started and stopped by this module, answers
each example's script: the chunks a real hermes+qwen3 vLLM server sends, mutated
(fields set to hostile values, chunks dropped, repeated or cut, the bearer key echoed,
raw bytes spliced in), in a chosen encoding (identity, gzip, deflate, a lying header),
with line ends, comments, pauses, an HTTP status and /models and /version answers of its
choosing. The property, for every example:

- exit 0, 1 or 2; no traceback; exit 2 is one stderr line;
- stdout, when there is any with --json, is exactly one strict JSON object;
- memory stays bounded (the process's peak grows by less than 512 MB);
- the API key appears in no output (stdout, stderr, the recording);
- a recording, when one was written, loads.

Seeded (derandomized); a few dozen examples under `make test`, 500 under `make test-slow`.
"""

from __future__ import annotations

import json
import os
import resource
import zlib

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.support.seed import WEATHER_TOOLS
from tests.support.hostile import HostileServer, gzipped, response, sse_head

# timing: fuzzed pauses against capture's timeouts (make test runs these alone)
pytestmark = pytest.mark.serial

KEY_VAR = "WB_FUZZ_KEY"
KEY = "sk-fuzz-9f8e7d6c/5b4a#3?2\"1\\0"
REQUEST = {"model": "m", "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
           "tools": WEATHER_TOOLS, "stream_options": {"include_usage": True}}
FAST = 30  # examples under `make test`
SLOW = 500


class Script:
    """What the server answers now: set by each example. A part is raw bytes, a pause
    (seconds) or a whole response ``(status, body)``, built once the key is put in."""

    chat: list = []
    models: list = [(200, {"data": [{"id": "m"}]})]
    version: list = [(200, {"version": "0.0.1-fuzz"})]


def _echo(parts, request):
    """Parts with the bearer key put in where a part asks for it (b"<KEY>")."""
    key = request.headers.get("authorization", "").removeprefix("Bearer ").encode("utf-8")
    out = []
    for p in parts:
        if isinstance(p, tuple):
            status, body = p
            body = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
            p = response(status, body.replace(b"<KEY>", key))
        out.append(p.replace(b"<KEY>", key) if isinstance(p, bytes) else p)
    return out


@pytest.fixture(scope="module")
def server():
    routes = {"/v1/models": lambda r: _echo(Script.models, r), "/version": lambda r: _echo(Script.version, r),
              "/v1/chat/completions": lambda r: _echo(Script.chat, r)}
    with HostileServer(routes) as s:
        yield s


@pytest.fixture(scope="module")
def payloads():
    from tests.support.seed import SEED_TEXT
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    spec = RequestSpec.from_dict({**REQUEST, "return_token_ids": True})
    s = Session(Setup("qwen3", ParserSpec("hermes", "qwen3"), spec))
    return [json.loads(c) for r in s.replay(s.deltas_from_text(SEED_TEXT)).rows for c in r.chunks]


# -- strategies ------------------------------------------------------------------------
HOSTILE_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.integers(2 ** 31, 2 ** 80),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12), st.just("<KEY>"),
    st.just(["x"]), st.just([1.5]), st.just([-1]), st.just([10 ** 9]), st.just({}), st.just("tool_calls"),
    st.lists(st.integers(0, 200000), max_size=4), st.dictionaries(st.text(max_size=4), st.integers(), max_size=2))
PATHS = [("choices",), ("choices", 0), ("choices", 0, "token_ids"), ("choices", 0, "finish_reason"),
         ("choices", 0, "delta"), ("choices", 0, "delta", "content"), ("choices", 0, "delta", "tool_calls"),
         ("choices", 0, "delta", "reasoning"), ("prompt_token_ids",), ("usage",), ("error",), ("model",),
         ("id",), ("system_fingerprint",)]


def _set(obj, path, value):
    for key in path[:-1]:
        if isinstance(obj, dict) and key in obj:
            obj = obj[key]
        elif isinstance(obj, list) and isinstance(key, int) and key < len(obj):
            obj = obj[key]
        else:
            return
    if isinstance(obj, dict):
        obj[path[-1]] = value
    elif isinstance(obj, list) and isinstance(path[-1], int) and path[-1] < len(obj):
        obj[path[-1]] = value


@st.composite
def chunk_lists(draw, payloads):
    chunks = json.loads(json.dumps(payloads))
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["set", "drop", "repeat", "swap", "cut_list"]))
        i = draw(st.integers(0, len(chunks) - 1)) if chunks else 0
        if not chunks:
            break
        if kind == "set":
            _set(chunks[i], draw(st.sampled_from(PATHS)), draw(HOSTILE_VALUES))
        elif kind == "drop":
            chunks.pop(i)
        elif kind == "repeat":
            chunks.insert(i, chunks[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(chunks) - 1))
            chunks[i], chunks[j] = chunks[j], chunks[i]
        else:
            chunks = chunks[:i]
    texts = [json.dumps(c, allow_nan=True) for c in chunks]
    if texts and draw(st.booleans()):  # a raw mutation of one chunk's text
        i = draw(st.integers(0, len(texts) - 1))
        at = draw(st.integers(0, len(texts[i])))
        junk = draw(st.sampled_from(["", "NaN", "\\u0000", "\\ud800", "<KEY>", "}", "[" * 70, "9" * 200]))
        texts[i] = texts[i][:at] + junk + (texts[i][at:] if draw(st.booleans()) else "")
    return texts


@st.composite
def scripts(draw, payloads):
    texts = draw(chunk_lists(payloads))
    end = draw(st.sampled_from(["\n\n", "\r\n\r\n", "\n"]))
    lines = [f"data: {t}{end}".encode("utf-8", "surrogatepass") for t in texts]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), b": keep-alive\n\n")
    tail = draw(st.sampled_from([b"data: [DONE]\n\n", b"", b"data: [DONE]\n\ndata: {}\n\n", b"data: \xff\xfe\n\n"]))
    body = b"".join(lines) + tail
    encoding = draw(st.sampled_from(["identity", "identity", "gzip", "deflate", "gzip-lie", "br"]))
    headers = {}
    if encoding == "gzip":
        body, headers = gzipped(body), {"Content-Encoding": "gzip"}
    elif encoding == "deflate":
        body, headers = zlib.compress(body), {"Content-Encoding": "deflate"}
    elif encoding in ("gzip-lie", "br"):
        headers = {"Content-Encoding": "gzip" if encoding == "gzip-lie" else "br"}
    status = draw(st.sampled_from([200] * 8 + [400, 500]))
    if status != 200:
        chat = [(status, draw(st.sampled_from([b'{"error": {"message": "no <KEY>"}}', b"<KEY>",
                                               b"not json", b"[1, 2]"])))]
    else:
        pause = draw(st.sampled_from([0, 0, 0.01, 0.7]))  # 0.7: past --timeout 0.5
        cut = draw(st.integers(0, len(body)))
        chat = [sse_head(headers), body[:cut], pause, body[cut:]]
    good = [(200, {"data": [{"id": "m"}]})]
    models = draw(st.sampled_from([good] * 7 + [[(200, ["m"])], [(404, {"detail": "Not Found"})],
                                                [(200, b"<KEY>")]]))
    version = draw(st.sampled_from([[(200, {"version": "0.0.1"})]] * 4 + [
        [(200, ["0.9"])], [(200, {"version": "<KEY>"})], [(404, b"")]]))
    return chat, models, version, draw(st.booleans())


# -- the property ----------------------------------------------------------------------

def _strict_json(text: str):
    def refuse(name):
        raise ValueError(name)
    return json.loads(text, parse_constant=refuse)


def check_one(run_cli, server, tmp_path, script) -> None:
    from workbench.core import recording as rec, secrets

    Script.chat, Script.models, Script.version, as_json = script
    req = tmp_path / "req.json"
    req.write_text(json.dumps(REQUEST))
    out = tmp_path / "cap.jsonl"
    if out.exists():
        out.unlink()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code, stdout, err = run_cli("capture", "--url", server.url("user:pa/ss#w@"), "--request", req, "-o", out,
                                "--tool-parser", "hermes", "--reasoning-parser", "qwen3",
                                "--api-key-env", KEY_VAR, "--timeout", "0.5", "--deadline", "5",
                                *(["--json"] if as_json else []))
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    secrets.forget()
    assert code in (0, 1, 2), (code, err)
    assert "Traceback" not in stdout + err, err
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("workbench capture: error: "), err
    if as_json and stdout.strip():
        value = _strict_json(stdout)
        assert isinstance(value, dict) and stdout.strip().count("\n") == 0
    assert grown_mb < 512, grown_mb
    written = out.read_bytes().decode("utf-8", "replace") if out.exists() else ""
    for output in (stdout, err, written):
        assert KEY not in output and json.dumps(KEY)[1:-1] not in output and "pa/ss#w" not in output
    if out.exists():
        rec.load(out)  # a capture always loads


def _property(run_cli, server, payloads, tmp_path_factory, examples: int):
    tmp = tmp_path_factory.mktemp("fuzz")
    os.environ[KEY_VAR] = KEY

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(script=scripts(payloads))
    def prop(script):
        check_one(run_cli, server, tmp, script)

    try:
        prop()
    finally:
        os.environ.pop(KEY_VAR, None)


def test_a_fuzzed_hostile_server_never_hurts_capture(run_cli, server, payloads, tmp_path_factory):
    _property(run_cli, server, payloads, tmp_path_factory, FAST)


@pytest.mark.slow
def test_a_fuzzed_hostile_server_never_hurts_capture_long(run_cli, server, payloads, tmp_path_factory):
    _property(run_cli, server, payloads, tmp_path_factory, SLOW)
