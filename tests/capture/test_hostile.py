"""`workbench capture` against a hostile server (tests/support/hostile.py): it cannot hold the
capture past its deadline, fill memory, crash it, make it write a recording its loader
refuses, or get a secret into any output.

Every case: exit 0 or 2, at most one stderr line, no traceback, and whatever recording was
written loads (``recording.load``). The fuzzed version of these is tests/capture/test_server_fuzz.py.
"""

from __future__ import annotations

import json
import tracemalloc

import pytest

from tests.support.seed import WEATHER_TOOLS
from tests.support.hostile import HostileServer, default_routes, gzipped, response, sse, sse_head

# timing: a hostile server's pauses against capture's timeouts and deadlines (make test runs these alone)
pytestmark = pytest.mark.serial

REQUEST = {"model": "m", "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
           "tools": WEATHER_TOOLS, "stream_options": {"include_usage": True}}
KEY = "sk-hostile-Key/with#odd?chars\"\\é"


@pytest.fixture(scope="module")
def payloads():
    """What a hermes+qwen3 vLLM server streams for SEED_TEXT (opening ... usage), as dicts."""
    from tests.support.seed import SEED_TEXT
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    spec = RequestSpec.from_dict({**REQUEST, "return_token_ids": True})
    s = Session(Setup("qwen3", ParserSpec("hermes", "qwen3"), spec))
    return [json.loads(c) for r in s.replay(s.deltas_from_text(SEED_TEXT)).rows for c in r.chunks]


@pytest.fixture(autouse=True)
def _forget_secrets():
    from workbench.core import secrets

    yield
    secrets.forget()


def run_capture(run_cli, tmp_path, routes, *extra, request=REQUEST, userinfo=""):
    from workbench.core import recording as rec

    req = tmp_path / "req.json"
    req.write_text(json.dumps(request))
    out = tmp_path / "cap.jsonl"
    with HostileServer(routes) as server:
        code, stdout, err = run_cli("capture", "--url", server.url(userinfo), "--request", req, "-o", out,
                                    "--tool-parser", "hermes", "--reasoning-parser", "qwen3", *extra)
        share = server.sent.get("/v1/chat/completions", 0.0)  # how much of the stream it waited for
        seen = list(server.seen)
    assert code in (0, 2), (code, err)
    assert "Traceback" not in stdout + err, err
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("workbench capture: error: "), err
    loaded = rec.load(out) if out.exists() else None  # a capture always loads
    return code, stdout, err, loaded, share, seen


def chat(*parts):
    return lambda r: [sse_head(), *parts]


# -- time ------------------------------------------------------------------------------

def test_a_slowloris_cannot_hold_a_capture_past_its_timeout(run_cli, tmp_path, payloads):
    """Bytes trickled (a header, then one byte at a time) never make a whole chunk."""
    trickle = [sse_head()] + [x for b in sse(payloads[:1]) for x in (bytes([b]), 0.3)]
    code, _, err, loaded, share, _ = run_capture(run_cli, tmp_path, default_routes(lambda r: trickle),
                                                "--timeout", "1")
    assert code == 2 and "nothing whole came within 1 s" in err and share < 0.5  # the trickle: 30 s or more
    headers = [b"HTTP/1.1 200 OK\r\n"] + [x for i in range(100) for x in (f"X-{i}: y\r\n".encode(), 0.3)]
    code, _, err, _, share, _ = run_capture(run_cli, tmp_path, default_routes(lambda r: headers),
                                           "--timeout", "1", "--force")
    assert code == 2 and "within 1 s" in err and share < 0.5  # 100 headers, 0.3 s apart


def test_the_deadline_ends_a_stream_that_never_ends(run_cli, tmp_path, payloads):
    body = payloads[1:-2]
    endless = [sse_head(), sse(payloads[:1], done=False)] + [x for i in range(1000)
                                                            for x in (sse([body[i % len(body)]], done=False), 0.2)]
    code, _, err, loaded, share, _ = run_capture(run_cli, tmp_path, default_routes(lambda r: endless),
                                                "--timeout", "1", "--deadline", "2")
    assert code == 2 and "deadline of 2 s passed" in err and share < 0.5  # 1,000 chunks, 0.2 s apart
    assert loaded.deltas[-1].finish_reason == "error" and len(loaded.deltas) > 3


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "x"])
def test_timeouts_must_be_finite_and_positive(run_cli, value):
    for flag in ("--timeout", "--deadline"):
        code, out, err = run_cli("capture", "--url", "http://127.0.0.1:9/v1", "--request", "r.json",
                                 "-o", "o.jsonl", flag, value)
        assert code == 2 and err.count("\n") == 1 and flag in err and "Traceback" not in err


