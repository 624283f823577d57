"""`workbench capture` failures, secrets and --from-sse, against a small local HTTP server.

The stand-in server replays chunks the workbench made for a request (real parity with
`vllm serve` is tests/capture/test_serve_parity.py); here what matters is what the capture does
when the server refuses, stalls or cuts the stream, and what it writes.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS

REQUEST = {"model": "m", "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
           "tools": WEATHER_TOOLS, "api_key": "sk-in-the-request", "stream_options": {"include_usage": True}}


@pytest.fixture(scope="module")
def chunks():
    """The SSE payloads a hermes+qwen3 server sends for SEED_TEXT (opening ... usage)."""
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    spec = RequestSpec.from_dict({**REQUEST, "return_token_ids": True})
    s = Session(Setup("qwen3", ParserSpec("hermes", "qwen3"), spec))
    return [c for r in s.replay(s.deltas_from_text(SEED_TEXT)).rows for c in r.chunks]


class Handler(BaseHTTPRequestHandler):
    mode = "ok"
    payloads: list[str] = []
    seen: list[dict] = []

    def log_message(self, *args) -> None:
        pass

    def _json(self, code: int, obj) -> None:
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/v1/models":
            self._json(200, {"data": [{"id": "m"}]})
        elif self.path == "/version":
            self._json(200, {"version": "0.0.1-server"})
        else:
            self._json(404, {"detail": "Not Found"})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Handler.seen.append({"body": body, "auth": self.headers.get("Authorization")})
        if Handler.mode == "http400":
            return self._json(400, {"error": {"message": "The model `m` does not exist.",
                                              "type": "NotFoundError", "code": 400}})
        if Handler.mode == "slow":
            time.sleep(3)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        payloads = Handler.payloads[:4] if Handler.mode == "cut" else Handler.payloads
        for p in payloads:
            self.wfile.write(f"data: {p}\n\n".encode())
            self.wfile.flush()
        if Handler.mode != "cut":
            self.wfile.write(b"data: [DONE]\n\n")


class Quiet(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        pass  # the client gave up on a slow answer: its broken pipe is expected


@pytest.fixture(scope="module")
def fake(chunks):
    Handler.payloads = chunks
    httpd = Quiet(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://user:pass@127.0.0.1:{httpd.server_port}/v1"
    httpd.shutdown()
    httpd.server_close()


def capture(run_cli, tmp_path, url, mode, *extra):
    Handler.mode = mode
    req = tmp_path / "req.json"
    req.write_text(json.dumps(REQUEST))
    out = tmp_path / f"{mode}.jsonl"
    code, stdout, err = run_cli("capture", "--url", url, "--request", req, "-o", out,
                                "--tool-parser", "hermes", "--reasoning-parser", "qwen3", *extra)
    return code, stdout, err, out


def test_capture_writes_the_servers_chunks_without_secrets(run_cli, tmp_path, fake, chunks, monkeypatch):
    monkeypatch.setenv("WB_TEST_KEY", "sk-secret-value")
    code, out, err, rec = capture(run_cli, tmp_path, fake, "ok", "--api-key-env", "WB_TEST_KEY")
    assert code == 0, err
    assert err == ""  # no progress line when stderr is not a terminal
    assert Handler.seen[-1]["auth"] == "Bearer sk-secret-value"
    sent = Handler.seen[-1]["body"]
    assert sent["stream"] is True and sent["return_token_ids"] is True
    text = rec.read_text()
    for secret in ("sk-secret-value", "sk-in-the-request", "pass@", "user:"):
        assert secret not in text
    lines = [json.loads(line) for line in text.splitlines()]
    header, deltas = lines[0], lines[1:]
    assert header["origin"]["server_vllm_version"] == "0.0.1-server"
    assert header["origin"]["url"].startswith("http://127.0.0.1:")
    assert header["origin"]["opening_chunk"] == chunks[0]
    assert [d["extra"]["chunk"] for d in deltas] == chunks[1:-1]
    assert deltas[-1]["extra"]["usage_chunk"] == chunks[-1]
    code, out, err = run_cli("replay", rec, "--json")
    server = json.loads(out)["server"]
    assert code == 0 and server["first_difference"] is None
    code, out, err = run_cli("check", rec, "--fuzz", "5", "--json")  # the server's ids, regrouped
    assert code == 0 and json.loads(out)["consistent"], out
    # without the server's tool parser the replay differs, and says why
    code, out, err = run_cli("replay", rec, "--reasoning-parser", "qwen3", "--json")
    server = json.loads(out)["server"]
    assert server["first_difference"] is not None and server["cause"].startswith("server flag")


@pytest.mark.parametrize("mode, message", [
    ("http400", "server answered HTTP 400: The model `m` does not exist."),
    ("slow", "no answer from http://127.0.0.1:"),
])
def test_refusals_are_one_line_and_write_nothing(run_cli, tmp_path, fake, mode, message):
    code, out, err, rec = capture(run_cli, tmp_path, fake, mode, "--timeout", "1")
    assert code == 2 and err.count("\n") == 1 and message in err and "pass" not in err
    assert not rec.exists()


def test_unreachable_server_is_one_line(run_cli, tmp_path):
    from workbench.capture.serve import free_port

    code, out, err, rec = capture(run_cli, tmp_path, f"http://127.0.0.1:{free_port()}/v1", "ok")
    assert code == 2 and err.count("\n") == 1 and "cannot reach http://127.0.0.1:" in err


def test_a_cut_stream_keeps_its_chunks_and_adds_an_error_row(run_cli, tmp_path, fake, chunks):
    code, out, err, rec = capture(run_cli, tmp_path, fake, "cut")
    assert code == 2 and "stream cut" in err.splitlines()[-1]
    lines = [json.loads(line) for line in rec.read_text().splitlines()]
    assert [d["extra"].get("chunk") for d in lines[1:-1]] == chunks[1:4]
    assert lines[-1]["finish_reason"] == "error" and "stream cut" in lines[-1]["extra"]["capture_error"]
    code, out, err = run_cli("replay", rec, "--json")
    assert json.loads(out)["server"]["first_difference"] is None


def test_wrong_tokenizer_is_refused_in_one_line(run_cli, tmp_path, fake):
    code, out, err, rec = capture(run_cli, tmp_path, fake, "ok")
    assert code == 0, err
    code, out, err = run_cli("replay", rec, "--tokenizer", "deepseek_v3")
    assert code == 2 and err.count("\n") == 1 and "tokenizer deepseek_v3 is not the server's" in err


def test_from_sse_reconstructs_ids_and_keeps_the_chunking(run_cli, tmp_path, qwen3_tokenizer):
    # a server without parsers: its content is the model's raw text, in the server's chunking
    pieces = ["<think>Weather", " is needed.</think>\n\n<tool", '_call>{"name": "get_weather", ',
              '"arguments": {"city": "Paris"}}</tool_call>']
    sse = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
    sse += [{"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]} for p in pieces]
    sse += [{"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
    log = tmp_path / "log.sse"
    log.write_text("".join(f"data: {json.dumps(c)}\n\n" for c in sse) + "data: [DONE]\n\n")
    req = tmp_path / "req.json"
    req.write_text(json.dumps({"messages": REQUEST["messages"], "tools": WEATHER_TOOLS}))
    rec = tmp_path / "sse.jsonl"
    code, out, err = run_cli("capture", "--from-sse", log, "--request", req, "-o", rec)
    assert code == 0, err
    assert "token ids reconstructed, chunking from SSE" in out
    lines = [json.loads(line) for line in rec.read_text().splitlines()]
    assert lines[0]["origin"]["token_ids"] == "reconstructed"
    deltas = lines[1:]
    assert len(deltas) == len(pieces) + 1
    ids = [t for d in deltas for t in d["token_ids"]]
    assert ids == list(qwen3_tokenizer.encode("".join(pieces), add_special_tokens=False)) + [
        qwen3_tokenizer.eos_token_id]
    code, out, err = run_cli("replay", rec, "--tool-parser", "hermes", "--reasoning-parser", "qwen3",
                             "--json")
    stream = json.loads(out)["stream"]
    assert stream["tool_calls"][0]["name"] == "get_weather" and stream["reasoning"] == "Weather is needed."


def test_server_source_steps_one_chunk_per_step(fake, chunks):
    from workbench.ui import transitions as T
    from workbench.ui.controller import Controller
    from workbench.ui.inputs import Inputs
    from workbench.ui.state import start

    Handler.mode = "ok"
    ctl = Controller(start(Inputs(source="server", server_url=fake, tools=WEATHER_TOOLS,
                                  server_request={"stream_options": {"include_usage": True}})))
    first = ctl.do("Step", T.step, raise_errors=True).rows
    assert len(first) == 1 and first[0].extra["chunk"] == chunks[1]
    assert Handler.seen[-1]["body"]["return_token_ids"] is True
    s = ctl.run(raise_errors=True)
    assert s.stream.done and s.final.stream.tool_calls[0].name == "get_weather"
    assert [r.extra["chunk"] for r in s.rows] == chunks[1:-1]
    from workbench.capture.chunk_compare import normal

    predicted = [normal(c) for r in s.rows for c in r.chunks]
    assert predicted == [normal(c) for c in chunks]  # the rows predict what was sent
    Handler.mode = "cut"
    s = Controller(start(Inputs(source="server", server_url=fake, tools=WEATHER_TOOLS))).run(raise_errors=True)
    assert s.rows[-1].finish_reason == "error" and "stream cut" in s.rows[-1].extra["capture_error"]


def _edit_capture(rec, tmp_path, header=None, chunk_at=None, chunk=None):
    lines = [json.loads(line) for line in rec.read_text().splitlines()]
    if header:
        header(lines[0])
    if chunk_at is not None:
        lines[chunk_at]["extra"]["chunk"] = chunk(lines[chunk_at]["extra"]["chunk"])
    out = tmp_path / "edited.jsonl"
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return out


def test_doctor_names_version_skew_and_template_differences(run_cli, tmp_path, fake):
    code, out, err, rec = capture(run_cli, tmp_path, fake, "ok", "--json")
    assert code == 0 and json.loads(out)["chunks"] > 20  # --json: stdout is one JSON object

    def older(h):
        h["origin"]["server_vllm_version"] = "0.30.0"

    skewed = _edit_capture(rec, tmp_path, older, 2, lambda c: c.replace("Weather", "Wether"))
    code, out, err = run_cli("doctor", skewed, "--json")
    found = [d for d in json.loads(out)["diagnoses"] if d["code"] == "server_differs"]
    assert code == 1 and found and "version skew: the server runs vLLM 0.30.0" in found[0]["message"]
    assert found[0]["evidence"]["first_difference"] == 2

    def other_prompt(h):  # the server rendered the system prompt differently
        ids = h["prompt_token_ids"]
        h["prompt_token_ids"] = ids[:3] + [2610] + ids[3:]
    rec2 = tmp_path / "rec2.jsonl"
    rec2.write_text(_edit_capture(rec, tmp_path, other_prompt, 2,
                                  lambda c: c.replace("Weather", "Wether")).read_text())
    code, out, err = run_cli("replay", rec2, "--json")
    server = json.loads(out)["server"]
    assert server["cause"].startswith("chat-template difference")


def test_an_existing_output_is_refused_before_the_server_is_asked(run_cli, tmp_path, fake):
    out = tmp_path / "ok.jsonl"
    out.write_text("mine\n")
    asked = len(Handler.seen)
    code, _, err, rec = capture(run_cli, tmp_path, fake, "ok")
    assert code == 2 and err.count("\n") == 1 and "exists" in err and "--force" in err
    assert rec.read_text() == "mine\n" and len(Handler.seen) == asked
    code, _, err, rec = capture(run_cli, tmp_path, fake, "ok", "--force")
    assert code == 0, err
    assert rec.read_text() != "mine\n"
