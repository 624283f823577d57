"""`workbench capture --from-sse` on saved logs of 2,000 and 20,000 chunks: does it grow
linearly? (It grew with the square of the length: 20,000 chunks took 134 s.)

Both logs are written here (one short word per chunk, the opening role chunk first) and
captured in this process after a tiny one that pays the one-time costs; the last JSON line's ``ratio`` = time(20,000)
/ time(2,000): 10 is linear, 100 quadratic (goal <= 15).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench.core.env  # noqa: E402,F401


def write_log(path: Path, n: int) -> None:
    chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
    chunks += [{"choices": [{"index": 0, "delta": {"content": f" w{i % 10} é"}, "finish_reason": None}]}
               for i in range(n)]
    chunks[-1]["choices"][0]["finish_reason"] = "stop"
    path.write_text("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n")


def capture_once(log: Path, out: Path) -> float:
    from workbench.capture import capture, sse

    opts = capture.Options(url="", request={"messages": [{"role": "user", "content": "Count."}]},
                           output=str(out), progress=False)
    t0 = time.perf_counter()
    done = sse.from_sse(opts, log)
    took = time.perf_counter() - t0
    print(f"{done.chunks} chunks, {done.tokens} tokens: {took:.2f} s", file=sys.stderr)
    return took


def main() -> None:
    from workbench.core.tokenizers import load_tokenizer

    load_tokenizer("qwen3")  # vLLM's import, outside the timing
    sizes = (2000, 20000)
    with tempfile.TemporaryDirectory() as tmp:
        times = {}
        for n in (10, *sizes):  # the first (tiny) one pays the one-time costs: not reported
            log = Path(tmp) / f"{n}.sse"
            write_log(log, n)
            times[n] = capture_once(log, Path(tmp) / f"{n}.jsonl")
    print(json.dumps({"benchmark": "from_sse_scale", "chunks": list(sizes),
                      "seconds": [round(times[n], 3) for n in sizes],
                      "ratio": round(times[sizes[1]] / times[sizes[0]], 2), "goal": 15,
                      "loadavg_1m": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