# -- bytes -----------------------------------------------------------------------------

def _peak(fn):
    """(fn(), the most Python held while it ran)."""
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_huge_sse_line_is_refused_before_it_is_held(run_cli, tmp_path, payloads):
    block = b"x" * (1 << 20)
    huge = [sse_head(), sse(payloads[:1], done=False), b"data: {\"a\": \""] + [block] * 64
    (code, _, err, loaded, _, _), peak = _peak(lambda: run_capture(
        run_cli, tmp_path, default_routes(lambda r: huge)))
    assert code == 2 and "longer than the 8.0 MB a line may be" in err and peak < 100 << 20, peak
    assert loaded.deltas[-1].finish_reason == "error"


def _gzip_routes(bomb: bytes):
    packed = gzipped(bomb)
    assert len(packed) < len(bomb) // 1000  # a thousand times smaller than what it unpacks to
    routes = default_routes(lambda r: [sse_head({"Content-Encoding": "gzip"}), packed])
    routes["/v1/models"] = lambda r: [response(200, gzipped(b'{"data": [{"id": "m"}]}'),
                                               {"Content-Encoding": "gzip"})]
    return routes


def test_a_gzip_bomb_is_unpacked_only_up_to_a_cap(run_cli, tmp_path):
    (code, _, err, loaded, _, _), peak = _peak(lambda: run_capture(run_cli, tmp_path,
                                                                   _gzip_routes(b"\0" * (64 << 20))))
    assert code == 2 and "longer than the 8.0 MB a line may be" in err and peak < 100 << 20, peak


def test_a_gzip_bomb_of_empty_lines_stops_at_the_line_cap(run_cli, tmp_path):
    code, _, err, loaded, share, _ = run_capture(run_cli, tmp_path, _gzip_routes(b"\n" * (16 << 20)))
    assert code == 2 and "more than 400,000 lines" in err


def test_an_endless_capture_stops_at_the_recording_limit(run_cli, tmp_path, payloads, monkeypatch):
    from workbench.core import limits

    monkeypatch.setattr(limits, "MAX_DELTAS", 40)
    body = payloads[1:-2]
    many = [sse_head(), sse(payloads[:1] + [body[i % len(body)] for i in range(200)])]
    code, _, err, loaded, _, _ = run_capture(run_cli, tmp_path, default_routes(lambda r: many))
    assert code == 2 and "40 deltas" in err
    assert len(loaded.deltas) == 40 and loaded.deltas[-1].finish_reason == "error"


# -- shapes: each one line, and what was written loads ----------------------------------

def _bad_chunk(payloads, change):
    def route(r):
        chunks = json.loads(json.dumps(payloads))
        change(chunks)
        return [sse_head(), sse(chunks)]
    return route


def _set_choice(i, key, value):
    def change(chunks):
        chunks[i]["choices"][0][key] = value
    return change


