"""`workbench capture` vs a bare OpenAI-SDK loop reading the same 4,000-token stream.

Both read one stream, interleaved and alternating which goes first. The bare loop is
``for chunk in client.chat.completions.create(stream=True, ...): pass``; the capture is
``workbench.capture.capture.capture`` (models, version, tokenizer check, vLLM's
detokenizer per chunk, one flushed JSONL line per chunk). By default the stream comes
from a local stand-in server sending, as fast as the socket allows, the SSE chunks a
hermes + qwen3 vLLM server sends for this request (the serve-parity tests hold the
workbench's chunks equal to the server's), so the ratio is the client's own cost
with no server time to hide it; ``--live`` streams from a real `vllm serve` instead
(minutes on a CPU). Prints the figures, then one JSON line (last): ``ratio`` =
capture / bare wall time, the median of per-round ratios (goal <= 1.10).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench.core.env  # noqa: E402,F401

N_TOKENS = 4000
MESSAGES = [{"role": "user", "content": "Count."}]


def script(tokenizer) -> list[int]:
    words = " ".join(f"word{i}" for i in range(N_TOKENS))
    ids = list(tokenizer.encode(words, add_special_tokens=False))[:N_TOKENS - 1]
    return ids + [tokenizer.eos_token_id]


def server_chunks(ids: list[int]) -> list[bytes]:
    """The SSE payloads a hermes+qwen3 vLLM server streams for these ids (return_token_ids)."""
    from workbench.core.deltas import deltas_from_ids, split
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    s = Session(Setup("qwen3", ParserSpec("hermes", "qwen3"),
                      RequestSpec(messages=MESSAGES, return_token_ids=True)))
    deltas = list(deltas_from_ids(s.tokenizer, ids, s.prompt_ids, s.params, split(ids, [1] * len(ids))))
    chunks = [c for r in s.replay(deltas).rows for c in r.chunks]
    return [f"data: {c}\n\n".encode() for c in chunks] + [b"data: [DONE]\n\n"]


def stand_in(payload: bytes):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            body = json.dumps({"data": [{"id": "m"}]} if self.path.endswith("/models")
                              else {"version": "stand-in"}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_port}/v1"


def timed(fn) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--live", action="store_true", help="stream from a real vllm serve (slow on CPU)")
    args = ap.parse_args()

    from openai import OpenAI

    from workbench.capture import capture, serve
    from workbench.core.parsers import ParserSpec
    from workbench.core.tokenizers import load_tokenizer

    ids = script(load_tokenizer("qwen3"))
    tmp = Path(tempfile.mkdtemp(prefix="capture-bench-"))
    served = httpd = None
    if args.live:
        served = serve.start("hermes", "qwen3", tmp / "server.log")
        url, model = served.url, served.model
    else:
        httpd, url = stand_in(b"".join(server_chunks(ids)))
        model = "m"
    try:
        request = {"model": model, "messages": MESSAGES, "max_tokens": N_TOKENS,
                   "vllm_xargs": {"workbench_script": ids}}
        client = OpenAI(base_url=url, api_key="unused")

        def bare():
            n = 0
            for _chunk in client.chat.completions.create(
                    stream=True, model=model, messages=MESSAGES, max_tokens=N_TOKENS,
                    extra_body={"return_token_ids": True, "vllm_xargs": request["vllm_xargs"]}):
                n += 1
            assert n > N_TOKENS, n

        runs = []

        def captured():
            out = tmp / f"cap{len(runs)}.jsonl"
            done = capture.capture(capture.Options(url, request, str(out), progress=False,
                                                   parser=ParserSpec("hermes", "qwen3")))
            assert done.error is None and done.tokens == len(ids), done
            runs.append(done)
            os.unlink(out)

        captured(), bare()  # warm both paths (tokenizer, parser classes, connection pools)
        ratios, cpu = [], []
        for r in range(args.rounds):
            order = [("bare", bare), ("capture", captured)]
            if r % 2:
                order.reverse()
            t = {name: timed(fn) for name, fn in order}
            ratios.append(t["capture"][0] / t["bare"][0])
            cpu.append(t["capture"][1] / t["bare"][1])
            print(f"round {r}: bare {t['bare'][0] * 1e3:.0f} ms (cpu {t['bare'][1] * 1e3:.0f}), "
                  f"capture {t['capture'][0] * 1e3:.0f} ms (cpu {t['capture'][1] * 1e3:.0f}), "
                  f"ratio {ratios[-1]:.3f}")
    finally:
        if served is not None:
            served.stop()
        if httpd is not None:
            httpd.shutdown()
    print(json.dumps({"benchmark": "capture_overhead", "server": "live" if args.live else "stand-in",
                      "tokens": len(ids), "chunks": runs[-1].chunks, "rounds": args.rounds,
                      "ratio": round(statistics.median(ratios), 3),
                      "ratio_cpu": round(statistics.median(cpu), 3), "goal": 1.10,
                      "loadavg_1m": round(os.getloadavg()[0], 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
