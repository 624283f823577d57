"""`workbench capture` vs a bare OpenAI-SDK loop reading the same stream from a real server.

Starts one `vllm serve` (tiny qwen3 model, hermes + qwen3 parsers, scripted tokens) on
127.0.0.1 and streams the same 4,000-token request (return_token_ids) through both,
interleaved and alternating which goes first: the bare loop is
``for chunk in client.chat.completions.create(stream=True, ...): pass``; the capture
is ``workbench.capture.capture.capture`` (models, version, tokenizer check, the
detokenizer per chunk, one flushed JSONL line per chunk). Prints the figures, then one
JSON line (last) with ``ratio`` = capture / bare wall time (median of per-round ratios,
goal <= 1.10) and ``ratio_cpu`` (this process's CPU time, capture / bare).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench.core.env  # noqa: E402,F401

N_TOKENS = 4000


def script(tokenizer) -> list[int]:
    words = " ".join(f"word{i}" for i in range(N_TOKENS))
    ids = list(tokenizer.encode(words, add_special_tokens=False))[:N_TOKENS - 1]
    return ids + [tokenizer.eos_token_id]


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    from openai import OpenAI

    from workbench.capture import capture, serve
    from workbench.core.parsers import ParserSpec
    from workbench.core.tokenizers import load_tokenizer

    tok = load_tokenizer("qwen3")
    ids = script(tok)
    tmp = Path(tempfile.mkdtemp(prefix="capture-bench-"))
    served = serve.start("hermes", "qwen3", tmp / "server.log")
    try:
        request = {"model": served.model, "messages": [{"role": "user", "content": "Count."}],
                   "max_tokens": N_TOKENS, "vllm_xargs": {"workbench_script": ids}}
        client = OpenAI(base_url=served.url, api_key="unused")

        def bare():
            n = 0
            for chunk in client.chat.completions.create(
                    stream=True, model=served.model, messages=request["messages"],
                    max_tokens=N_TOKENS, extra_body={"return_token_ids": True,
                                                     "vllm_xargs": request["vllm_xargs"]}):
                n += 1
            assert n > N_TOKENS // 2

        runs = []

        def captured():
            out = tmp / f"cap{len(runs)}.jsonl"
            done = capture.capture(capture.Options(served.url, request, str(out),
                                                   parser=ParserSpec("hermes", "qwen3"),
                                                   progress=False))
            assert done.error is None and done.tokens == len(ids), done
            runs.append(done)
            os.unlink(out)

        captured(), bare()  # warm both paths (tokenizer, parser classes, HTTP pools)
        ratios, cpu_ratios, rows = [], [], []
        for r in range(args.rounds):
            order = [("bare", bare), ("capture", captured)]
            if r % 2:
                order.reverse()
            t = {name: timed(fn) for name, fn in order}
            ratios.append(t["capture"][0] / t["bare"][0])
            cpu_ratios.append(t["capture"][1] / t["bare"][1])
            rows.append(t)
            print(f"round {r}: bare {t['bare'][0]:.2f} s (cpu {t['bare'][1]:.2f}), "
                  f"capture {t['capture'][0]:.2f} s (cpu {t['capture'][1]:.2f}), "
                  f"ratio {ratios[-1]:.3f}")
    finally:
        served.stop()
    print(json.dumps({"benchmark": "capture_overhead", "tokens": len(ids),
                      "chunks": runs[-1].chunks, "rounds": args.rounds,
                      "ratio": round(statistics.median(ratios), 3),
                      "ratio_cpu": round(statistics.median(cpu_ratios), 3), "goal": 1.10,
                      "loadavg_1m": round(os.getloadavg()[0], 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