SHAPES = {
    "choices of strings": (lambda c: c[3].__setitem__("choices", ["x"]), "choices must be a list of objects"),
    "token_ids a string": (_set_choice(3, "token_ids", "abc"), "token_ids must be a list"),
    "float token ids": (_set_choice(3, "token_ids", [1.0, 2.0]), "token_ids must be a list"),
    "negative token id": (_set_choice(3, "token_ids", [-1]), "token_ids must be a list"),
    "unknown finish_reason": (_set_choice(-2, "finish_reason", "banana"), "finish_reason 'banana'"),
    "delta not an object": (_set_choice(3, "delta", "hi"), "delta must be an object"),
    "content not a string": (lambda c: c[3]["choices"][0]["delta"].__setitem__("content", [1]),
                             "delta.content must be a string"),
    "two choices": (lambda c: c[3]["choices"].append(c[3]["choices"][0]), "2 choices"),
    "a choice of index 1": (_set_choice(3, "index", 1), "choices[0].index is 1"),
    "a choice of index true": (_set_choice(3, "index", True), "choices[0].index is true"),
    "a chunk after the finish": (lambda c: c.insert(-1, c[3]), "after the finishing one"),
    "an id outside the vocabulary": (_set_choice(3, "token_ids", [10 ** 9]), "outside its vocabulary"),
    "a chunk that is a list": (lambda c: c.__setitem__(3, [1, 2]), "not a JSON object"),
    "opening chunk without prompt ids": (lambda c: c[0].pop("prompt_token_ids"), "no prompt_token_ids"),
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_a_bad_chunk_is_one_line_and_the_capture_still_loads(run_cli, tmp_path, payloads, name):
    change, message = SHAPES[name]
    code, _, err, loaded, _, _ = run_capture(run_cli, tmp_path,
                                             default_routes(_bad_chunk(payloads, change)))
    assert code == 2 and message in err, err
    if loaded is not None:  # the last delta says why it stopped (on the finishing one, after it)
        last = loaded.deltas[-1]
        assert last.finish_reason == "error" or "error_after_finish" in last.extra


@pytest.mark.parametrize("raw", ['{"choices": [{"delta": {}, "token_ids": [NaN]}]}',
                                 '{"a": ' + "[" * 100000 + "]" * 100000 + "}",
                                 '{"n": ' + "9" * 5000 + "}"])
def test_json_that_is_not_strict_is_one_line(run_cli, tmp_path, payloads, raw):
    route = lambda r: [sse_head(), sse(payloads[:3], done=False), sse([raw])]
    code, _, err, loaded, _, _ = run_capture(run_cli, tmp_path, default_routes(route))
    assert code == 2 and loaded.deltas[-1].finish_reason == "error"


@pytest.mark.parametrize("version", [["0.9"], {"version": ["x"]}, {"version": 3}, "text", None])
def test_a_strange_version_answer_is_no_version(run_cli, tmp_path, payloads, version):
    routes = default_routes(chat(sse(payloads)))
    routes["/version"] = lambda r: [response(200, json.dumps(version))]
    code, _, err, loaded, _, _ = run_capture(run_cli, tmp_path, routes)
    assert code == 0, err
    assert loaded.header["origin"]["server_vllm_version"] is None


@pytest.mark.parametrize("models", [["m"], {"data": "x"}, {"data": [1, {"id": 2}]}])
def test_a_strange_models_answer_is_one_line(run_cli, tmp_path, payloads, models):
    routes = default_routes(chat(sse(payloads)))
    routes["/v1/models"] = lambda r: [response(200, json.dumps(models))]
    code, _, err, loaded, _, _ = run_capture(run_cli, tmp_path, routes,
                                             request={k: v for k, v in REQUEST.items() if k != "model"})
    assert code == 2 and loaded is None


def test_a_forged_capture_header_is_one_line(run_cli, tmp_path):
    from workbench.core.config.io import PARSERS_DIR

    seed = PARSERS_DIR / "recordings" / "hermes" / "seed_weather.jsonl"
    lines = [json.loads(x) for x in seed.read_text().splitlines()]
    for origin, delta_extra in (({"kind": "capture"}, None),
                                ({"kind": "capture", "token_ids": "server", "opening_chunk": 3}, None),
                                ({"kind": "capture", "token_ids": "server", "opening_chunk": "{"}, None),
                                ({"kind": "capture", "token_ids": "server"}, {"chunk": '{"choices": ["x"]}'}),
                                ({"kind": "capture", "token_ids": "server", "notes": "x"}, None)):
        forged = [dict(lines[0], origin=origin)] + [dict(d) for d in lines[1:]]
        if delta_extra:
            forged[1]["extra"] = delta_extra
        p = tmp_path / "forged.jsonl"
        p.write_text("".join(json.dumps(x) + "\n" for x in forged))
        for command in ("replay", "doctor"):
            code, out, err = run_cli(command, p, "--json")
            assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, (origin, err)


# -- secrets ---------------------------------------------------------------------------

def _echo_routes(payloads):
    """A server that puts the bearer key everywhere it can: error bodies, chunks, escapes."""
    def chat_route(r):
        key = r.headers["authorization"].removeprefix("Bearer ")
        echoed = json.loads(json.dumps(payloads))
        echoed[0]["system_fingerprint"] = r.headers["authorization"]
        echoed[2]["choices"][0]["delta"]["content"] = f"your key is {key}"
        escaped = json.dumps({"choices": [{"index": 0, "delta": {"content": key}, "token_ids": [],
                                           "finish_reason": None}]}, ensure_ascii=True)
        escaped = escaped.replace("s", "\\u0073")
        return [sse_head(), sse(echoed[:4]), sse([escaped], done=False), sse(echoed[4:])]
    routes = default_routes(chat_route)
    routes["/version"] = lambda r: [response(200, {"version": r.headers["authorization"]})]
    return routes


def test_a_key_echoed_by_the_server_reaches_no_output(run_cli, tmp_path, payloads, monkeypatch):
    monkeypatch.setenv("WB_HOSTILE_KEY", KEY)
    for extra in ((), ("--json",)):
        code, out, err, loaded, _, seen = run_capture(
            run_cli, tmp_path, _echo_routes(payloads), "--api-key-env", "WB_HOSTILE_KEY", "--force", *extra)
        assert seen[-1].headers["authorization"] == f"Bearer {KEY}"  # it was sent, and only there
        text = (tmp_path / "cap.jsonl").read_text()
        assert code == 0, err
        for output in (out, err, text):
            assert KEY not in output and json.dumps(KEY)[1:-1] not in output
        assert not any(KEY in s for d in loaded.deltas for s in _strings(d.extra))
        assert not any(KEY in s for s in _strings(loaded.header))


def test_a_key_echoed_in_an_error_body_is_not_printed(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("WB_HOSTILE_KEY", KEY)
    routes = default_routes(lambda r: [response(401, {"error": {"message": f"bad key {r.headers['authorization']}"}})])
    routes["/v1/models"] = routes["/v1/chat/completions"]
    code, out, err, *_ = run_capture(run_cli, tmp_path, routes, "--api-key-env", "WB_HOSTILE_KEY")
    assert code == 2 and "HTTP 401" in err and KEY not in err and "[secret]" in err


@pytest.mark.parametrize("password", ["pa/ss", "pa#ss", "p@ss:w?rd", "pa%2Fss"])
def test_a_url_password_is_never_printed(run_cli, tmp_path, payloads, password):
    from urllib.parse import unquote

    code, out, err, loaded, _, seen = run_capture(run_cli, tmp_path, default_routes(chat(sse(payloads))),
                                                  userinfo=f"user:{password}@")
    assert code == 0, err
    assert not any("authorization" in r.headers for r in seen)  # URL credentials are never sent
    text = (tmp_path / "cap.jsonl").read_text()
    for secret in (password, unquote(password)):
        assert secret not in out + err + text
    code, out, err = run_cli("capture", "--url", f"http://user:{password}@127.0.0.1:9/v1", "--request",
                             tmp_path / "req.json", "-o", tmp_path / "x.jsonl")
    assert code == 2 and "cannot reach" in err and password not in err and "Traceback" not in err


def _strings(obj):
    if isinstance(obj, str):
        yield obj
        if obj[:1] in "{[":
            try:
                yield from _strings(json.loads(obj))
            except ValueError:
                pass
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def test_the_widget_shows_no_echoed_key(payloads, monkeypatch):
    import html

    import anywidget

    from workbench.capture.server_source import ServerSource
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup
    from workbench.errors import WorkbenchError
    from workbench.ui.panels import Banner, row_detail_html
    from workbench.ui.table import DeltaTable

    monkeypatch.setenv("WB_HOSTILE_KEY", KEY)
    session = Session(Setup(request=RequestSpec(tools=WEATHER_TOOLS)))
    with HostileServer(_echo_routes(payloads)) as server:
        source = ServerSource(session, server.url(), {"messages": REQUEST["messages"]},
                              api_key_env="WB_HOSTILE_KEY")
        rows = []
        while not source.done:
            rows += source.step()
        source.close()
    assert any(KEY in s for r in rows for s in _strings(r.extra))  # it reached the rows ...
    spellings = (KEY, html.escape(KEY), json.dumps(KEY)[1:-1])
    for r in rows:  # ... but no view of them
        assert not any(k in "".join(row_detail_html(r)) for k in spellings)
    sent = []
    monkeypatch.setattr(anywidget.AnyWidget, "send", lambda self, content, buffers=None: sent.append(content))
    table = DeltaTable()
    table.set_rows(rows)
    assert sent and not any(KEY in s for s in _strings(sent))
    banner = Banner()
    banner.show_exception(WorkbenchError(f"the server said {KEY}"))
    assert not any(k in banner.value for k in spellings) and "[secret]" in banner.value


# -- a saved SSE log is read as warily --------------------------------------------------

def _log(chunks, tail: str = "data: [DONE]\n\n") -> str:
    return "".join(f"data: {c if isinstance(c, str) else json.dumps(c)}\n\n" for c in chunks) + tail


_OPEN = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}
_TEXT = {"choices": [{"index": 0, "delta": {"content": "Hello"}, "finish_reason": None}]}
_STOP = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
SSE_LOGS = {
    "choices of strings": (_log([_OPEN, {"choices": ["x"]}, _STOP]), "choices must be a list of objects"),
    "content not a string": (_log([_OPEN, {"choices": [{"delta": {"content": 3}}]}, _STOP]),
                             "delta.content must be a string"),
    "a chunk after the finish": (_log([_OPEN, _STOP, _TEXT, _STOP]), "after the finishing one"),
    "unknown finish_reason": (_log([_OPEN, {"choices": [{"delta": {}, "finish_reason": "x"}]}]),
                              "finish_reason 'x'"),
    "prompt ids outside the vocabulary": (_log([{**_OPEN, "prompt_token_ids": [10 ** 9]}, _TEXT, _STOP]),
                                          "outside its vocabulary"),
    "NaN": (_log([_OPEN, '{"choices": [{"delta": {"content": NaN}}]}', _STOP]), "NaN"),
    "nested deep": (_log([_OPEN, '{"a": ' + "[" * 1000 + "]" * 1000 + "}", _STOP]), "nested more than"),
    "a line over the cap": ("data: " + "x" * (9 << 20) + "\n", "longer than the 8.0 MB"),
    "not UTF-8": (_log([_OPEN, _TEXT]).encode() + b"data: \xff\n\n", "not UTF-8"),
    "an error chunk": (_log([_OPEN, {"error": {"message": "boom"}}]), "the server streamed an error: boom"),
}


@pytest.mark.parametrize("name", list(SSE_LOGS))
def test_a_hostile_sse_log_is_one_line(run_cli, tmp_path, name):
    content, message = SSE_LOGS[name]
    log = tmp_path / "log.sse"
    (log.write_bytes if isinstance(content, bytes) else log.write_text)(content)
    req = tmp_path / "req.json"
    req.write_text(json.dumps({"messages": REQUEST["messages"]}))
    code, out, err = run_cli("capture", "--from-sse", log, "--request", req, "-o", tmp_path / "o.jsonl")
    assert code == 2 and err.count("\n") == 1 and message in err and "Traceback" not in err, err


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom", "fifo", "."])
def test_an_sse_log_must_be_a_regular_file(run_cli, tmp_path, path):
    import os

    if path == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)
    req = tmp_path / "req.json"
    req.write_text(json.dumps({"messages": REQUEST["messages"]}))
    code, out, err = run_cli("capture", "--from-sse", path, "--request", req, "-o", tmp_path / "o.jsonl")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err


