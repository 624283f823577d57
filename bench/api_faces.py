"""`replay --api responses|messages --json` vs `replay --api chat --json` over one 3,563-token stream.

Each side does what `workbench replay --api X --json` computes before printing: the
rows and the non-streaming answer (``Session.replay``), every row's JSON (``to_dict``:
its chat chunk included), and for responses / messages that API's events per row and
its non-streaming body (``faces.run``). The SDK's accumulator over the events (the
``client`` object, read when first asked for) is timed on its own, ``sdk_ms``: it is
the openai / anthropic SDK's own cost, not the face's. The stream is
bench/replay_overhead.py's (hermes + qwen3, qwen3 tokenizer); the three run interleaved
so machine noise hits all of them. Prints the figures, then one JSON line (last) with
``ratio_responses`` and ``ratio_messages`` = that API / chat (goal <= 1.20; the median of
the per-round ratios), and the
same with the SDK's accumulator included (``*_with_sdk``).

The messages face is vLLM's ``message_stream_converter`` driven over the chat stream's
chunks, as the server drives it after its chat generator: ``vllm_converter_ms`` times that
converter alone over the same chunk strings, in the same rounds, so ``messages_floor`` =
(chat + converter) / chat is what vLLM's own code costs on top of chat, and
``messages_face_over_vllm`` = face / converter what the workbench adds to it.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench.core.env  # noqa: E402,F401
from bench.replay_overhead import TOOLS, long_text  # noqa: E402

GOAL = 1.20


def one(session, deltas) -> tuple[float, float]:
    """(seconds for the replay and its face, seconds for the SDK's accumulator)."""
    from workbench.core import faces

    gc.collect()
    t0 = time.perf_counter()
    result = session.replay(deltas)
    rows = [r.to_dict() for r in result.rows]
    face = faces.run(session, result)
    if face is not None:
        for i, row in enumerate(rows):
            row["api_events"] = face.row_events(i)
    t1 = time.perf_counter()
    if face is not None:
        face.client  # noqa: B018 (the SDK runs when the client object is first read)
    return t1 - t0, time.perf_counter() - t1


def bare_converter(session, result) -> float:
    """Seconds for vLLM's message_stream_converter alone over the replay's chat chunks."""
    from workbench.core import vllm_compat as compat
    from workbench.core.faces import anthropic as messages

    items = compat.anthropic_stream_items(messages.chat_chunks(session, result))

    async def source():
        for _, item in items:
            yield item

    gc.collect()
    t0 = time.perf_counter()
    for _ in messages._drive(compat.anthropic_serving().message_stream_converter(None, source())):
        pass
    return time.perf_counter() - t0


def face_only(session, result) -> float:
    from workbench.core.faces import anthropic as messages

    gc.collect()
    t0 = time.perf_counter()
    messages.face(session, result, nonstream=False)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args()

    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    sessions = {api: Session(Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=TOOLS), api=api))
                for api in ("chat", "responses", "messages")}
    deltas = sessions["chat"].deltas_from_text(long_text())
    n_tokens = sum(len(d.token_ids) for d in deltas)
    assert n_tokens >= 3000, n_tokens
    times: dict[str, list[float]] = {api: [] for api in sessions}
    sdk: dict[str, list[float]] = {api: [] for api in sessions}
    for api, s in sessions.items():  # warm-up: imports, SDK clients, caches
        one(s, deltas)
    replayed = sessions["messages"].replay(deltas)
    converter: list[float] = []
    face_alone: list[float] = []
    for _ in range(args.rounds):
        for api, s in sessions.items():
            face_s, sdk_s = one(s, deltas)
            times[api].append(face_s)
            sdk[api].append(sdk_s)
        face_alone.append(face_only(sessions["messages"], replayed))
        converter.append(bare_converter(sessions["messages"], replayed))
    med = {api: statistics.median(ts) for api, ts in times.items()}

    def paired(a: list[float], b: list[float]) -> float:
        """The median of the per-round ratios: a round's sides ran back to back, so load that
        moves between rounds moves both (a ratio of medians mixes rounds)."""
        return round(statistics.median(x / y for x, y in zip(a, b)), 3)

    sdk_med = {api: statistics.median(ts) for api, ts in sdk.items()}
    result = {"bench": "api_faces", "tokens": n_tokens, "deltas": len(deltas), "rounds": args.rounds,
              **{f"{api}_ms": round(m * 1e3, 1) for api, m in med.items()},
              **{f"{api}_sdk_ms": round(sdk_med[api] * 1e3, 1) for api in ("responses", "messages")},
              "ratio_responses": paired(times["responses"], times["chat"]),
              "ratio_messages": paired(times["messages"], times["chat"]),
              **{f"ratio_{api}_with_sdk": round((med[api] + sdk_med[api]) / med["chat"], 3)
                 for api in ("responses", "messages")},
              "vllm_converter_ms": round(statistics.median(converter) * 1e3, 1),
              "messages_floor": paired([c + v for c, v in zip(times["chat"], converter)], times["chat"]),
              "messages_face_over_vllm": paired(face_alone, converter),
              "goal": GOAL}
    if not args.json:
        print(f"{n_tokens} tokens, {len(deltas)} deltas, median of {args.rounds} interleaved rounds")
        print("  ".join(f"{api}: {result[f'{api}_ms']} ms" for api in sessions)
              + f"; the SDKs' accumulators: responses {result['responses_sdk_ms']} ms, "
                f"messages {result['messages_sdk_ms']} ms")
        print(f"vLLM's message_stream_converter alone: {result['vllm_converter_ms']} ms, so messages can be no "
              f"less than {result['messages_floor']}x chat; the face is {result['messages_face_over_vllm']}x "
              "the converter")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
