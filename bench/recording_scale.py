"""Recordings of 100,000 and 1,000,000 deltas: load and replay time, peak memory.

Each measurement runs in its own process (peak RSS is per process). For each size:
``load`` (the streaming reader, limits lifted), ``replay`` (`workbench replay REC
--json` end to end, output discarded; refused above core.limits) and, for a size
within the limits, ``rows`` (Session.replay alone) beside a bare vLLM
``parse_delta`` loop over the same deltas: the last JSON line's ``ratio`` = rows /
bare shows whose time it is.
hermes + qwen3 on the qwen3 tokenizer, one token per delta.

``--check``: `workbench check REC` end to end (the defaults: 100 random groupings, the
two-chunk splits, holdback, the cost profile, shrinking) on 3,000 and 30,000-delta
recordings (thinking, then tool calls; tools in the request), each beside vLLM's bare
``parse_delta`` loop over the same deltas, each in its own process: peak RSS (forked
check workers included) and time. check replays the stream once per grouping, so its
ratio to the bare loop is about the number of groupings it replays, whatever the length.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import workbench.core.env  # noqa: E402,F401


def write_recording(path: Path, n: int) -> None:
    from workbench.core import recording as rec
    from workbench.core.tokenizers import ensure_tokenizer, load_tokenizer, tokenizer_sha256

    tok = load_tokenizer("qwen3")
    words = tok.encode(" the weather in Paris is mild today and so the user may go out", add_special_tokens=False)
    think = tok.encode("<think>", add_special_tokens=False) + words * 3 + tok.encode("</think>", add_special_tokens=False)
    ids = (think + words * (n // len(words) + 1))[:n]
    texts = {i: tok.decode([i]) for i in set(ids)}
    header = rec.make_header("qwen3", tokenizer_sha256(ensure_tokenizer("qwen3")), {}, [],
                             {"kind": "text"}, {"tool_parser": "hermes", "reasoning_parser": "qwen3"})
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"type": "header", **header}) + "\n")
        for k, i in enumerate(ids):
            fr = "stop" if k == n - 1 else None
            f.write(json.dumps({"type": "delta", "token_ids": [i], "text": texts[i], "finish_reason": fr}) + "\n")


TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "day": {"type": "integer"}}}}}]


def check_text(n: int) -> str:
    """Thinking then tool calls, about ``n`` qwen3 tokens."""
    steps, calls = max(1, n // 29), max(1, n // 117)
    thinking = " ".join(f"Step {i}: the user wants the weather, so I consider city number {i}." for i in range(steps))
    tool_calls = "\n".join(f'<tool_call>{{"name": "get_weather", "arguments": {{"city": "City {i}", '
                           f'"day": {i}}}}}</tool_call>' for i in range(calls))
    return f"<think>{thinking}</think>\n\n{tool_calls}"


def write_check_recording(path: Path, n: int) -> int:
    from workbench.core import recording as rec
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup
    from workbench.core.tokenizers import ensure_tokenizer, tokenizer_sha256

    session = Session(Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=TOOLS)))
    deltas = session.deltas_from_text(check_text(n))
    header = rec.make_header("qwen3", tokenizer_sha256(ensure_tokenizer("qwen3")), session.setup.request.to_dict(),
                             session.prompt_ids, {"kind": "text"},
                             {"tool_parser": "hermes", "reasoning_parser": "qwen3"})
    rec.save(path, header, deltas)
    return len(deltas)


def child(mode: str, path: str) -> dict:
    from workbench.core import limits, recording as rec
    from workbench.core.tokenizers import load_tokenizer

    load_tokenizer("qwen3")  # vLLM's import, outside the timing
    t0 = time.perf_counter()
    out: dict = {"mode": mode}
    if mode == "load":
        limits.MAX_DELTAS = limits.MAX_RECORDING_BYTES = 10 ** 10  # the reader's own cost, past the limits
        out["deltas"] = len(rec.load(path).deltas)
    elif mode == "replay":
        from workbench.cli import main

        code = main(["replay", path, "--json"])  # refused (exit 2) above the limits
        out["exit"] = code
    elif mode == "check":  # `workbench check REC` with its defaults, output discarded
        from workbench.cli import main

        out["exit"] = main(["check", path, "--json"])
    elif mode == "checkbare":  # vLLM's parse_delta loop over the recording, with its request
        from workbench.core.open_recording import open_recording
        from workbench.core.session import Session, Setup
        from workbench.core.request import RequestSpec

        opened = open_recording(path)
        r = opened.recording
        s = Session(Setup("qwen3", opened.parser, RequestSpec.from_dict(r.request)), prompt_token_ids=r.prompt_token_ids)
        parser = s.parser_cls(s.tokenizer, s.request.tools, chat_template_kwargs={})
        t0 = time.perf_counter()
        for d in r.deltas:
            parser.parse_delta(d.text, list(d.token_ids), s.request, prompt_token_ids=s.prompt_ids, finished=d.finished)
    elif mode == "rows":  # the workbench's part alone: fresh parsers, one Row per delta, non-stream
        from workbench.core.session import Session, Setup
        from workbench.core.parsers import ParserSpec

        r = rec.load(path)
        s = Session(Setup("qwen3", ParserSpec("hermes", "qwen3")), prompt_token_ids=[])
        t0 = time.perf_counter()
        out["rows"] = len(s.replay(r.deltas).rows)
    else:  # bare: vLLM's parse_delta loop alone over the same deltas
        from workbench.core.session import Session, Setup
        from workbench.core.parsers import ParserSpec

        r = rec.load(path)
        s = Session(Setup("qwen3", ParserSpec("hermes", "qwen3")), prompt_token_ids=[])
        parser = s.parser_cls(s.tokenizer, None, chat_template_kwargs={})
        t0 = time.perf_counter()
        for d in r.deltas:
            parser.parse_delta(d.text, list(d.token_ids), s.request, prompt_token_ids=[], finished=d.finished)
    out["s"] = round(time.perf_counter() - t0, 2)
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    out["workers_peak_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    return out


def measure(mode: str, path: Path, timeout: float) -> dict:
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, __file__, "--child", mode, str(path)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"mode": mode, "s": None, "timeout_s": timeout}
    if p.returncode != 0 or not p.stderr.strip().splitlines():
        return {"mode": mode, "error": p.stderr[-500:]}
    result = json.loads(p.stderr.strip().splitlines()[-1])
    result["wall_s"] = round(time.perf_counter() - t0, 2)
    if mode == "replay" and result.get("exit") == 2:
        result["refused"] = p.stderr.strip().splitlines()[0]
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", nargs=2, metavar=("MODE", "PATH"))
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--check", action="store_true", help="check's time and memory against the bare loop instead")
    ap.add_argument("--check-sizes", default="3000,30000")
    args = ap.parse_args()
    if args.child:
        result = child(*args.child)
        sys.stdout.flush()
        print(json.dumps(result), file=sys.stderr)
        return
    if args.check:
        return check_scale(args)
    from workbench.core import limits

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in map(int, args.sizes.split(",")):
            path = Path(tmp) / f"rec{n}.jsonl"
            write_recording(path, n)
            size_mb = round(path.stat().st_size / 2 ** 20, 1)
            for mode in ("load", "replay") + (("rows", "bare") if n <= limits.MAX_DELTAS else ()):
                r = measure(mode, path, args.timeout) | {"deltas": n, "file_mb": size_mb}
                rows.append(r)
                print(f"{n:>9,} deltas ({size_mb} MB) {mode:<6} {r.get('s')} s in-process, "
                      f"{r.get('wall_s')} s wall, peak {r.get('peak_mb')} MB "
                      f"{r.get('refused', '') or r.get('error', '')}", flush=True)
    ours = next((r for r in rows if r["mode"] == "rows" and r.get("s")), None)
    bare = next((r for r in rows if r["mode"] == "bare" and r.get("s")), None)
    ratio = round(ours["s"] / bare["s"], 2) if ours and bare else None
    print(json.dumps({"benchmark": "recording_scale", "max_deltas": limits.MAX_DELTAS, "rows": rows,
                      "ratio": ratio, "ratio_is": "Session.replay rows / bare parse_delta loop, same deltas"}))


def check_scale(args) -> None:
    import os

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in map(int, args.check_sizes.split(",")):
            path = Path(tmp) / f"check{n}.jsonl"
            deltas = write_check_recording(path, n)
            pair = {}
            for mode in ("checkbare", "check"):
                r = measure(mode, path, args.timeout * 4) | {"deltas": deltas}
                pair[mode] = r
                rows.append(r)
                print(f"{deltas:>7,} deltas {mode:<9} {r.get('s')} s, peak {r.get('peak_mb')} MB "
                      f"(workers {r.get('workers_peak_mb')} MB) {r.get('error', '')}", flush=True)
            if pair["check"].get("s") and pair["checkbare"].get("s"):
                rows.append({"deltas": deltas, "ratio": round(pair["check"]["s"] / pair["checkbare"]["s"], 1)})
    sized = [r for r in rows if "ratio" in r]
    checks = [r for r in rows if r.get("mode") == "check" and r.get("peak_mb")]
    print(json.dumps({"benchmark": "check_scale", "rows": rows, "load": os.getloadavg(),
                      "ratio": sized[-1]["ratio"] if sized else None,
                      "ratio_is": "check / bare parse_delta loop, same deltas, at the largest size",
                      "peak_mb_growth": checks[-1]["peak_mb"] - checks[0]["peak_mb"] if len(checks) > 1 else None}))


if __name__ == "__main__":
    main()