def test_a_redirect_is_not_followed(run_cli, tmp_path, payloads):
    routes = default_routes(chat(sse(payloads)))
    routes["/v1/models"] = lambda r: [response(301, b"", {"Location": "http://evil.example/v1/models"},
                                               reason="Moved")]
    code, _, err, loaded, _, seen = run_capture(run_cli, tmp_path, routes)
    assert code == 2 and "HTTP 301" in err and loaded is None and len(seen) == 1


# -- /v1/responses and /v1/messages (capture --api) -------------------------------------
# The same guarantees for the other two endpoints: the events a hermes+qwen3 vLLM server
# sends for SEED_TEXT (the faces' own SSE, token ids included where the API gives them),
# then broken one way at a time.
API_REQUESTS = {
    "responses": {"model": "m", "input": [{"role": "user", "content": "What is the weather in Paris?"}],
                  "tools": [{"type": "function", **t["function"]} for t in WEATHER_TOOLS]},
    "messages": {"model": "m", "max_tokens": 512,
                 "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
                 "tools": [{"name": "get_weather", "description": "Current weather for a city",
                            "input_schema": WEATHER_TOOLS[0]["function"]["parameters"]}]},
}


@pytest.fixture(scope="module")
def api_events():
    """api -> [(event name, data dict)] a vLLM server streams for SEED_TEXT (Responses asked
    with enable_response_messages, as capture asks)."""
    from tests.support.seed import SEED_TEXT
    from workbench.core import faces
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    out = {}
    for api, body in API_REQUESTS.items():
        body = {**body, "enable_response_messages": True} if api == "responses" else body
        s = Session(Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(), api=api, api_request=body))
        face = faces.run(s, s.replay(s.deltas_from_text(SEED_TEXT)), client=False)
        out[api] = [(e["type"], e) for e in face.events]
    return out


def api_sse(events) -> bytes:
    return "".join(f"event: {n}\ndata: {d if isinstance(d, str) else json.dumps(d)}\n\n"
                   for n, d in events).encode("utf-8")


def api_routes(api, route):
    routes = default_routes(None)
    routes.pop("/v1/chat/completions")
    routes["/v1/" + api] = route
    return routes


def run_api_capture(run_cli, tmp_path, api, route, *extra):
    import workbench.core.recording as rec

    req = tmp_path / "req.json"
    req.write_text(json.dumps(API_REQUESTS[api]))
    out = tmp_path / f"{api}.jsonl"
    if out.exists():
        out.unlink()
    with HostileServer(api_routes(api, route)) as server:
        code, stdout, err = run_cli("capture", "--api", api, "--url", server.url(), "--request", req, "-o", out,
                                    "--tool-parser", "hermes", "--reasoning-parser", "qwen3", *extra)
        share = server.sent.get(f"/v1/{api}", 0.0)  # how much of the stream it waited for
        seen = list(server.seen)
    assert code in (0, 2), (code, err)
    assert "Traceback" not in stdout + err, err
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("workbench capture: error: "), err
    return code, stdout, err, rec.load(out) if out.exists() else None, share, seen


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_an_api_capture_keeps_every_event_as_sent_and_replays(run_cli, tmp_path, api_events, api):
    from workbench.capture import api_compare

    events = api_events[api]
    code, out, err, loaded, _, seen = run_api_capture(run_cli, tmp_path, api,
                                                      lambda r: [sse_head(), api_sse(events)])
    assert code == 0, err
    sent = seen[-1].json()
    assert sent["stream"] is True and sent.get("enable_response_messages") is (True if api == "responses" else None)
    origin = loaded.header["origin"]
    assert origin["api"] == api and loaded.header["api"] == api
    assert origin["token_ids"] == ("server" if api == "responses" else "reconstructed")
    kept = api_compare.stored(loaded)
    assert [e.obj for e in kept] == [d for _, d in events]  # exactly as sent, in order
    assert "".join(e.sse for e in kept) == api_sse(events).decode()
    code, out, err = run_cli("replay", tmp_path / f"{api}.jsonl", "--json")
    server = json.loads(out)["server"]
    if api == "responses":  # the server's ids: this vLLM's events are the server's, row by row
        assert code == 0 and server["first_difference"] is None and all(s["same"] for s in server["steps"])
        assert server["client"]["server"]["object"]["status"] == "completed"
    else:  # no ids in the API: the thinking and text re-tokenised, without the markup
        assert server["first_difference"] is not None and "token ids reconstructed" in server["cause"]
    code, out, err = run_cli("replay", tmp_path / f"{api}.jsonl")
    assert code == 0 and "server sent" in out and "this vLLM sends" in out, err
    assert (f"same {api} events" if api == "responses" else "first difference at step") in out
    code, out, err = run_cli("doctor", tmp_path / f"{api}.jsonl", "--json")
    differs = [d for d in json.loads(out)["diagnoses"] if d["code"] == "server_differs"]
    if api == "responses":
        assert differs == []
    else:
        assert "the server's events differ" in differs[0]["message"] and "reconstructed" in differs[0]["message"]


def _api_set(i, path, value):
    def change(events):
        obj = events[i][1]
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
    return change


API_SHAPES = {
    "responses": {
        "a delta that is a number": (_api_set(5, ("delta",), 3), "delta must be a string"),
        "an output_index that is a string": (_api_set(4, ("output_index",), "0"), "output_index must be an integer"),
        "an item that is a list": (_api_set(2, ("item",), [1]), "item must be an object"),
        "no type": (lambda e: e[3][1].pop("type"), "has no type"),
        "a chat chunk on /v1/responses": (lambda e: e.insert(3, ("chat.completion.chunk", {"type": "chat.completion.chunk"})),
                                          "not a Responses event"),
        "event line and data disagree": (lambda e: e.__setitem__(3, ("response.completed", e[3][1])),
                                         "its event line says"),
        "output ids that are floats": (lambda e: e[-1][1]["response"]["output_messages"][0].__setitem__(
            "tokens", [1.5]), "tokens must be a list"),
        "output ids outside the vocabulary": (lambda e: e[-1][1]["response"]["output_messages"][0].__setitem__(
            "tokens", [10 ** 9]), "outside its vocabulary"),
        "the stream cut before response.completed": (lambda e: e.pop(), "stream cut"),
        "an error event": (lambda e: e.insert(8, ("error", {"type": "error", "message": "boom", "code": "x"})),
                           "the server streamed an error: boom"),
    },
    "messages": {
        "a delta that is a string": (_api_set(3, ("delta",), "hi"), "delta must be an object"),
        "text that is a list": (_api_set(3, ("delta", "thinking"), ["x"]), "thinking must be a string"),
        "an index that is a float": (_api_set(3, ("index",), 1.5), "index must be an integer"),
        "a Responses event on /v1/messages": (lambda e: e.insert(2, ("response.created", {"type": "response.created"})),
                                              "not an Anthropic event"),
        "the stream cut before message_stop": (lambda e: e.pop(), "stream cut"),
    },
}


@pytest.mark.parametrize("api, name", [(a, n) for a in API_SHAPES for n in API_SHAPES[a]])
def test_a_bad_api_event_is_one_line_and_the_capture_still_loads(run_cli, tmp_path, api_events, api, name):
    change, message = API_SHAPES[api][name]
    events = json.loads(json.dumps(api_events[api]))
    change(events)
    code, _, err, loaded, _, _ = run_api_capture(run_cli, tmp_path, api, lambda r: [sse_head(), api_sse(events)])
    assert code == 2 and message in err, err
    if loaded is not None:  # what came is kept; the last delta says why it stopped
        assert loaded.deltas[-1].finish_reason == "error" and "capture_error" in loaded.deltas[-1].extra


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_an_api_stream_cannot_outlast_its_deadline_or_its_caps(run_cli, tmp_path, api_events, api):
    events = api_events[api]
    body = api_sse(events[:-1])
    trickle = [sse_head()] + [x for b in body[:60] for x in (bytes([b]), 0.3)]
    code, _, err, _, share, _ = run_api_capture(run_cli, tmp_path, api, lambda r: trickle, "--timeout", "1")
    assert code == 2 and "nothing whole came within 1 s" in err and share < 0.5  # 60 bytes, 0.3 s apart
    middle = api_sse(events[3:5])
    endless = [sse_head(), api_sse(events[:3])] + [x for _ in range(1000) for x in (middle, 0.2)]
    code, _, err, loaded, share, _ = run_api_capture(run_cli, tmp_path, api, lambda r: endless,
                                                     "--timeout", "1", "--deadline", "2")
    assert code == 2 and "deadline of 2 s passed" in err and share < 0.5  # 1,000 events, 0.2 s apart
    assert loaded.deltas[-1].finish_reason == "error"
    huge = [sse_head(), api_sse(events[:2]), b"event: x\ndata: {\"a\": \""] + [b"x" * (1 << 20)] * 64
    (code, _, err, _, _, _), peak = _peak(lambda: run_api_capture(run_cli, tmp_path, api, lambda r: huge))
    assert code == 2 and "longer than the 8.0 MB a line may be" in err and peak < 100 << 20, peak


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_a_key_echoed_in_api_events_reaches_no_output(run_cli, tmp_path, api_events, api, monkeypatch):
    from workbench.core import secrets

    monkeypatch.setenv("WB_KEY", KEY)

    def route(r):
        key = r.headers["authorization"].removeprefix("Bearer ")
        events = json.loads(json.dumps(api_events[api]))
        first = events[0][1].get("response") or events[0][1].get("message")
        first["id"] = r.headers["authorization"]
        at = next(i for i, (_, d) in enumerate(events) if '"Weather"' in json.dumps(d))
        events[at] = (events[at][0], json.dumps(events[at][1]).replace('"Weather"', json.dumps("key " + key)))
        return [sse_head(), api_sse(events)]

    code, out, err, loaded, _, _ = run_api_capture(run_cli, tmp_path, api, route, "--api-key-env", "WB_KEY",
                                                   "--json")
    written = (tmp_path / f"{api}.jsonl").read_text() if (tmp_path / f"{api}.jsonl").exists() else ""
    for output in (out, err, written):
        assert KEY not in output and json.dumps(KEY)[1:-1] not in output
    # messages: re-tokenising the events' text would spell the key, refused; responses: the
    # ids are the server's (their text has no key), the echoed event is kept scrubbed
    assert (code, "spell a secret" in err) == ((2, True) if api == "messages" else (0, False)), err
    secrets.forget()


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_an_api_sse_log_is_read_as_a_capture(run_cli, tmp_path, api_events, api):
    from workbench.capture import api_compare
    from workbench.core import recording as rec

    log = tmp_path / f"{api}.sse"
    log.write_bytes(api_sse(api_events[api]))
    req = tmp_path / "req.json"
    req.write_text(json.dumps(API_REQUESTS[api]))
    out = tmp_path / "from-log.jsonl"
    code, stdout, err = run_cli("capture", "--api", api, "--from-sse", log, "--request", req, "-o", out,
                                "--tool-parser", "hermes", "--reasoning-parser", "qwen3")
    assert code == 0, err
    loaded = rec.load(out)
    assert [e.obj for e in api_compare.stored(loaded)] == [d for _, d in api_events[api]]
    # the log's Responses events carry the ids (the request asked enable_response_messages)
    assert loaded.header["origin"]["token_ids"] == ("server" if api == "responses" else "reconstructed")
    log.write_bytes(api_sse(api_events[api][:4]) + b"event: x\ndata: [1, 2]\n\n")
    code, stdout, err = run_cli("capture", "--api", api, "--from-sse", log, "--request", req, "-o", out, "--force")
    assert code == 2 and err.count("\n") == 1 and "not a JSON object" in err and "Traceback" not in err
    assert rec.load(out).deltas[-1].finish_reason == "error"


def test_a_forged_api_capture_header_is_one_line(run_cli, tmp_path, api_events):
    """A recording claiming to be a Responses capture is checked before anything reads it."""
    events = api_events["responses"]
    code, _, err, loaded, _, _ = run_api_capture(run_cli, tmp_path, "responses",
                                                 lambda r: [sse_head(), api_sse(events)])
    assert code == 0, err
    path = tmp_path / "responses.jsonl"
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    forgeries = [lambda ls: ls[0]["origin"].__setitem__("api", "chat"),
                 lambda ls: ls[1]["extra"].__setitem__("events", "x"),
                 lambda ls: ls[1]["extra"].__setitem__("events", [3]),
                 lambda ls: ls[1]["extra"].__setitem__("events", ["event: a\ndata: {\"type\": \"b\"}\n\n"]),
                 lambda ls: ls[1]["extra"].__setitem__("events", ["no data line"])]
    for forge in forgeries:
        forged = json.loads(json.dumps(lines))
        forge(forged)
        p = tmp_path / "forged.jsonl"
        p.write_text("".join(json.dumps(x) + "\n" for x in forged))
        for command in ("replay", "doctor"):
            code, out, err = run_cli(command, p, "--json")
            assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, (command, err)


def _split_key(n: int) -> list[str]:
    """KEY in n pieces, none of which is the key."""
    step = -(-len(KEY) // n)
    return [KEY[i:i + step] for i in range(0, len(KEY), step)]


@pytest.mark.parametrize("api", ["chat", "responses", "messages"])
@pytest.mark.parametrize("pieces", [2, 5])
def test_a_key_split_over_deltas_is_seen_joined_and_nothing_is_written(run_cli, tmp_path, payloads, api_events,
                                                                       api, pieces, monkeypatch):
    """The server spells the key over several text deltas (a field each, the token ids left
    as they were): each line alone holds no secret, the stream does."""
    monkeypatch.setenv("WB_KEY", KEY)
    parts = _split_key(pieces)
    if api == "chat":
        chunks = json.loads(json.dumps(payloads))
        texts = [c for c in chunks if c.get("choices") and (c["choices"][0]["delta"].get("content")
                                                            or c["choices"][0]["delta"].get("reasoning"))]
        for c, part in zip(texts, parts):
            delta = c["choices"][0]["delta"]
            delta["reasoning" if "reasoning" in delta else "content"] = part  # across fields too
        code, out, err, loaded, _, _ = run_capture(run_cli, tmp_path, default_routes(chat(sse(chunks))),
                                                   "--api-key-env", "WB_KEY")
        written = tmp_path / "cap.jsonl"
    else:
        events = json.loads(json.dumps(api_events[api]))
        visible = [i for i, (_, d) in enumerate(events) if d.get("type") in (
            "response.output_text.delta", "response.reasoning_text.delta") or (
            d.get("type") == "content_block_delta" and d["delta"].get("type") in ("text_delta", "thinking_delta"))]
        assert len(visible) >= pieces
        for i, part in zip(visible, parts):
            d = events[i][1]
            if api == "responses":
                d["delta"] = part
            else:
                d["delta"]["text" if d["delta"]["type"] == "text_delta" else "thinking"] = part
        code, out, err, loaded, _, _ = run_api_capture(run_cli, tmp_path, api,
                                                       lambda r: [sse_head(), api_sse(events)],
                                                       "--api-key-env", "WB_KEY")
        written = tmp_path / f"{api}.jsonl"
    assert code == 2 and "spell a secret" in err and "over more than one" in err, err
    assert not written.exists() and loaded is None
    assert KEY not in out + err
